// lockstep in a real Emacs 28 + Eglot 1.9 (batch mode) with clients/emacs/lockstep.el:
// the driver fixtures/emacs/driver.el plays each scenario of fixtures/scenarios.ts
// and reports what the buffers, the disk, *lockstep* and the prompts showed.
import { existsSync, readdirSync } from "node:fs";
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
/** Eglot runs one server per major mode: lockstep is python-mode's server here. */
const MODES = ["python-mode"];

interface BufferView {
  text: string;
  version: number | null;
  modified: boolean;
  sha256: string;
  managed: boolean;
  pending_changes: boolean;
  exists?: boolean;
}

interface Envelope {
  ok: boolean;
  data?: Record<string, unknown>;
  error?: { code: string; message: string; suggestions?: string[] };
  request_error?: string;
}

interface EmacsResult {
  error?: string;
  emacs: string;
  eglot: string | null;
  messages: string[];
  prompts: { kind: string; prompt: string; items: string[]; picked: string | null }[];
  apply_edits: { documents: { uri: string; versioned: boolean; version: number | null }[]; applied: boolean }[];
  steps: string[];
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
}

/**
 * The load-path for Debian's elpa-eglot (eglot 1.9 and the project, xref and seq
 * it needs): the byte-compiled packages, else their sources. Emacs 29+ has them
 * built in, so nothing found is not an error by itself; the driver reports a
 * missing eglot.
 */
function elpaDirs(): string[] {
  const dirs: string[] = [];
  for (const name of ["eglot", "project", "xref", "seq"]) {
    for (const base of ["/usr/share/emacs/site-lisp/elpa", "/usr/share/emacs/site-lisp/elpa-src"]) {
      const found = existsSync(base) ? readdirSync(base).filter((d) => d.startsWith(`${name}-`)).sort() : [];
      const newest = found.at(-1);
      if (newest !== undefined) {
        dirs.push(path.join(base, newest));
        break;
      }
    }
  }
  return dirs;
}

/** Checked once, failing every test (not skipping it) when Emacs, Eglot or the build is missing. */
const ready = once(() => {
  requireEditor("emacs", ["--version"], "Install Emacs 28+ with Eglot (Debian: apt-get install emacs-nox elpa-eglot)");
  requireEditor(
    "emacs",
    ["-Q", "--batch", ...elpaDirs().flatMap((dir) => ["-L", dir]), "--eval", "(require 'eglot)"],
    "Emacs cannot load Eglot: install Eglot 1.9+ (Debian: apt-get install elpa-eglot; built into Emacs 29+)",
  );
  requireBuild();
});

