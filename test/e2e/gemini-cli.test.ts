// gemini-cli itself in IDE mode against lockstep's companion endpoint: its model
// (the fake Gemini endpoint on loopback) asks for write_file, gemini-cli opens
// the diff in the editor through lockstep, the user applies it there, and
// gemini-cli writes exactly the text that was taken. Once beside the test editor
// (code actions, Helix-like), once in a real Neovim's :terminal (the prompt).
//
// gemini-cli is a development dependency (pinned: its IDE client is what is
// tested); LOCKSTEP_GEMINI_CLI=/path/to/gemini runs the test against another
// install, e.g. a newer release. It runs offline: its model is the fake endpoint.
// gemini-cli asks for confirmation, and so opens diffs, only in its interactive
// interface: it needs a terminal (`script` from util-linux, or Neovim's :terminal).
import { spawn, type ChildProcess } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { CodeAction } from "vscode-languageserver-protocol";
import { companionFacts } from "../support/companion-client.js";
import { eventually } from "../support/poll.js";
import { startFakeGemini, textTurn, type FakeGemini } from "../support/fake-gemini.js";
import { cleanup, launch } from "../support/lsp-client.js";
import {
  REPO,
  makeWorkspace,
  requireBuild,
  requireEditor,
  runEditor,
  headlessNvim,
} from "./fixtures/harness.js";

const INSTALLED = path.join(REPO, "node_modules", ".bin", "gemini");
const GEMINI = process.env["LOCKSTEP_GEMINI_CLI"] ?? (existsSync(INSTALLED) ? INSTALLED : undefined);
const BEFORE = "export const greeting = 'hello';\n";
const PROPOSED = "export const greeting = 'hello, world';\n";
const PROMPT = "Greet the world in src/greeting.ts";

