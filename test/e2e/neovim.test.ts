// lockstep in a real Neovim 0.7.2 (headless) with the plugin in clients/neovim:
// the driver fixtures/nvim/driver.lua plays each scenario of fixtures/scenarios.ts
// and reports what the buffers, the disk, the chat and the prompts showed.
import { describe, expect, it } from "vitest";
import { once, requireBuild, requireEditor, headlessNvim, nvimLogs } from "./fixtures/harness.js";
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
import { UNSAVED, blocksInput, readInput } from "./fixtures/scenarios.js";
import { commandRun, expectCommandSawTheEdit } from "./fixtures/command-scenario.js";

type Envelope = { ok: boolean; data?: Record<string, unknown> };

interface NvimBufferView extends BufferView {
  loaded?: boolean;
  listed?: boolean;
  attached?: boolean;
}

interface NvimResult extends ScenarioResult<NvimBufferView> {
  nvim: string;
  messages: { message: string; level: number | null }[];
  lsp_log?: string;
}

/** Checked once, failing every test (not skipping it) when Neovim or the build is missing. */
const ready = once(() => {
  requireEditor("nvim", ["--version"], "Install Neovim 0.7.2 or newer (Debian: apt-get install neovim)");
  requireBuild();
});

async function runNvim(
  input: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<NvimResult> {
  ready();
  return playScenario<NvimResult>(
    {
      ...headlessNvim("driver.lua"),
      logs: nvimLogs,
    },
    input,
    env,
  );
}

/** The plugin's report of the edit blocks' status. */
const blockReport = (r: NvimResult): string | undefined =>
  r.messages.map((m) => m.message).find((m) => m.includes("edit block"));

describe("Neovim 0.7.2 + clients/neovim", { timeout: TEST_TIMEOUT_MS }, () => {
  it("read_file returns the buffer's unsaved text and the buffer's version", async () => {
    const r = await runNvim(readInput);
    expect(r.buffer?.text).toBe(UNSAVED);
    expect(r.buffer?.modified).toBe(true);
    expectReadOfBuffer(r);
  });

  itPlaysTheCommonScenarios(runNvim, blockReport);

  it("the edit-blocks code action applies both blocks to buffers: the open one and a hidden one it loads", async () => {
    const r = await runNvim(blocksInput);
    const menu = r.prompts.find((p) => p.kind === "codeaction");
    expect(menu?.items).toEqual(
      expect.arrayContaining(["Apply 2 edit blocks", "Check 2 edit blocks (dry run)"]),
    );
    expect(menu?.picked).toBe("Apply 2 edit blocks");

    const calc = r.buffers?.["calc.py"];
    expect(calc?.text).toBe(blocksInput.expected["calc.py"]);
    expect(calc?.modified).toBe(true);
    const shapes = r.buffers?.["shapes.py"];
    expect(shapes).toMatchObject({
      exists: true,
      loaded: true,
      modified: true,
      text: blocksInput.expected["shapes.py"],
    });
    expectBothBlocksApplied(r, blockReport(r));
  });

  it(":LockstepAsk streams the answer into the chat; the approved safe_patch lands in the buffer", async () => {
    const r = await expectAgentPatchesBuffer(runNvim);
    expect(r.chat_windows).toBe(1);
  });

  it("run_command: the edited buffer is saved before the check runs (lockstep/saveFiles); its output shows in the chat", async () => {
    const { fake, input, env } = await commandRun();
    try {
      const r = (await runNvim(input, env)) as NvimResult & {
        save_answer: { saved: string[]; failed: { uri: string; message: string }[] };
        other: NvimBufferView;
        disk_after_save: string;
      };
      expectCommandSawTheEdit(r, fake);
      // Asked again with a buffer whose write fails: the one written, the other named with why.
      expect(r.save_answer.saved).toEqual([expect.stringMatching(/calc\.py$/)]);
      expect(r.save_answer.failed).toEqual([
        {
          uri: expect.stringMatching(/shapes\.py$/),
          message: expect.stringContaining("Saving is refused here"),
        },
      ]);
      expect(r.disk_after_save).toMatch(/# typed too\n$/);
      expect(r.other.modified).toBe(true);
    } finally {
      await fake.close();
    }
  });

  it(":LockstepTrust records the folder in the user's state directory, and lockstep.session says it is trusted", async () => {
    const r = (await runNvim({ scenario: "trust", settings: {}, file: "calc.py" })) as NvimResult & {
      before?: Envelope;
      session?: Envelope;
      trust_file?: string;
    };
    expect(r.before?.data?.["trust"]).toMatchObject({ trusted: false });
    expect(r.session?.data?.["trust"]).toMatchObject({ trusted: true });
    const folder = String((r.session?.data?.["trust"] as { folder: string }).folder);
    expect(JSON.parse(r.trust_file ?? "{}")).toMatchObject({ version: 1, folders: [{ path: folder }] });
  });
});
