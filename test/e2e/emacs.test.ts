// lockstep in a real Emacs 28 + Eglot 1.9 (batch mode) with clients/emacs/lockstep.el:
// the driver fixtures/emacs/driver.el plays each scenario of fixtures/scenarios.ts
// and reports what the buffers, the disk, *lockstep* and the prompts showed.
import { describe, expect, it } from "vitest";
import { emacsCommand, requireEmacs } from "./fixtures/emacs.js";
import {
  TEST_TIMEOUT_MS,
  expectAgentPatchesBuffer,
  expectBothBlocksApplied,
  expectReadOfBuffer,
  itPlaysTheCommonScenarios,
  playScenario,
  type BufferView,
  type ScenarioResult,
} from "./fixtures/scenario-checks.js";
import { FAKE_KEY, UNSAVED, blocksInput, readInput } from "./fixtures/scenarios.js";
import { startFakeGemini } from "../support/fake-gemini.js";
import { sha256Hex, turn, writeCall } from "../support/agent-scripts.js";
import { commandRun, expectCommandSawTheEdit } from "./fixtures/command-scenario.js";

/** Eglot runs one server per major mode: lockstep is python-mode's server here. */
const MODES = ["python-mode"];

interface EmacsBufferView extends BufferView {
  managed: boolean;
  pending_changes: boolean;
}

interface EmacsResult extends ScenarioResult<EmacsBufferView> {
  emacs: string;
  eglot: string | null;
  messages: string[];
  steps: string[];
}

async function runEmacs(
  input: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<EmacsResult> {
  requireEmacs();
  return playScenario<EmacsResult>(emacsCommand("driver.el"), { ...input, modes: MODES }, env);
}

/** lockstep.el's report of the edit blocks' status, in the echo area. */
const blockReport = (r: EmacsResult): string | undefined =>
  r.messages.find((m) => m.startsWith("[lockstep]") && m.includes("edit block"));

describe("Emacs 28 + Eglot 1.9 + clients/emacs/lockstep.el", { timeout: TEST_TIMEOUT_MS }, () => {
  it("read_file returns the buffer's unsaved text and Eglot's version of it", async () => {
    const r = await runEmacs(readInput);
    expect(r.buffer).toMatchObject({ text: UNSAVED, modified: true, managed: true });
    expectReadOfBuffer(r);
  });

  itPlaysTheCommonScenarios(runEmacs, blockReport);

  it("lockstep-apply-edit-blocks applies both blocks to buffers: the visited one and one Eglot visits", async () => {
    const r = await runEmacs({ ...blocksInput, select: { "y-or-n-p": "y" } });
    expect(r.buffers?.["calc.py"]).toMatchObject({
      exists: true,
      modified: true,
      text: blocksInput.expected["calc.py"],
    });
    expect(r.buffers?.["shapes.py"]).toMatchObject({
      exists: true,
      modified: true,
      text: blocksInput.expected["shapes.py"],
    });
    // Eglot 1.9 asks before it edits a file that is not visited (the driver says yes).
    expect(r.prompts.map((p) => p.kind)).toEqual(["y-or-n-p"]);
    expect(r.prompts[0]?.prompt).toContain("shapes.py");
    expectBothBlocksApplied(r, blockReport(r));
  });

  it("lockstep-ask streams the answer into *lockstep*; the approved safe_patch lands in the buffer", async () => {
    const r = await expectAgentPatchesBuffer(runEmacs);
    // lockstep's question, answered "Apply", and no second question from Eglot.
    expect(r.prompts.find((p) => p.kind === "lockstep.approval")?.picked).toBe("Apply");
    expect(r.prompts.filter((p) => p.kind !== "lockstep.approval")).toEqual([]);
  });

  it("lockstep-revert of an accepted change left unsaved in a buffer lockstep does not manage: reverted from the buffer", async () => {
    const before = "old notes\n";
    const fake = await startFakeGemini([
      turn({ calls: [writeCall("notes.txt", "new notes\n", sha256Hex(before))] }),
      turn({ text: ["Wrote the notes."] }),
    ]);
    try {
      const r = (await runEmacs(
        {
          scenario: "revert-unsaved",
          settings: { approval: "ask" },
          file: "calc.py",
          prompt: "rewrite the notes",
          notes_before: before,
          select: { "lockstep.approval": "Apply" },
        },
        { GEMINI_API_KEY: FAKE_KEY, GOOGLE_GEMINI_BASE_URL: fake.baseUrl },
      )) as EmacsResult & {
        after_run: EmacsBufferView;
        reverted: { status: string; message: string }[];
        after_revert: EmacsBufferView;
        disk: string;
      };
      expect(r.after_run).toMatchObject({ text: "new notes\n", modified: true, managed: false });
      expect(r.disk).toBe(before);
      expect(r.reverted.map((f) => f.status)).toEqual(["reverted"]);
      expect(r.after_revert.text).toBe(before);
    } finally {
      await fake.close();
    }
  });

  it("run_command: the edited buffer is saved before the check runs (lockstep/saveFiles); its output shows in *lockstep*", async () => {
    const { fake, input, env } = await commandRun();
    try {
      // Approval auto: Eglot's own question before the edit is the user's only one (answered yes).
      const r = (await runEmacs({ ...input, select: { "y-or-n-p": "y" } }, env)) as EmacsResult & {
        save_answer: { saved: string[]; failed: { uri: string; message: string }[] };
        other: EmacsBufferView;
        disk_after_save: string;
      };
      expectCommandSawTheEdit(r, fake);
      // Asked again with a buffer whose save fails: the one saved, the other named with why.
      expect(r.save_answer.saved).toEqual([expect.stringMatching(/calc\.py$/)]);
      expect(r.save_answer.failed).toEqual([
        { uri: expect.stringMatching(/shapes\.py$/), message: "Saving is refused here" },
      ]);
      expect(r.disk_after_save).toMatch(/# typed too\n$/);
      expect(r.other.modified).toBe(true);
    } finally {
      await fake.close();
    }
  });

  it("M-x lockstep-trust records the folder in the user's state directory, and lockstep.session says it is trusted", async () => {
    const r = (await runEmacs({ scenario: "trust", settings: {}, file: "calc.py" })) as EmacsResult & {
      before?: { data?: Record<string, unknown> };
      session?: { data?: Record<string, unknown> };
      trust_file?: string;
    };
    expect(r.before?.data?.["trust"]).toMatchObject({ trusted: false });
    expect(r.session?.data?.["trust"]).toMatchObject({ trusted: true });
    const folder = String((r.session?.data?.["trust"] as { folder: string }).folder);
    expect(JSON.parse(r.trust_file ?? "{}")).toMatchObject({ version: 1, folders: [{ path: folder }] });
    expect(r.messages.some((m) => String(m).includes("is trusted"))).toBe(true);
  });
});
