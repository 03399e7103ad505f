// lockstep in a real Neovim 0.7.2 (headless) with the plugin in clients/neovim:
// the driver fixtures/nvim/driver.lua plays each scenario of fixtures/scenarios.ts
// and reports what the buffers, the disk, the chat and the prompts showed.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lastResponses } from "../support/agent-scripts.js";
import { startFakeGemini } from "../support/fake-gemini.js";
import { FIXTURES, REPO, makeWorkspace, once, requireBuild, requireEditor, resultOf, runEditor } from "./fixtures/harness.js";
import {
  CALC,
  FAKE_KEY,
  FILES,
  NEW_LINE,
  PROMPT,
  SHAPES,
  STREAMED,
  UNSAVED,
  agentInput,
  agentScript,
  blocksInput,
  patchInput,
  raceInput,
  readInput,
  sha256Hex,
  staleInput,
} from "./fixtures/scenarios.js";

const EDITOR_TIMEOUT_MS = 25_000;
/** Above the editor's deadline, so a hung editor is killed and its output printed first. */
const TEST_TIMEOUT_MS = 40_000;

interface BufferView {
  text: string;
  version: number | null;
  modified: boolean;
  sha256: string;
  exists?: boolean;
  loaded?: boolean;
  listed?: boolean;
  attached?: boolean;
}

interface Envelope {
  ok: boolean;
  data?: Record<string, unknown>;
  error?: { code: string; message: string; suggestions?: string[] };
  request_error?: unknown;
}

interface NvimResult {
  error?: string;
  nvim: string;
  messages: { message: string; level: number | null }[];
  prompts: { kind: string | null; prompt: string | null; items: string[]; picked: string | null }[];
  apply_edits: { documents: { uri: string; versioned: boolean; version: number | null }[]; applied: boolean | null }[];
  read?: Envelope;
  reread?: Envelope;
  patch?: Envelope;
  buffer?: BufferView;
  buffer_before?: BufferView;
  buffer_after_reread?: BufferView;
  buffers?: Record<string, BufferView>;
  notes_buffer?: BufferView;
  disk?: string | Record<string, string>;
  chat?: string[];
  chat_windows?: number;
  last_job?: string;
  lsp_log?: string;
}

/** Checked once, failing every test (not skipping it) when Neovim or the build is missing. */
const ready = once(() => {
  requireEditor("nvim", ["--version"], "Install Neovim 0.7.2 or newer (Debian: apt-get install neovim)");
  requireBuild();
});

async function runNvim(input: Record<string, unknown>, env: Record<string, string> = {}): Promise<NvimResult> {
  ready();
  const workspace = await makeWorkspace(FILES);
  const run = await runEditor<NvimResult>({
    command: "nvim",
    args: ["--headless", "-u", "NONE", "-i", "NONE", "-n", "--cmd", `set rtp+=${path.join(REPO, "clients", "neovim")}`, "-c", `luafile ${path.join(FIXTURES, "nvim", "driver.lua")}`],
    input: { ...input, workspace, repo: REPO, node: process.execPath },
    cwd: workspace,
    env,
    timeoutMs: EDITOR_TIMEOUT_MS,
    logs: (home) => [path.join(home, "cache", "nvim", "lsp.log")],
  });
  const result = resultOf(run);
  expect(result.error, "the driver failed").toBeUndefined();
  expect(run.timedOut).toBe(false);
  return result;
}

const data = (envelope: Envelope | undefined): Record<string, unknown> => {
  expect(envelope?.ok, JSON.stringify(envelope)).toBe(true);
  return envelope?.data ?? {};
};