async function runEmacs(input: Record<string, unknown>, env: Record<string, string> = {}): Promise<EmacsResult> {
  ready();
  const workspace = await makeWorkspace(FILES);
  const run = await runEditor<EmacsResult>({
    command: "emacs",
    args: [
      "-Q",
      "--batch",
      ...elpaDirs().flatMap((dir) => ["-L", dir]),
      "-l",
      path.join(REPO, "clients", "emacs", "lockstep.el"),
      "-l",
      path.join(FIXTURES, "emacs", "driver.el"),
    ],
    input: { ...input, workspace, repo: REPO, node: process.execPath, modes: MODES },
    cwd: workspace,
    env,
    timeoutMs: EDITOR_TIMEOUT_MS,
    logs: (home) => [path.join(home, "eglot-events.log"), path.join(home, "eglot-stderr.log")],
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

describe("Emacs 28 + Eglot 1.9 + clients/emacs/lockstep.el", { timeout: TEST_TIMEOUT_MS }, () => {
  it("read_file returns the buffer's unsaved text and Eglot's version of it", async () => {
    const r = await runEmacs(readInput);
    expect(r.buffer).toMatchObject({ text: UNSAVED, modified: true, managed: true });
    const state = data(r.read);
    expect(state).toMatchObject({ file_path: "calc.py", content: UNSAVED, sha256: sha256Hex(UNSAVED), open: true });
    expect(state["version"]).toBe(r.buffer?.version);
    expect(r.disk).toBe(CALC);
  });

  it("safe_patch changes the buffer and not the file on disk", async () => {
    const r = await runEmacs(patchInput);
    expect(data(r.read)["sha256"]).toBe(sha256Hex(UNSAVED));
    const patched = data(r.patch);
    expect(patched["applied"]).toBe(true);
    expect(String(patched["message"])).toMatch(/^Patch applied successfully\./);
    expect(r.buffer).toMatchObject({ text: patchInput.expected, modified: true });
    expect(r.disk).toBe(CALC);
    expect(r.apply_edits).toHaveLength(1);
    expect(r.apply_edits[0]?.applied).toBe(true);
    expect(r.apply_edits[0]?.documents.map((d) => path.basename(d.uri))).toEqual(["calc.py"]);
    // Once Eglot's didChange is flushed the server sees exactly the buffer.
    expect(data(r.reread)).toMatchObject({ content: patchInput.expected, sha256: sha256Hex(patchInput.expected), version: r.buffer_after_reread?.version });
  });

  it("a patch built on an older state is refused with state_mismatch and the buffer is untouched", async () => {
    const r = await runEmacs(staleInput);
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

  it("lockstep-apply-edit-blocks applies both blocks to buffers: the visited one and one Eglot visits", async () => {
    const r = await runEmacs({ ...blocksInput, select: { "y-or-n-p": "y" } });
    expect(r.buffers?.["calc.py"]).toMatchObject({ exists: true, modified: true, text: blocksInput.expected["calc.py"] });
    expect(r.buffers?.["shapes.py"]).toMatchObject({ exists: true, modified: true, text: blocksInput.expected["shapes.py"] });
    expect(r.disk).toEqual({ "calc.py": CALC, "shapes.py": SHAPES });
    // Eglot 1.9 asks before it edits a file that is not visited (the driver says yes).
    expect(r.prompts.map((p) => p.kind)).toEqual(["y-or-n-p"]);
    expect(r.prompts[0]?.prompt).toContain("shapes.py");
    // One workspace edit per file, and each block's status in the echo area.
    expect(r.apply_edits.map((e) => e.documents.map((d) => path.basename(d.uri)))).toEqual([["calc.py"], ["shapes.py"]]);
    expect(r.apply_edits.map((e) => e.applied)).toEqual([true, true]);
    expect(r.messages.find((m) => m.startsWith("[lockstep]") && m.includes("edit block"))).toMatch(/2 edit blocks: 2 applied/);
  });

  it("edit blocks sent from another buffer right after typing in their file never land at stale positions", async () => {
    const r = await runEmacs(raceInput);
    expect(r.buffer_before?.text).toBe(raceInput.typed);
    // The block lands on what the user typed, or is refused; anything else corrupts the buffer.
    expect([raceInput.applied, raceInput.typed]).toContain(r.buffer?.text);
    // The report matches what the buffer holds.
    const report = r.messages.find((m) => m.startsWith("[lockstep]") && m.includes("edit block"));
    if (r.buffer?.text === raceInput.typed) expect(report).toMatch(/1 failed/);
    else expect(report).toMatch(/1 applied/);
    expect(data(r.read)["content"]).toBe(r.buffer?.text);
    expect(r.disk).toBe(CALC);
  });

  it("lockstep-ask streams the answer into *lockstep*; the approved safe_patch lands in the buffer", async () => {
    const fake = await startFakeGemini(agentScript());
    try {
      const r = await runEmacs(agentInput, { GEMINI_API_KEY: FAKE_KEY, GOOGLE_GEMINI_BASE_URL: fake.baseUrl });
      const chat = r.chat ?? [];
      expect(chat).toContain("## you · calc.py");
      expect(chat).toContain(PROMPT);
      // Deltas of one paragraph continue one line.
      expect(chat).toContain(STREAMED.first.join(""));
      expect(chat).toContain(STREAMED.second);
      expect(chat).toContain(STREAMED.last.join(""));
      expect(chat).toContain("[tool] safe_patch calc.py");
      expect(chat.find((l) => l.startsWith("[ok] safe_patch"))).toMatch(/Patch applied successfully\./);
      expect(chat.at(-1)).toBe("[done] done · files changed: calc.py");

      // Eglot's showMessageRequest prompt, answered "Apply".
      const approval = r.prompts.filter((p) => p.kind === "lockstep.approval");
      expect(approval).toHaveLength(1);
      expect(approval[0]?.items).toEqual(["Apply", "Always allow safe_patch this session", "Reject"]);
      expect(approval[0]?.prompt).toContain("calc.py");
      expect(approval[0]?.picked).toBe("Apply");

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
