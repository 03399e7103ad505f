// The ledger against an editor that may lie: `applied: true` is a claim, the
// editor's didChange (or didOpen) and the disk are the reports. Properties over
// random sessions of writes, lies, late reports, opens and saves: a state the
// ledger reports without the `unconfirmed` mark is text the editor reported or
// the disk holds, and no edit ever lands on text it was not computed on.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import type { FileState } from "../../server/src/workspace/file-state.js";
import { Sandbox } from "../../server/src/workspace/sandbox.js";
import type { EditorLink, EditReply, FileEdit } from "../../server/src/workspace/editor-link.js";
import { Workspace } from "../../server/src/workspace/workspace.js";
import { sha256Of } from "../support/workspace-fixture.js";

const TEXT = Array.from({ length: 12 }, (_, i) => `line ${i}`).join("\n") + "\n";
const signal = new AbortController().signal;

/** How the editor answers a versioned edit for a version it no longer has. */
type Style = "refuses-stale" | "skips-stale";

interface Buffer {
  /** What the editor holds. */
  text: string;
  version: number;
  /** What it last reported to the server (didOpen/didChange); undefined while the file is not open. */
  reported?: { text: string; version: number };
}

/**
 * An in-process editor: buffers it holds (open, or hidden ones it loaded to apply an edit to a
 * closed file), what it has reported, and a script of lies. Edits are applied by line and
 * character, as editors do, so an edit computed on other text lands at the wrong place.
 */
class ScriptedEditor implements EditorLink {
  readonly canApplyEdit = true;
  readonly createFiles = true;
  lie = false;
  buffer: Buffer | undefined;
  workspace!: Workspace;

  constructor(
    private readonly style: Style,
    private readonly abs: string,
    private readonly uri: string,
  ) {}

  document(uri: string): { version: number; text: string } | undefined {
    return uri === this.uri ? this.buffer?.reported : undefined;
  }

  async applyEdit(edit: FileEdit): Promise<EditReply> {
    if (this.lie) return { applied: true };
    const buffer = (this.buffer ??= { text: readFileSync(this.abs, "utf8"), version: 0 });
    if (edit.version !== null && edit.version !== buffer.version) {
      if (this.style === "refuses-stale")
        return { applied: false, reason: `version ${edit.version} is not ${buffer.version}` };
      return { applied: true }; // Neovim: skipped, and still "applied"
    }
    buffer.text = applyByPosition(edit.before, buffer.text, edit);
    buffer.version++;
    return { applied: true };
  }

  /** The didChange (or, for a hidden buffer the user opens, the didOpen) reaches the server. */
  report(): void {
    if (!this.buffer) return;
    this.buffer.reported = { text: this.buffer.text, version: this.buffer.version };
    this.workspace.documentChanged(this.uri);
  }

  /** The user opens the file: the editor reports the buffer it holds, or loads the disk. */
  open(): void {
    this.buffer ??= { text: readFileSync(this.abs, "utf8"), version: 0 };
    if (!this.buffer.reported) this.report();
  }

  save(): void {
    if (this.buffer) writeFileSync(this.abs, this.buffer.text);
  }
}

/** Applies offsets into `before` to `actual` by line and character (clamped), as an editor would. */
function applyByPosition(before: string, actual: string, edit: FileEdit): string {
  const position = (offset: number) => {
    const head = before.slice(0, offset).split("\n");
    return { line: head.length - 1, character: head[head.length - 1]!.length };
  };
  const lines = actual.split("\n");
  const offsetIn = ({ line, character }: { line: number; character: number }) => {
    if (line >= lines.length) return actual.length;
    let offset = 0;
    for (let i = 0; i < line; i++) offset += lines[i]!.length + 1;
    return offset + Math.min(character, lines[line]!.length);
  };
  let text = actual;
  for (const e of [...edit.edits].reverse())
    text = text.slice(0, offsetIn(position(e.start))) + e.newText + text.slice(offsetIn(position(e.end)));
  return text;
}

type Step =
  | { kind: "write"; line: number; lie: boolean }
  | { kind: "report" }
  | { kind: "open" }
  | { kind: "save" }
  | { kind: "expire" };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("write" as const),
      line: fc.nat({ max: 11 }),
      lie: fc.boolean(),
    }),
  },
  fc.record({ kind: fc.constant("report" as const) }),
  fc.record({ kind: fc.constant("open" as const) }),
  fc.record({ kind: fc.constant("save" as const) }),
  fc.record({ kind: fc.constant("expire" as const) }),
);

const WAIT_MS = 2;

