// The session views in real editors, where a user reads them: Neovim 0.7.2's :LockstepSession
// and :checkhealth lockstep (fixtures/nvim/session-driver.lua), Emacs 28's M-x lockstep-session
// (fixtures/emacs/session-driver.el). lockstep runs in wrap mode in front of
// fixtures/failing-server.mjs, a language server that refuses to initialize (as
// typescript-language-server does with a TypeScript version it rejects): both views must say
// `failed`, with the reason, and never `running`. Neovim also shows the view of a plain server.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { emacsCommand, requireEmacs } from "./fixtures/emacs.js";
import {
  FIXTURES,
  REPO,
  makeWorkspace,
  once,
  requireBuild,
  requireEditor,
  resultOf,
  runEditor,
  type RunOptions,
  headlessNvim,
  nvimLogs,
} from "./fixtures/harness.js";
import { TEST_TIMEOUT_MS } from "./fixtures/scenario-checks.js";

const FILE = "app.js";
/** The failing server's answer to initialize, as typescript-language-server refuses a TypeScript it does not support. */
const REFUSAL = "Unsupported TypeScript version 3.9.0 in this workspace";
const FAILING = [process.execPath, path.join(FIXTURES, "failing-server.mjs"), REFUSAL];
/** lockstep's own command, and in front of the failing server. */
const LOCKSTEP = [process.execPath, path.join(REPO, "bin", "lockstep.js"), "--stdio"];
const WRAPPED = [...LOCKSTEP, "--wrap", "--", ...FAILING];

interface Wrapped {
  server: string;
  state: string;
  restarts: number;
  reason?: string;
  missing?: string[];
}

interface SessionResult {
  error?: string;
  steps: string[];
  wrapped?: Wrapped;
  session: string[];
  session_window?: string;
  health?: string[];
  /** RECORDED through the editor's session view. */
  recorded?: string[];
}

/** A session answer whose wrapped server failed, as the server gives it; the views are checked on it apart from the live runs. */
const RECORDED = {
  provider: "openai",
  model: "qwen2.5-coder",
  baseUrl: "http://localhost:11434/v1",
  key_found: false,
  approval: "ask",
  version: "0.1.0",
  files_in_context: ["calc.py"],
  always_allowed: ["safe_patch"],
  history_messages: 4,
  usage: { input_tokens: 1200, output_tokens: 300 },
  project_instructions: "AGENTS.md",
  companion: { enabled: false, reason: "disabled in the settings" },
  wrapped: {
    server: "typescript-language-server",
    state: "failed",
    restarts: 0,
    reason: "it did not initialize: Unsupported TypeScript version 3.9.0 in this workspace",
    missing: ["hover", "completion", "diagnostics"],
  },
};
const RECORDED_VIEW = [
  "lockstep 0.1.0 session",
  "",
  "model        openai qwen2.5-coder at http://localhost:11434/v1 · no API key (a local endpoint needs none)",
  "approval     ask",
  "last job     none started here",
  "review       nothing waits",
  "context      calc.py",
  "always allow safe_patch",
  "history      4 messages",
  "usage        1200 tokens in, 300 out",
  "instructions AGENTS.md",
  "companion    off (disabled in the settings)",
  "wrapped      typescript-language-server: failed (it did not initialize: Unsupported TypeScript version 3.9.0 in this workspace)",
  "             missing: hover, completion, diagnostics",
  "             lockstep's own commands and agent keep working without it",
];

const nvimReady = once(() => {
  requireEditor("nvim", ["--version"], "Install Neovim 0.7.2 or newer (Debian: apt-get install neovim)");
  requireBuild();
});

/** Runs the session driver `launch` starts in a fresh workspace holding FILE; its result, checked to be whole. */
async function play<R extends SessionResult>(
  launch: Pick<RunOptions, "command" | "args" | "logs">,
  input: Record<string, unknown>,
): Promise<R> {
  const workspace = await makeWorkspace({ [FILE]: "let count = 1;\n" });
  const run = await runEditor<R>({
    ...launch,
    input: { workspace, file: FILE, settings: { approval: "review" }, recorded: RECORDED, ...input },
    cwd: workspace,
    timeoutMs: 55_000, // under TEST_TIMEOUT_MS; room for a loaded machine
  });
  const r = resultOf(run);
  expect(r.error, "the driver failed").toBeUndefined();
  expect(run.timedOut).toBe(false);
  return r;
}

async function neovim(cmd: string[], wrapped: boolean): Promise<SessionResult> {
  nvimReady();
  return play(
    {
      ...headlessNvim("session-driver.lua"),
      logs: nvimLogs,
    },
    { cmd, wrapped },
  );
}

/** The view's line for `label` (the label column is 13 wide), and the lines under it. */
const row = (lines: string[], label: string): string | undefined =>
  lines.find((l) => l.startsWith(label.padEnd(13)))?.slice(13);
const under = (lines: string[], label: string): string[] => {
  const at = lines.findIndex((l) => l.startsWith(label.padEnd(13)));
  const out: string[] = [];
  for (let i = at + 1; at >= 0 && i < lines.length && lines[i]!.startsWith(" ".repeat(13)); i++)
    out.push(lines[i]!.slice(13));
  return out;
};

