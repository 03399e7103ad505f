// Stored sessions in real editors: a spawned server (the test client) stores a run that
// changes calc.py and is killed; then Neovim 0.7.2 (:LockstepSessions, the picker) and
// Emacs 28 + Eglot 1.9 (M-x lockstep-sessions, RET) resume it, ask once more (the model's
// request holds the stored conversation) and revert the stored run in the buffer.
import path from "node:path";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { contentsOf, patchCall, sha256Hex, startAgent, turn } from "../support/agent-scripts.js";
import { startFakeGemini } from "../support/fake-gemini.js";
import { stopAllServers } from "../support/lsp-client.js";
import { emacsCommand, requireEmacs } from "./fixtures/emacs.js";
import {
  REPO,
  once,
  requireBuild,
  requireEditor,
  resultOf,
  runEditor,
  type RunOptions,
  headlessNvim,
  nvimLogs,
} from "./fixtures/harness.js";
import { TEST_TIMEOUT_MS, type Envelope } from "./fixtures/scenario-checks.js";
import { FAKE_KEY } from "./fixtures/scenarios.js";

const BEFORE = "def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n";
const AFTER = BEFORE.replace("    return 2 * (w + h)", "    return 2 * w + 2 * h");
const DIFF = `--- a/calc.py\n+++ b/calc.py\n@@ -4,3 +4,3 @@\n \n def perimeter(w, h):\n-    return 2 * (w + h)\n+    return 2 * w + 2 * h\n`;

/** A stored session whose one run changed calc.py on disk; the server that wrote it is killed. */
async function storedRun(): Promise<{ root: string; state: string; jobId: string }> {
  const state = mkdtempSync(path.join(tmpdir(), "lockstep-e2e-sessions-"));
  const rig = await startAgent({
    files: { "calc.py": BEFORE },
    env: { XDG_STATE_HOME: state },
    initializationOptions: { approval: "auto", closedFileEdits: "disk" },
    script: [
      turn({ calls: [patchCall("calc.py", DIFF, sha256Hex(BEFORE))] }),
      turn({ text: ["Expanded the perimeter."] }),
    ],
  });
  const job = await rig.finished(await rig.ask("expand the perimeter"));
  expect(job.files_changed).toEqual(["calc.py"]);
  expect(await rig.disk("calc.py")).toBe(AFTER);
  await rig.client.kill();
  await stopAllServers();
  return { root: rig.root, state, jobId: job.job_id };
}

interface SessionsResult {
  error?: string;
  before: string;
  after_revert: string;
  messages: ({ message: string } | string)[];
}

const nvimReady = once(() => {
  requireEditor("nvim", ["--version"], "Install Neovim 0.7.2 or newer (Debian: apt-get install neovim)");
  requireBuild();
});

/**
 * Resumes the stored run in the editor `launch` starts, its driver given `input` besides the
 * common part; checks what both editors must show (the changed file on opening, the file as
 * before once reverted, the model's request holding the stored answer and the new prompt).
 */
async function resumeIn<R extends SessionsResult>(
  launch: Pick<RunOptions, "command" | "args" | "logs">,
  input: Record<string, unknown>,
): Promise<{ r: R; jobId: string; request: string }> {
  const { root, state, jobId } = await storedRun();
  const fake = await startFakeGemini([turn({ text: ["Continuing."] })]);
  try {
    const run = await runEditor<R>({
      ...launch,
      input: {
        workspace: root,
        repo: REPO,
        node: process.execPath,
        file: "calc.py",
        prompt: "and the area?",
        expected: BEFORE,
        ...input,
      },
      cwd: root,
      env: { GEMINI_API_KEY: FAKE_KEY, GOOGLE_GEMINI_BASE_URL: fake.baseUrl, XDG_STATE_HOME: state },
      timeoutMs: 50_000, // under TEST_TIMEOUT_MS; room for a loaded machine
    });
    const r = resultOf(run);
    expect(r.error, "the driver failed").toBeUndefined();
    expect(r.before).toBe(AFTER);
    expect(r.after_revert).toBe(BEFORE);
    const request = JSON.stringify(contentsOf(fake.requests[0]));
    expect(request).toContain("Expanded the perimeter.");
    expect(request).toContain("and the area?");
    return { r, jobId, request };
  } finally {
    await fake.close();
  }
}

describe("stored sessions in real editors", { timeout: TEST_TIMEOUT_MS }, () => {
  it("Neovim: :LockstepSessions resumes the stored session, :LockstepAsk continues it, :LockstepRevert undoes its run", async () => {
    nvimReady();
    const { r, jobId, request } = await resumeIn<
      SessionsResult & {
        picker: { prompt: string; items: string[] };
        commands: { command: string; argument: unknown; reply?: Envelope }[];
      }
    >(
      {
        ...headlessNvim("sessions-driver.lua"),
        logs: nvimLogs,
      },
      {},
    );
    expect(r.picker.prompt).toBe("lockstep: resume a session");
    expect(r.picker.items).toEqual([
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d {2}2 turns {2}1 file {2}expand the perimeter$/),
    ]);
    const revert = r.commands.find((c) => c.command === "lockstep.revert");
    expect(revert?.reply).toMatchObject({
      ok: true,
      data: { job_id: jobId, files: [{ file_path: "calc.py", status: "reverted" }] },
    });
    expect(request).toContain("expand the perimeter");
  });

  it("Emacs: M-x lockstep-sessions and RET resume the stored session, lockstep-ask continues it, lockstep-revert undoes its run", async () => {
    requireEmacs();
    const { r, jobId } = await resumeIn<
      SessionsResult & {
        list: string[];
        resumed: { session_id: string; turns: number; runs: unknown[] };
        reverted: { file_path: string; status: string }[];
      }
    >(emacsCommand("sessions-driver.el"), {
      mode: "python-mode",
      settings: { approval: "auto" },
      select: { "y-or-n-p": "y" },
    });
    expect(r.list).toEqual([
      expect.stringMatching(/^ \d{4}-\d\d-\d\d \d\d:\d\d +2 +1 +\d+ expand the perimeter$/),
    ]);
    expect(r.resumed).toMatchObject({ turns: 2, runs: [{ job_id: jobId, files_changed: ["calc.py"] }] });
    expect(r.reverted).toMatchObject([{ file_path: "calc.py", status: "reverted" }]);
  });
});