async function session(style: Style, startOpen: boolean, steps: Step[]): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), "lockstep-ledger-"));
  const abs = path.join(root, "a.txt");
  writeFileSync(abs, TEXT);
  const sandbox = await Sandbox.create([root]);
  const probe = new Workspace(sandbox);
  const resolved = await probe.resolve("a.txt", "write");
  if (!resolved.ok) throw new Error(resolved.error.message);
  const file = resolved.value;
  const editor = new ScriptedEditor(style, file.abs, file.uri);
  const ws = new Workspace(sandbox, { editor, pendingWaitMs: WAIT_MS });
  editor.workspace = ws;
  if (startOpen) editor.open();

  // Every text lockstep meant a buffer or the disk to hold: the start, and each change it sent.
  const meant = new Set([TEXT]);
  const confirmed = (): string =>
    editor.buffer?.reported ? editor.buffer.reported.text : readFileSync(abs, "utf8");
  const check = (state: FileState): void => {
    expect(state.sha256).toBe(sha256Of(state.content));
    if (!state.unconfirmed) expect(state.content).toBe(confirmed());
    if (editor.buffer) expect(meant.has(editor.buffer.text)).toBe(true);
    expect(meant.has(readFileSync(abs, "utf8"))).toBe(true);
  };

  for (const s of steps) {
    if (s.kind === "report") editor.report();
    else if (s.kind === "open") editor.open();
    else if (s.kind === "save") editor.save();
    else if (s.kind === "expire") await new Promise((r) => setTimeout(r, 4 * WAIT_MS));
    else {
      const read = await ws.read(file);
      if (!read.ok) throw new Error(read.error.message);
      check(read.value);
      const lines = read.value.content.split("\n");
      lines[s.line] += " *";
      const after = lines.join("\n");
      meant.add(after);
      editor.lie = s.lie;
      const written = await ws.deliver(file, read.value, after, signal);
      editor.lie = false;
      if (written.ok) check(written.value.state);
      else expect(written.error.code).toMatch(/^(state_mismatch|timeout)$/);
    }
    const read = await ws.read(file);
    if (!read.ok) throw new Error(read.error.message);
    check(read.value);
  }
}

describe("the ledger and an editor that may claim what it did not do", () => {
  it.each<[Style, boolean]>([
    ["refuses-stale", true],
    ["skips-stale", true],
    ["refuses-stale", false],
    ["skips-stale", false],
  ])(
    "editor %s, file open at the start: %s — a state without the unconfirmed mark is the editor's report or the disk, and no edit lands on other text",
    async (style, open) => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) =>
          session(style, open, steps),
        ),
        { numRuns: 60 },
      );
    },
    60_000,
  );

  it("refuses a second edit to a closed file whose first edit the editor claimed and never showed, naming that behaviour", async () => {
    // The claim expires 3 pending waits (6 ms) after the edit, and this test reads it as still
    // standing: the clock held still, so a loaded machine's pause between two awaits cannot expire it.
    const frozen = vi.spyOn(performance, "now").mockReturnValue(performance.now());
    onTestFinished(() => frozen.mockRestore());
    const root = mkdtempSync(path.join(tmpdir(), "lockstep-ledger-"));
    writeFileSync(path.join(root, "a.txt"), TEXT);
    const sandbox = await Sandbox.create([root]);
    const file = await new Workspace(sandbox).resolve("a.txt", "write");
    if (!file.ok) throw new Error(file.error.message);
    const editor = new ScriptedEditor("refuses-stale", file.value.abs, file.value.uri);
    const ws = new Workspace(sandbox, { editor, pendingWaitMs: WAIT_MS });
    editor.workspace = ws;
    editor.lie = true;
    const first = await ws.deliver(
      file.value,
      { ...(await read(ws, file.value)) },
      TEXT.replace("line 3\n", ""),
      signal,
    );
    expect(first.ok && first.value.state.unconfirmed).toBe(true);
    editor.lie = false;
    const claimed = await read(ws, file.value);
    expect(claimed).toMatchObject({ unconfirmed: true, content: TEXT.replace("line 3\n", "") });
    const second = await ws.deliver(
      file.value,
      claimed,
      claimed.content.replace("line 9", "line NINE"),
      signal,
    );
    expect(second).toMatchObject({
      ok: false,
      error: {
        code: "state_mismatch",
        message: expect.stringContaining("neither opened it nor saved it") as string,
      },
    });
    expect(editor.buffer).toBeUndefined(); // nothing was sent
    // The user opens the file: the editor shows what it holds, and a change on that lands.
    editor.open();
    const shown = await read(ws, file.value);
    expect(shown).toMatchObject({ content: TEXT, version: 0 });
    expect(shown.unconfirmed).toBeUndefined();
    const third = await ws.deliver(file.value, shown, TEXT.replace("line 9", "line NINE"), signal);
    expect(third.ok).toBe(true);
    expect(editor.buffer?.text).toBe(TEXT.replace("line 9", "line NINE"));
  });
});

async function read(ws: Workspace, file: Parameters<Workspace["read"]>[0]): Promise<FileState> {
  const r = await ws.read(file);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}
