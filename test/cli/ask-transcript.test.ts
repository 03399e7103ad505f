// `lockstep ask --transcript FILE` keeps the whole conversation, however the command
// ends: after the answer, after a failure, and on Ctrl-C in the middle of an answer.
// The CLI as a process (on a pseudo-terminal for Ctrl-C) and the real openai package
// against a fake endpoint on loopback. The answers are long (thousands of streamed
// pieces), so a transcript that lags behind the stream is caught at the end.
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAi, type FakeOpenAi } from "../support/fake-openai.js";
import { tempDir } from "../support/workspace-fixture.js";
import { BIN, requireBuild } from "./cli-run.js";
import { onTerminal } from "./pty.js";

requireBuild();

let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A long answer whose last words are `last`: ~20 KB, some 3,000 streamed pieces. */
function longAnswer(last: string): string {
  const lines = Array.from(
    { length: 400 },
    (_, i) => `Line ${String(i + 1).padStart(3, "0")}: median now sorts a copy of the values.`,
  );
  return `${lines.join("\n")}\n${last}`;
}

const ENV = { ...process.env, OPENAI_API_KEY: "", GEMINI_API_KEY: "", GOOGLE_API_KEY: "", NO_COLOR: "1" };

async function project(): Promise<{ root: string; transcript: string }> {
  const root = await fs.realpath(tempDir("lockstep-transcript-"));
  await fs.writeFile(
    path.join(root, "stats.js"),
    "export const median = (xs) => xs.sort()[xs.length >> 1];\n",
  );
  return { root, transcript: path.join(root, "notes", "transcript.md") };
}

function askArgs(root: string, transcript: string, url: string): string[] {
  return [
    BIN,
    "ask",
    "--root",
    root,
    "--provider",
    "openai",
    "--base-url",
    url,
    "--model",
    "fake",
    "--yes",
    "--transcript",
    transcript,
    "fix median",
  ];
}

function run(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: ENV, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr.on("data", (b: Buffer) => (out += b.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out }));
  });
}

describe("lockstep ask --transcript", () => {
  it("holds the model's whole final answer once the command has ended", async () => {
    const { root, transcript } = await project();
    const answer = longAnswer("Done: `median` now sorts a copy of the values and averages the middle two.");
    fake = await startFakeOpenAi([{ text: answer }]);
    const ended = await run(askArgs(root, transcript, fake.url));
    expect(ended.out).toContain("averages the middle two.");
    expect(ended.code).toBe(0);
    const text = await fs.readFile(transcript, "utf8");
    expect(text).toContain("## You");
    expect(text.endsWith(`${answer}\n\n*(done)*\n`), `the transcript ends:\n${text.slice(-300)}`).toBe(true);
  }, 60_000);

  it("holds what the model said before a failure, and the failure", async () => {
    const { root, transcript } = await project();
    const said = longAnswer("Reading the file first.");
    fake = await startFakeOpenAi([
      { text: said, calls: [{ name: "read_file", args: { file_path: "stats.js" } }] },
      { status: 400, body: { error: { message: "the model is gone" } } },
    ]);
    const ended = await run(askArgs(root, transcript, fake.url));
    expect(ended.code).toBe(1);
    const text = await fs.readFile(transcript, "utf8");
    expect(text.includes(said), `the transcript ends:\n${text.slice(-300)}`).toBe(true);
    expect(text).toContain("> read_file stats.js\n> ok:");
    expect(text).toMatch(/\*\(failed: [^\n]*\)\*\n$/);
  }, 60_000);

  it("on Ctrl-C in the middle of an answer, ends with the last words the terminal showed", async () => {
    const { root, transcript } = await project();
    const partial = longAnswer("And the last words before the line went quiet.");
    // The model streams its answer and then neither finishes nor closes: the user gives up.
    fake = await startFakeOpenAi([{ text: partial, thenHang: true }]);
    const term = onTerminal(process.execPath, askArgs(root, transcript, fake.url), { cwd: root, env: ENV });
    await term.waitFor("before the line went quiet.");
    // Ctrl-C on a terminal: SIGINT to the command and the server it started, as a shell does.
    term.write("\x03");
    await term.exited;
    const text = await fs.readFile(transcript, "utf8");
    expect(text).toContain("## You");
    expect(text.endsWith(partial), `the transcript ends:\n${text.slice(-300)}`).toBe(true);
  }, 60_000);
});