/** The gemini-cli companion: its port, and where gemini-cli finds it (the discovery file, the line for a terminal). */
function expectCompanion(lines: string[]): void {
  const port = /^port (\d+), 0 agents, no pending diff$/.exec(row(lines, "companion") ?? "")?.[1];
  expect(port, row(lines, "companion")).toBeDefined();
  expect(under(lines, "companion")).toEqual([
    expect.stringMatching(new RegExp(`^discovery file .*-${port}\\.json$`)),
    `in a terminal: GEMINI_CLI_IDE_SERVER_PORT=${port}`,
  ]);
}

/** What every view of the failed wrapped server must say. */
function expectFailed(lines: string[], wrapped: Wrapped | undefined): void {
  expect(wrapped, "lockstep.session's wrapped").toMatchObject({ state: "failed" });
  expect(wrapped?.reason).toContain(REFUSAL);
  const shown = row(lines, "wrapped");
  expect(shown?.startsWith(`${wrapped?.server}: failed (`), shown).toBe(true);
  expect(shown).toContain(REFUSAL);
  const missing = wrapped?.missing ?? [];
  expect(missing).toEqual(expect.arrayContaining(["hover", "completion", "diagnostics"]));
  expect(under(lines, "wrapped")).toContain(`missing: ${missing.join(", ")}`);
  expect(under(lines, "wrapped")).toContain("lockstep's own commands and agent keep working without it");
}

/** The rows both editors show for a plain server under approval "review" with no key. */
function expectPlain(lines: string[]): void {
  expect(lines[0]).toMatch(/^lockstep \S+ session$/);
  expect(row(lines, "model")).toBe(
    'gemini gemini-2.5-flash · no API key found (a local model needs none: "provider": "ollama" in .lockstep.json)',
  );
  expect(row(lines, "approval")).toBe("review");
  // run_command's approval and the sandbox commands get here, or why there is none.
  expect(row(lines, "commands")).toBe("asked before each one");
  expect(row(lines, "sandbox")).toMatch(
    /^bubblewrap: only the project writable \(\.git read-only\), no network$|^none: .*; commands run unsandboxed and are always asked$/,
  );
  expect(row(lines, "review")).toBe("nothing waits");
  expect(row(lines, "usage")).toBe("0 tokens in, 0 out");
  expect(row(lines, "wrapped")).toBe("nothing (lockstep runs alone)");
  expectCompanion(lines);
}

describe("Neovim 0.7.2: :LockstepSession and :checkhealth lockstep", { timeout: TEST_TIMEOUT_MS }, () => {
  it("a plain server: one fact a line, nothing wrapped; a recorded failed wrapped server reads failed, why and what is missing", async () => {
    const r = await neovim(LOCKSTEP, false);
    expectPlain(r.session);
    expect(row(r.session, "last job")).toBe("none started here");
    expect(row(r.session, "context")).toBe("none");
    expect(row(r.session, "always allow")).toBe("none");
    expect(row(r.session, "history")).toBe("0 messages");
    // Not the raw table it used to print.
    expect(r.session.join("\n")).not.toContain("{");
    expect(r.session_window).toBe("lockstep://session");
    expect(r.health?.join("\n")).not.toContain("wrapped server");
    expect(r.health?.join("\n")).toContain("commands: asked before each one");
    expect(r.health?.join("\n")).toMatch(/sandbox: (bubblewrap: only the project writable|none: )/);
    expect(r.recorded).toEqual(RECORDED_VIEW);
  });

  it("wrapped in front of a server that fails to initialize: failed, with the reason, in the view and the health check", async () => {
    const r = await neovim(WRAPPED, true);
    expectFailed(r.session, r.wrapped);
    const health = r.health ?? [];
    const line = health.find((l) => l.includes("wrapped server"));
    expect(line).toContain(`ERROR: wrapped server ${r.wrapped?.server}: failed (`);
    expect(line).toContain(REFUSAL);
    expect(health[health.indexOf(line!) + 2]).toBe(`      - missing: ${r.wrapped?.missing?.join(", ")}`);
    // The version check stops at --wrap: it ran lockstep alone, not the wrapped server.
    expect(health.join("\n")).toMatch(/OK:? `.*lockstep\.js --version` answers: /);
  });
});

interface EmacsSession extends SessionResult {
  session_text: string;
  wrapped_face?: string;
}

async function emacs(wrap: string[] | undefined): Promise<EmacsSession> {
  requireEmacs();
  return play(emacsCommand("session-driver.el"), {
    repo: REPO,
    node: process.execPath,
    ...(wrap ? { wrap } : {}),
  });
}

describe("Emacs 28 + Eglot 1.9: M-x lockstep-session", { timeout: TEST_TIMEOUT_MS }, () => {
  it("a plain server: one fact a line, nothing wrapped; a recorded failed wrapped server reads failed, why and what is missing", async () => {
    const r = await emacs(undefined);
    expectPlain(r.session);
    expect(r.session_text).toBe(`${r.session.join("\n")}\n`);
    expect(r.session_text).not.toContain("{");
    expect(r.recorded).toEqual(RECORDED_VIEW);
  });

  it("lockstep-wrap in front of a server that fails to initialize: failed, with the reason, in the error face", async () => {
    const r = await emacs(FAILING);
    expectFailed(r.session, r.wrapped);
    expect(r.wrapped_face).toBe("error");
  });
});
