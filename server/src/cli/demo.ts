// `lockstep demo`: one complete agent task on a copy of a small project. With
// GEMINI_API_KEY set it asks Gemini; otherwise it plays a recorded session
// offline. Either way, the file changes under the agent halfway (as if the user
// typed), and the agent recovers from the stale state in one step.
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { StreamEvent } from "../agent/events.js";
import type { Io } from "./io.js";
import { packageRoot } from "./package-root.js";
import { askThroughServer } from "./server-client.js";

const TARGET = "src/stats.js";
const PROMPT = `Fix median in @${TARGET}: it must sort a copy of the values and average the two middle values of an even-length list.`;
const USER_EDIT = "// (edited by you while the agent was working)\n";

/** A fresh copy of a directory in the temp folder. */
async function copyToTemp(source: string, prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  await cp(source, dir, { recursive: true });
  return dir;
}

export async function runDemo(args: string[], io: Io): Promise<number> {
  const { values } = parseArgs({ args, options: { keep: { type: "boolean" }, debug: { type: "boolean" } } });
  const root = packageRoot();
  const project = await copyToTemp(path.join(root, "demo", "project"), "lockstep-demo-");
  const live = Boolean(process.env["GEMINI_API_KEY"] ?? process.env["GOOGLE_API_KEY"]);
  io.stdout(`lockstep demo: a copy of demo/project in ${project}\n`);
  io.stdout(
    live
      ? "Model: Gemini (GEMINI_API_KEY is set).\n"
      : "Model: a recorded session, offline (set GEMINI_API_KEY to use Gemini).\n",
  );
  io.stdout(`\n> ${PROMPT}\n\n`);

  // Right after the agent's first read of the file, the "user" edits it: the patch the agent
  // builds on what it read is stale (a live model takes seconds to answer; the replay streams for ~150 ms).
  let edited = false;
  const onEvent = async (event: StreamEvent): Promise<void> => {
    if (
      edited ||
      event.kind !== "tool_result" ||
      !event.ok ||
      (event.tool !== "read_file" && event.tool !== "read_many_files")
    )
      return;
    edited = true;
    const file = path.join(project, TARGET);
    await writeFile(file, USER_EDIT + (await readFile(file, "utf8")));
    io.stdout(`\n✎ (meanwhile, you add a comment at the top of ${TARGET})\n\n`);
  };

  const { status, job } = await askThroughServer(
    {
      root: project,
      prompt: PROMPT,
      yes: true,
      debug: values.debug ?? false,
      onEvent,
      ...(live ? {} : { replay: path.join(root, "demo", "session.json"), replayDelayMs: 40 }),
    },
    io,
  );

  const final = await readFile(path.join(project, TARGET), "utf8");
  const calls = (job["tool_calls"] ?? []) as { name: string; ok: boolean; message: string }[];
  const recovered =
    calls.some((c) => !c.ok && c.message.startsWith("State Mismatch")) &&
    calls.some((c) => c.ok && c.name === "safe_patch");
  io.stdout(`\n${TARGET} now:\n${final}\n`);
  const recovery = recovered
    ? "a stale patch was refused and the retry on the fresh state landed"
    : "no stale-state recovery was needed";
  io.stdout(
    `${calls.length} tool calls; ${recovery}; your edit ${final.startsWith(USER_EDIT) ? "is kept" : "was lost"}.\n`,
  );
  if (values.keep) io.stdout(`The project is left in ${project}\n`);
  else await rm(project, { recursive: true, force: true });
  return status === "done" && final.startsWith(USER_EDIT) ? 0 : 1;
}
