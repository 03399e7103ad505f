// `lockstep sessions` over a session file of a million records, spawned as a user runs it, with
// a 40 MB heap: the list is folded as the file streams by, so memory does not grow with the
// file. It used to read the file whole, split it and parse it into a list of records: 390 MB
// of memory (under this heap, the process aborted) and 2.2 s or more.
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectFolderName } from "../../server/src/sessions/index.js";

const BIN = path.resolve(import.meta.dirname, "../../bin/lockstep.js");
const base = mkdtempSync(path.join(tmpdir(), "lockstep-sessions-large-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A session of `records` records as the recorder writes them: runs of 1,000, messages, blobs, turns, journal entries. */
async function writeSession(file: string, root: string, records: number): Promise<void> {
  const out = createWriteStream(file, { mode: 0o600 });
  const write = (o: unknown): Promise<void> =>
    new Promise((resolve) => (out.write(JSON.stringify(o) + "\n") ? resolve() : out.once("drain", resolve)));
  const at = "2026-01-01T00:00:01.000Z";
  await write({
    t: "session",
    format: 1,
    id: "20260101-000000-abcdef",
    root,
    provider: "replay",
    model: null,
    endpoint: null,
    started: at,
    title: "large",
  });
  for (let i = 0; i < records; i++) {
    const job = `job-${Math.floor(i / 1000)}`;
    const k = i % 10;
    if (i % 1000 === 0) await write({ t: "run", job_id: job, prompt: `prompt ${i}`, model: "m", at });
    else if (i % 1000 === 999)
      await write({
        t: "end",
        job_id: job,
        status: "done",
        usage: { input_tokens: 10, output_tokens: 5 },
        files_changed: ["a.txt"],
        at,
      });
    else if (k < 4)
      await write({ t: "msg", m: { role: "assistant", parts: [{ text: `the model's text ${i}` }] } });
    else if (k < 5) await write({ t: "blob", id: String(i), content: "x".repeat(200) });
    else if (k < 8)
      await write({ t: "turn", job_id: job, usage: { input_tokens: 10, output_tokens: 5 }, at });
    else
      await write({
        t: "journal",
        job_id: job,
        tool: "edit",
        file_path: "a.txt",
        uri: "file:///a.txt",
        before: null,
        after: String(i),
        at,
      });
  }
  await new Promise<void>((resolve) => out.end(resolve));
}

describe("lockstep sessions over a million records", () => {
  it("lists the session with a 40 MB heap", { timeout: 180_000 }, async () => {
    const root = realpathSync(mkdtempSync(path.join(base, "root-")));
    const state = path.join(base, "state");
    const folder = path.join(state, "lockstep", projectFolderName(root));
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    await writeSession(path.join(folder, "20260101-000000-abcdef.jsonl"), root, 1_000_000);

    const began = performance.now();
    const child = spawn(process.execPath, ["--max-old-space-size=40", BIN, "sessions", "--json"], {
      cwd: root,
      env: { ...process.env, XDG_STATE_HOME: state },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.once("exit", (c, s) => resolve([c, s])),
    );
    process.stderr.write(
      `lockstep sessions over 1,000,000 records: ${(performance.now() - began).toFixed(0)} ms\n`,
    );
    expect({ code, signal, stderr: stderr.slice(-500) }).toEqual({ code: 0, signal: null, stderr: "" });
    const listed = JSON.parse(stdout) as {
      data: { sessions: { turns: number; runs: number; files_changed: string[] }[] };
    };
    expect(listed.data.sessions).toMatchObject([{ turns: 300_000, runs: 1_000, files_changed: ["a.txt"] }]);
  });
});
