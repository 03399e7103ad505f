// gemini-cli itself in IDE mode against lockstep's companion endpoint: its model
// (the fake Gemini endpoint on loopback) asks for write_file, gemini-cli opens
// the diff in "the IDE" (the test editor with lockstep), the user applies it by
// code action there, and gemini-cli writes exactly the text that was taken.
//
// gemini-cli is not a dependency of lockstep. Install it anywhere outside the
// repository and point the test at it:
//   npm install --prefix /some/dir @google/gemini-cli
//   LOCKSTEP_GEMINI_CLI=/some/dir/node_modules/.bin/gemini npx vitest run test/e2e/gemini-cli.test.ts
// It needs `script` (util-linux) for a terminal: gemini-cli asks for confirmation,
// and so opens diffs, only in its interactive interface.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { CodeAction } from "vscode-languageserver-protocol";
import { companionFacts, waitUntil } from "../support/companion-client.js";
import { startFakeGemini, textTurn, type FakeGemini } from "../support/fake-gemini.js";
import { cleanup, launch } from "../support/lsp-client.js";

const GEMINI = process.env["LOCKSTEP_GEMINI_CLI"];
const BEFORE = "export const greeting = 'hello';\n";
const PROPOSED = "export const greeting = 'hello, world';\n";

describe.skipIf(!GEMINI)("gemini-cli in IDE mode with lockstep as its companion", () => {
  const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-gemini-cli-")));
  let gemini: ChildProcess | undefined;
  let fake: FakeGemini | undefined;
  let screen = "";
  afterAll(async () => {
    gemini?.kill("SIGKILL");
    if (process.env["LOCKSTEP_GEMINI_CLI_SCREEN"]) writeFileSync(process.env["LOCKSTEP_GEMINI_CLI_SCREEN"], screen);
    await fake?.close();
    await cleanup();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("opens its write_file in the editor, and writes exactly what the user applied there", { timeout: 90_000 }, async () => {
    const editor = await launch({ "src/greeting.ts": BEFORE }, { style: "helix", env: { TMPDIR: tmp } });
    await companionFacts(editor);
    await editor.open("src/greeting.ts");
    const target = editor.path("src/greeting.ts");
    let streamed = 0;
    fake = await startFakeGemini((request) => {
      // Routing, next-speaker and other side calls are plain generateContent: an empty JSON answer.
      if (!request.stream) return { json: {} };
      streamed++;
      if (streamed > 1) return textTurn("Done.");
      // gemini-cli connects to the IDE in the background while it already sends the prompt; its
      // write_file opens a diff only once connected, so the model "thinks" for two seconds first.
      return { chunks: [{ parts: [{ functionCall: { name: "write_file", args: { file_path: target, content: PROPOSED } } }], delayMs: 2000 }] };
    });
    const home = path.join(tmp, "home");
    mkdirSync(path.join(home, ".gemini"), { recursive: true });
    writeFileSync(
      path.join(home, ".gemini", "settings.json"),
      JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } }, ide: { enabled: true }, general: { disableAutoUpdate: true, disableUpdateNag: true }, privacy: { usageStatisticsEnabled: false } }),
    );
    // Inside a container (/.dockerenv) gemini-cli looks for the IDE at host.docker.internal unless
    // it believes it runs over SSH; the editor runs beside it here, on this loopback.
    const env = { ...process.env, SSH_CONNECTION: "127.0.0.1 1 127.0.0.1 22", HOME: home, TMPDIR: tmp, GEMINI_API_KEY: "fake-key", GOOGLE_GEMINI_BASE_URL: fake.baseUrl, TERM: "xterm-256color", NO_COLOR: "1" };
    const command = `${GEMINI} --skip-trust -i 'Greet the world in src/greeting.ts'`;
    gemini = spawn("script", ["-q", "-f", "-c", command, "/dev/null"], { cwd: editor.root, env, stdio: ["pipe", "pipe", "pipe"] });
    gemini.stdout?.on("data", (chunk: Buffer) => (screen += chunk.toString()));
    gemini.stderr?.on("data", (chunk: Buffer) => (screen += chunk.toString()));

    // gemini-cli calls openDiff: lockstep stages the change in the editor.
    const staged = await editor.waitForNotification("textDocument/publishDiagnostics", (p) => ((p as { diagnostics: unknown[] }).diagnostics ?? []).length > 0, 60_000).catch((error: unknown) => {
      throw new Error(`${String(error)}\n--- model requests: ${JSON.stringify(fake?.requests.map((r) => r.path))}\n--- lockstep's stderr ---\n${editor.stderr}\n--- gemini-cli's screen ---\n${screen.slice(-1500)}`);
    });
    expect(staged).toBeDefined();
    const actions = (await editor.codeActions("src/greeting.ts")) as CodeAction[];
    const apply = actions.find((a) => a.title.startsWith("lockstep: apply openDiff"));
    expect(apply, JSON.stringify(actions.map((a) => a.title))).toBeDefined();
    await editor.runCodeAction(apply!);
    expect(editor.buffer("src/greeting.ts")?.text).toBe(PROPOSED);
    // gemini-cli hears ide/diffAccepted and writes the accepted text to disk, then tells its model.
    await waitUntil(() => readFileSync(target, "utf8") === PROPOSED, "gemini-cli to write the accepted text", 30_000).catch((error: unknown) => {
      throw new Error(`${String(error)}\n--- gemini-cli's screen ---\n${screen.slice(-4000)}`);
    });
    await waitUntil(() => streamed >= 2, "gemini-cli to send the write's result to its model", 30_000);
  });
});
