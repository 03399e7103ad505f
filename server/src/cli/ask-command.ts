// `lockstep ask "PROMPT"`: one agent request from the shell, through a spawned language
// server (server-client.ts). The settings (files, LOCKSTEP_*, flags) are checked first, every
// mistake said in the words it was written in; the exit status says whether the run landed:
// 0 done with its changes kept, 1 when it failed, nothing it proposed landed or the person
// gave no answer, 2 on a usage error.
import { PROVIDERS } from "../config/provider-facts.js";
import { stat } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import type { Usage } from "../agent/model.js";
import { loadSettings, originLabel, type ProjectTrust } from "../config/load-settings.js";
import { waitingForTrust } from "../config/project-keys.js";
import { addTrust } from "../config/trust.js";
import { UsageError, type Io } from "./io.js";
import { Prompter } from "./prompt.js";
import type { JobView } from "./questions.js";
import { askThroughServer } from "./server-client.js";
import { SETTINGS_OPTIONS, settingsFlags } from "./settings-flags.js";
import { paint } from "./stream-view.js";

/** Every change the run proposed was rejected or failed (and it proposed some). */
function nothingLanded(job: JobView): boolean {
  return (job.tool_calls ?? []).some((c) => c.kind === "modify") && (job.files_changed ?? []).length === 0;
}

const OPTIONS = {
  root: { type: "string" },
  yes: { type: "boolean" },
  continue: { type: "boolean" },
  resume: { type: "string" },
  ...SETTINGS_OPTIONS,
} as const;

/** Shows the keys the project file sets that wait for trust and asks, one key, whether to trust the folder. */
async function askToTrust(
  trust: ProjectTrust,
  file: string,
  prompter: Prompter,
  io: Io,
): Promise<boolean | "interrupt"> {
  const waiting = waitingForTrust(trust.ignored);
  if (trust.trusted || waiting.length === 0) return false;
  io.stdout(
    `${file} sets ${waiting.join(", ")}, which apply only in a folder you trust ` +
      `(a cloned repository could point them at its own server).\n`,
  );
  const answer = await prompter.choose(
    `? Trust ${trust.folder} and apply them? [y]es / [N]o: `,
    ["y", "n"],
    "n",
  );
  if ("end" in answer && answer.end === "interrupt") return "interrupt";
  if (!("key" in answer) || answer.key !== "y") {
    io.stdout(
      `  Not trusted: ${waiting.join(", ")} ignored (lockstep trust ${trust.folder} trusts it later).\n`,
    );
    return false;
  }
  const added = addTrust(trust.folder);
  io.stdout(`  Trusted ${added.folder} (lockstep trust --remove ${added.folder} undoes it).\n`);
  return true;
}

export async function askCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: OPTIONS });
  if (values.continue && values.resume !== undefined)
    throw new UsageError("give --continue (the newest session) or --resume ID, not both");
  const prompt = positionals.join(" ").trim();
  if (!prompt) {
    io.stderr('lockstep ask: say what to do, e.g. lockstep ask "fix the failing test in @src/app.ts"\n');
    return 2;
  }
  const root = path.resolve(values.root ?? process.cwd());
  const isDirectory = await stat(root).then(
    (st) => st.isDirectory(),
    () => false,
  );
  if (!isDirectory)
    throw new UsageError(`--root ${values.root ?? root}: no such directory; give the workspace's directory`);
  if (values.provider !== undefined && !(PROVIDERS as readonly string[]).includes(values.provider)) {
    throw new UsageError(
      `--provider ${values.provider}: not a provider; give gemini, openai (any OpenAI-compatible endpoint, with --base-url), anthropic (Claude), or ollama, lmstudio, llamacpp (a local server, no key)`,
    );
  }
  // On a terminal each answer is one key; otherwise one line each from standard input (the end of it answers no).
  const prompter = values.yes ? undefined : new Prompter(process.stdin, io.stdout);
  // The settings files, LOCKSTEP_* and the flags: every mistake is said now, before anything is sent.
  let loaded = loadSettings({ root, ...settingsFlags(values) });
  // An untrusted folder whose project file sets keys that wait for trust: asked once, on a terminal only.
  const trusted =
    prompter?.singleKey === true ? await askToTrust(loaded.trust, loaded.files.project, prompter, io) : false;
  if (trusted === "interrupt") {
    prompter?.close();
    io.stderr("lockstep ask: interrupted; nothing was sent.\n");
    return 130;
  }
  if (trusted) loaded = loadSettings({ root, ...settingsFlags(values) });
  for (const p of loaded.problems.filter((p) => p.severity === "warning"))
    io.stderr(`lockstep ask: ${p.message}\n`);
  const errors = loaded.problems.filter((p) => p.severity === "error");
  if (errors.length > 0) {
    prompter?.close();
    const listed = errors.map((p) => p.message).join("\n  ");
    const waiting = waitingForTrust(loaded.trust.ignored);
    const trustHint =
      waiting.length === 0
        ? ""
        : `\n  (${waiting.join(", ")} in ${loaded.files.project} were ignored: the folder is not trusted; ` +
          `lockstep trust ${loaded.trust.folder} lets them apply)`;
    throw new UsageError(
      `${listed}${trustHint}\n  (lockstep config shows the settings in force and where each came from)`,
    );
  }
  // Hunks are decided through an editor's code actions; the terminal asks for each change instead.
  const review = loaded.settings.approval === "review";
  const settings = review ? { ...loaded.settings, approval: "ask" as const } : loaded.settings;
  if (review) {
    const from = originLabel(loaded.origins.approval);
    io.stderr(
      paint.dim(
        `lockstep ask: approval review (${from}) is for editors; the terminal asks before each change instead.\n`,
      ),
    );
  }
  const resume = values.continue
    ? { resume: { latest: true as const } }
    : values.resume !== undefined
      ? { resume: { id: values.resume } }
      : {};
  try {
    const { status, job, kept } = await askThroughServer(
      {
        root,
        prompt,
        yes: values.yes ?? false,
        debug: settings.debug,
        settings: { ...settings },
        ...(prompter ? { prompter } : {}),
        ...resume,
      },
      io,
    );
    const usage = job["usage"] as Partial<Usage> | undefined;
    if (usage && (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0) > 0) {
      const cached =
        usage.cache_read_input_tokens === undefined
          ? ""
          : ` (${usage.cache_read_input_tokens} from cache, ${usage.cache_creation_input_tokens ?? 0} cached)`;
      io.stdout(`tokens: ${usage.input_tokens ?? 0} in${cached}, ${usage.output_tokens ?? 0} out\n`);
    }
    if (status === "done" && nothingLanded(job as JobView)) {
      io.stderr(
        paint.red(
          "lockstep ask: no change landed: every change the agent proposed was rejected or failed.\n",
        ),
      );
      return 1;
    }
    if (kept === "no-answer") return 1;
    return status === "done" ? 0 : 1;
  } finally {
    prompter?.close();
  }
}