describe.skipIf(!GEMINI)("gemini-cli in IDE mode with lockstep as its companion", () => {
  const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-gemini-cli-")));
  let gemini: ChildProcess | undefined;
  let fake: FakeGemini | undefined;
  let streamed = 0;
  afterEach(async () => {
    gemini?.kill("SIGKILL");
    await fake?.close();
    await cleanup();
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  /**
   * The fake model: write_file of `target`, then "Done." once it hears the result. gemini-cli connects to the
   * IDE in the background while it already sends the prompt, and its write_file opens a diff only once it is
   * connected and has listed the IDE's tools: the model "thinks" until `connected` (the MCP session is open;
   * seconds after the prompt on a loaded machine), then two seconds more for the tool list.
   */
  async function model(target: string, connected: Promise<unknown>): Promise<FakeGemini> {
    streamed = 0;
    fake = await startFakeGemini((request) => {
      // Routing, next-speaker and other side calls are plain generateContent: an empty JSON answer.
      if (!request.stream) return { json: {} };
      streamed++;
      if (streamed > 1) return textTurn("Done.");
      return {
        chunks: [
          {
            parts: [{ functionCall: { name: "write_file", args: { file_path: target, content: PROPOSED } } }],
            after: connected,
            delayMs: 2000,
          },
        ],
      };
    });
    return fake;
  }

  /** gemini-cli's environment: its own home with IDE mode on, the fake model, the editor's TMPDIR. */
  function geminiEnv(baseUrl: string): Record<string, string> {
    const home = path.join(tmp, "home");
    mkdirSync(path.join(home, ".gemini"), { recursive: true });
    writeFileSync(
      path.join(home, ".gemini", "settings.json"),
      JSON.stringify({
        security: { auth: { selectedType: "gemini-api-key" } },
        ide: { enabled: true },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
        privacy: { usageStatisticsEnabled: false },
      }),
    );
    // Inside a container (/.dockerenv) gemini-cli looks for the IDE at host.docker.internal unless
    // it believes it runs over SSH; the editor runs beside it here, on this loopback.
    return {
      SSH_CONNECTION: "127.0.0.1 1 127.0.0.1 22",
      HOME: home,
      TMPDIR: tmp,
      GEMINI_API_KEY: "fake-key",
      GOOGLE_GEMINI_BASE_URL: baseUrl,
      TERM: "xterm-256color",
      NO_COLOR: "1",
    };
  }

  it(
    "beside the test editor: its write_file opens there, and it writes exactly what the user applied",
    { timeout: 90_000 },
    async () => {
      const editor = await launch({ "src/greeting.ts": BEFORE }, { style: "helix", env: { TMPDIR: tmp } });
      await companionFacts(editor);
      await editor.open("src/greeting.ts");
      const target = editor.path("src/greeting.ts");
      const connected = eventually(
        async () => Number((await companionFacts(editor))["agents"]) > 0,
        "gemini-cli to connect to lockstep's companion endpoint",
        60_000,
      );
      connected.catch(() => undefined); // awaited below, through the model's answer; a failure is told there
      const env = { ...process.env, ...geminiEnv((await model(target, connected)).baseUrl) };
      let screen = "";
      gemini = spawn("script", ["-q", "-f", "-c", `${GEMINI} --skip-trust -i '${PROMPT}'`, "/dev/null"], {
        cwd: editor.root,
        env,
        stdio: ["pipe", "pipe", "pipe"],
      });
      gemini.stdout?.on("data", (chunk: Buffer) => (screen += chunk.toString()));
      gemini.stderr?.on("data", (chunk: Buffer) => (screen += chunk.toString()));
      const explain = (error: unknown): never => {
        throw new Error(
          `${String(error)}\n--- model requests: ${JSON.stringify(fake?.requests.map((r) => r.path))}\n--- gemini-cli's screen ---\n${screen.slice(-2000)}`,
        );
      };

      // gemini-cli calls openDiff: lockstep stages the change in the editor (diagnostics, code actions).
      await editor
        .waitForNotification(
          "textDocument/publishDiagnostics",
          (p) => ((p as { diagnostics: unknown[] }).diagnostics ?? []).length > 0,
          60_000,
        )
        .catch(explain);
      const actions = (await editor.codeActions("src/greeting.ts")) as CodeAction[];
      const apply = actions.find((a) => a.title === "lockstep: Accept this change");
      expect(apply, JSON.stringify(actions.map((a) => a.title))).toBeDefined();
      await editor.runCodeAction(apply!);
      expect(editor.buffer("src/greeting.ts")?.text).toBe(PROPOSED);
      // gemini-cli hears ide/diffAccepted, writes the accepted text to disk, and tells its model.
      await eventually(
        () => readFileSync(target, "utf8") === PROPOSED,
        "gemini-cli to write the accepted text",
        30_000,
      ).catch(explain);
      await eventually(() => streamed >= 2, "gemini-cli to send the write's result to its model", 30_000);
    },
  );

  it(
    "in Neovim's :terminal: the change waits for review in Neovim, :LockstepAccept! lands it in the buffer, and gemini-cli writes the same",
    { timeout: 120_000 },
    async () => {
      requireEditor("nvim", ["--version"], "Install Neovim 0.7.2 or newer (Debian: apt-get install neovim)");
      requireBuild();
      const root = await makeWorkspace({ "src/greeting.ts": BEFORE });
      const target = path.join(root, "src", "greeting.ts");
      // The driver writes this file once lockstep counts gemini-cli as connected.
      const connectedFile = path.join(tmp, "gemini-connected");
      rmSync(connectedFile, { force: true });
      const connected = eventually(
        () => existsSync(connectedFile),
        "the driver to see gemini-cli connected to lockstep",
        90_000,
      );
      connected.catch(() => undefined); // awaited through the model's answer; the driver's own wait tells a failure
      const env = geminiEnv((await model(target, connected)).baseUrl);
      const run = await runEditor<{
        error?: string;
        prompts: { prompt: string; items: string[] }[];
        diagnostic?: string;
        buffer?: string;
        disk?: string;
        modified?: boolean;
        discovery_file?: string;
      }>({
        ...headlessNvim("gemini-terminal.lua"),
        input: {
          repo: REPO,
          node: process.execPath,
          file: target,
          proposed: PROPOSED,
          gemini: GEMINI,
          gemini_env: env,
          prompt: PROMPT,
          connected_file: connectedFile,
        },
        cwd: root,
        env: { TMPDIR: tmp },
        timeoutMs: 100_000,
        logs: (home) => [path.join(home, "cache", "nvim", "lsp.log")],
      });
      expect(run.result?.error).toBeUndefined();
      expect(run.result?.prompts).toEqual([]);
      expect(run.result?.diagnostic).toMatch(/^proposed change \+1 −1: /);
      expect(run.result).toMatchObject({ buffer: PROPOSED, disk: PROPOSED });
      expect(streamed).toBeGreaterThanOrEqual(2);
    },
  );
});