describe("Neovim 0.7.2 + clients/neovim", { timeout: TEST_TIMEOUT_MS }, () => {
  it("read_file returns the buffer's unsaved text and the buffer's version", async () => {
    const r = await runNvim(readInput);
    const state = data(r.read);
    expect(r.buffer?.text).toBe(UNSAVED);
    expect(r.buffer?.modified).toBe(true);
    expect(state).toMatchObject({ file_path: "calc.py", content: UNSAVED, sha256: sha256Hex(UNSAVED), open: true });
    expect(state["version"]).toBe(r.buffer?.version);
    expect(r.disk).toBe(CALC);
  });

  it("safe_patch changes the buffer and not the file on disk", async () => {
    const r = await runNvim(patchInput);
    expect(data(r.read)["sha256"]).toBe(sha256Hex(UNSAVED));
    const patched = data(r.patch);
    expect(patched["applied"]).toBe(true);
    expect(String(patched["message"])).toMatch(/^Patch applied successfully\./);
    expect(r.buffer?.text).toBe(patchInput.expected);
    expect(r.buffer?.modified).toBe(true);
    expect(r.disk).toBe(CALC);
    // One applyEdit, for calc.py, that Neovim applied.
    expect(r.apply_edits).toHaveLength(1);
    expect(r.apply_edits[0]?.applied).toBe(true);
    expect(r.apply_edits[0]?.documents.map((d) => path.basename(d.uri))).toEqual(["calc.py"]);
    // Once Neovim's didChange is flushed the server sees exactly the buffer.
    expect(data(r.reread)).toMatchObject({ content: patchInput.expected, sha256: sha256Hex(patchInput.expected), version: r.buffer_after_reread?.version });
  });

  it("a patch built on an older state is refused with state_mismatch and the buffer is untouched", async () => {
    const r = await runNvim(staleInput);
    expect(data(r.read)["sha256"]).toBe(staleInput.base_sha256);
    expect(r.patch?.ok).toBe(false);
    expect(r.patch?.error?.code).toBe("state_mismatch");
    expect(r.patch?.error?.message).toMatch(/^State Mismatch:/);
    expect(r.patch?.data?.["latest_file_state"]).toMatchObject({ content: UNSAVED, sha256: sha256Hex(UNSAVED), version: r.buffer_before?.version });
    expect(r.buffer?.text).toBe(UNSAVED);
    expect(r.buffer?.version).toBe(r.buffer_before?.version);
    expect(r.apply_edits).toEqual([]);
    expect(r.disk).toBe(CALC);
  });

  it("the edit-blocks code action applies both blocks to buffers: the open one and a hidden one it loads", async () => {
    const r = await runNvim(blocksInput);
    const menu = r.prompts.find((p) => p.kind === "codeaction");
    expect(menu?.items).toEqual(expect.arrayContaining(["Apply 2 edit blocks", "Check 2 edit blocks (dry run)"]));
    expect(menu?.picked).toBe("Apply 2 edit blocks");

    const calc = r.buffers?.["calc.py"];
    expect(calc?.text).toBe(blocksInput.expected["calc.py"]);
    expect(calc?.modified).toBe(true);
    const shapes = r.buffers?.["shapes.py"];
    expect(shapes).toMatchObject({ exists: true, loaded: true, modified: true, text: blocksInput.expected["shapes.py"] });
    expect(r.disk).toEqual({ "calc.py": CALC, "shapes.py": SHAPES });
    // The plugin reports each block's status.
    const report = r.messages.map((m) => m.message).find((m) => m.includes("edit block"));
    expect(report).toMatch(/2 edit blocks: 2 applied/);
    // One applyEdit per file.
    expect(r.apply_edits.map((e) => e.applied)).toEqual([true, true]);
    expect(r.apply_edits.map((e) => e.documents.map((d) => path.basename(d.uri)))).toEqual([["calc.py"], ["shapes.py"]]);
  });

  it("edit blocks sent from another buffer right after typing in their file never land at stale positions", async () => {
    const r = await runNvim(raceInput);
    expect(r.buffer_before?.text).toBe(raceInput.typed);
    // The block lands on what the user typed, or is refused; anything else corrupts the buffer.
    expect([raceInput.applied, raceInput.typed]).toContain(r.buffer?.text);
    // The report matches what the buffer holds.
    const report = r.messages.map((m) => m.message).find((m) => m.includes("edit block"));
    if (r.buffer?.text === raceInput.typed) expect(report).toMatch(/1 failed/);
    else expect(report).toMatch(/1 applied/);
    expect(data(r.read)["content"]).toBe(r.buffer?.text);
    expect(r.disk).toBe(CALC);
  });

  it(":LockstepAsk streams the answer into the chat; the approved safe_patch lands in the buffer", async () => {
    const fake = await startFakeGemini(agentScript());
    try {
      const r = await runNvim(agentInput, { GEMINI_API_KEY: FAKE_KEY, GOOGLE_GEMINI_BASE_URL: fake.baseUrl });
      const chat = r.chat ?? [];
      expect(chat).toContain(`## you · calc.py`);
      expect(chat).toContain(PROMPT);
      // Deltas of one paragraph continue one line.
      expect(chat).toContain(STREAMED.first.join(""));
      expect(chat).toContain(STREAMED.second);
      expect(chat).toContain(STREAMED.last.join(""));
      expect(chat).toContain("[tool] safe_patch calc.py");
      expect(chat.find((l) => l.startsWith("[ok] safe_patch"))).toMatch(/Patch applied successfully\./);
      expect(chat.at(-1)).toBe("[done] done · files changed: calc.py");
      expect(r.chat_windows).toBe(1);

      const approval = r.prompts.filter((p) => p.kind === "lockstep.approval");
      expect(approval).toHaveLength(1);
      expect(approval[0]?.items).toEqual(["Apply", "Always allow safe_patch this session", "Reject"]);
      expect(approval[0]?.prompt).toContain("calc.py");

      // The model read the unsaved buffer, and its patch landed there, not on disk.
      expect(fake.requests).toHaveLength(3);
      expect(lastResponses(fake.requests[1])[0]?.response.data?.["content"]).toBe(UNSAVED);
      expect(r.buffer?.text).toBe(agentInput.expected);
      expect(r.buffer?.text).toContain(NEW_LINE);
      expect(r.disk).toBe(CALC);
    } finally {
      await fake.close();
    }
  });
});
