// The editors' example mistake, in real editors: the editor's settings say `model =
// "gemini-2.5-pro"` while the project's .lockstep.json says `provider: "openai"`. Neovim 0.7.2's
// :checkhealth lockstep and :LockstepSession, and Emacs 28's M-x lockstep-session, must warn that
// the model's settings come from different places, never report the mix as OK. Played by the
// session drivers of wrap-status.test.ts (fixtures/nvim/session-driver.lua, fixtures/emacs/session-driver.el).
import path from "node:path";
import { describe, expect, it } from "vitest";
import { addTrust } from "../../server/src/config/trust.js";
import { tempDir } from "../support/workspace-fixture.js";
import { emacsCommand, requireEmacs } from "./fixtures/emacs.js";
import {
  REPO,
  headlessNvim,
  makeWorkspace,
  nvimLogs,
  once,
  requireBuild,
  requireEditor,
  resultOf,
  runEditor,
  type RunOptions,
} from "./fixtures/harness.js";
import { TEST_TIMEOUT_MS } from "./fixtures/scenario-checks.js";

const FILE = "app.js";
const LOCKSTEP = [process.execPath, path.join(REPO, "bin", "lockstep.js"), "--stdio"];
const PROJECT = JSON.stringify({ provider: "openai", baseUrl: "http://127.0.0.1:18080/v1" });

interface Result {
  error?: string;
  session: string[];
  health?: string[];
}

const nvimReady = once(() => {
  requireEditor("nvim", ["--version"], "Install Neovim 0.7.2 or newer (Debian: apt-get install neovim)");
  requireBuild();
});

/** A trusted workspace whose .lockstep.json names the provider, the editor's settings the model. */
async function play(launch: Pick<RunOptions, "command" | "args" | "logs">, input: Record<string, unknown>) {
  const workspace = await makeWorkspace({ [FILE]: "let count = 1;\n", ".lockstep.json": PROJECT });
  const state = tempDir("lockstep-e2e-model-warning-state-");
  addTrust(workspace, { ...process.env, XDG_STATE_HOME: state });
  const run = await runEditor<Result>({
    ...launch,
    input: { workspace, file: FILE, settings: { model: "gemini-2.5-pro" }, ...input },
    cwd: workspace,
    env: { XDG_STATE_HOME: state },
    timeoutMs: 55_000,
  });
  const r = resultOf(run);
  expect(r.error, "the driver failed").toBeUndefined();
  expect(run.timedOut).toBe(false);
  return r;
}

const WARNING =
  /WARNING: the model's settings come from different places .*provider openai \(\.lockstep\.json\).*model gemini-2\.5-pro \(the editor's settings\)/;

describe("the model's settings from different places", { timeout: TEST_TIMEOUT_MS }, () => {
  it("Neovim 0.7.2: :checkhealth lockstep warns and reports no OK model; :LockstepSession says it", async () => {
    nvimReady();
    const r = await play({ ...headlessNvim("session-driver.lua"), logs: nvimLogs }, { cmd: LOCKSTEP });
    const health = (r.health ?? []).join("\n");
    expect(health).toMatch(/WARNING:? model: openai gemini-2\.5-pro at http:\/\/127\.0\.0\.1:18080\/v1/);
    expect(health).not.toMatch(/OK:? model:/);
    expect(health).toContain("different places");
    // Which search runs, ripgrep or JavaScript (and why).
    expect(health).toMatch(/search: (ripgrep \d+\.\d+|JavaScript \()/);
    expect(r.session.join("\n")).toMatch(WARNING);
  });

  it("Emacs 28 + Eglot 1.9: M-x lockstep-session says it", async () => {
    requireEmacs();
    const r = await play(emacsCommand("session-driver.el"), { repo: REPO, node: process.execPath });
    expect(r.session.find((l) => l.includes("model        "))).toContain("openai gemini-2.5-pro");
    expect(r.session.join("\n")).toMatch(WARNING);
  });
});
