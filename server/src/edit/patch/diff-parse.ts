// A lenient unified-diff reader. Models write diffs with wrong or missing
// counts, bare `@@ @@` headers, missing file headers, fences and CRLF; this
// reader keeps what the lines say and leaves placement to the locator, so the
// header numbers are only ever hints.
import { fail, succeed, type Outcome } from "../../shared/outcome.js";

export type HunkOp = " " | "-" | "+";

export interface HunkLine {
  op: HunkOp;
  text: string;
}

export interface ParsedHunk {
  /** 0-based position of the hunk in the diff. */
  index: number;
  /** 1-based old-side start from the header; undefined for a bare header. */
  oldStart?: number;
  /** Old-side line count from the header, when it had one. */
  oldCount?: number;
  /** 1-based new-side start from the header, when it had one. */
  newStart?: number;
  newCount?: number;
  /** 1-based line of the `@@` header in the diff text (0 when the diff had none). */
  headerLine: number;
  lines: HunkLine[];
  /** A `\ No newline at end of file` marker followed an old-side / new-side line. */
  noNewlineOld: boolean;
  noNewlineNew: boolean;
}

export interface FilePatch {
  /** Paths from `---` / `+++`, without `a/` `b/` prefixes; undefined for `/dev/null` or absent. */
  oldPath?: string;
  newPath?: string;
  /** `--- /dev/null`: the patch creates the file. */
  creates: boolean;
  /** `+++ /dev/null`: the patch deletes the file. */
  deletes: boolean;
  /** git's `index OLD..NEW` line: the blob hashes (possibly abbreviated) of the file before and after. */
  index?: { old: string; new: string };
  hunks: ParsedHunk[];
}

const HUNK_HEADER = /^@@+\s*(?:-(\d+)(?:,(\d+))?)?\s*(?:\+(\d+)(?:,(\d+))?)?\s*@@+/;
const FENCE = /^\s*(```|~~~)/;
/** git's `index 1a2b3c4..5d6e7f8 100644` line (abbreviated to at least 7 hex digits, or whole). */
const INDEX_LINE = /^index ([0-9a-f]{7,64})\.\.([0-9a-f]{7,64})(?: [0-7]{6})?\s*$/;

function stripPathPrefix(raw: string): string | undefined {
  // `--- a/src/x.ts\t2024-01-01 …`: drop the timestamp and the a/ b/ prefix.
  let path = raw.split("\t")[0]!.trim();
  if (path.startsWith('"') && path.endsWith('"') && path.length > 1) path = path.slice(1, -1);
  if (path === "/dev/null" || path === "") return undefined;
  if (/^[ab]\//.test(path)) path = path.slice(2);
  return path;
}

function isFileHeaderPair(lines: string[], i: number): boolean {
  return lines[i]!.startsWith("--- ") && (lines[i + 1]?.startsWith("+++ ") ?? false);
}

function isHunkLine(line: string): boolean {
  const c = line[0];
  return c === " " || c === "-" || c === "+";
}

/** Whether a later line before the next header still belongs to a hunk body. */
function moreHunkLinesFollow(lines: string[], from: number): boolean {
  for (let j = from; j < lines.length; j++) {
    const line = lines[j]!;
    if (HUNK_HEADER.test(line) || isFileHeaderPair(lines, j) || line.startsWith("diff --git")) return false;
    if (line.startsWith("+") || line.startsWith("-")) return true;
    if (!isHunkLine(line) && line !== "" && FENCE.test(line)) return false;
  }
  return false;
}

class PatchBuilder {
  readonly patches: FilePatch[] = [];
  private current: FilePatch | undefined;
  private hunkCount = 0;
  /** An `index` line seen before its section's `---`/`+++` pair (or its first hunk). */
  private pendingIndex: FilePatch["index"];

  file(): FilePatch {
    if (!this.current) {
      this.current = { creates: false, deletes: false, hunks: [], ...this.takeIndex() };
      this.patches.push(this.current);
    }
    return this.current;
  }

  /** `diff --git` opens a section: an index line seen before it belongs to none. */
  gitSection(): void {
    this.pendingIndex = undefined;
    this.current = undefined;
  }

  indexLine(match: RegExpExecArray): void {
    this.pendingIndex = { old: match[1]!, new: match[2]! };
  }

  private takeIndex(): { index?: FilePatch["index"] } {
    const index = this.pendingIndex;
    this.pendingIndex = undefined;
    return index === undefined ? {} : { index };
  }

  startFile(oldRaw: string, newRaw: string): void {
    const oldPath = stripPathPrefix(oldRaw);
    const newPath = stripPathPrefix(newRaw);
    this.current = {
      creates: oldRaw.trim().startsWith("/dev/null"),
      deletes: newRaw.trim().startsWith("/dev/null"),
      hunks: [],
      ...this.takeIndex(),
      ...(oldPath !== undefined ? { oldPath } : {}),
      ...(newPath !== undefined ? { newPath } : {}),
    };
    this.patches.push(this.current);
  }

  startHunk(headerLine: number, match: RegExpExecArray | undefined): ParsedHunk {
    const num = (s: string | undefined): number | undefined => (s === undefined ? undefined : Number(s));
    const hunk: ParsedHunk = {
      index: this.hunkCount++,
      headerLine,
      lines: [],
      noNewlineOld: false,
      noNewlineNew: false,
    };
    const oldStart = num(match?.[1]);
    if (oldStart !== undefined) hunk.oldStart = oldStart;
    const oldCount = num(match?.[2]) ?? (oldStart !== undefined ? 1 : undefined);
    if (oldCount !== undefined) hunk.oldCount = oldCount;
    const newStart = num(match?.[3]);
    if (newStart !== undefined) hunk.newStart = newStart;
    const newCount = num(match?.[4]) ?? (newStart !== undefined ? 1 : undefined);
    if (newCount !== undefined) hunk.newCount = newCount;
    this.file().hunks.push(hunk);
    return hunk;
  }
}

/** Trailing blank lines are kept only when the header counts ask for them. */
function trimTrailingBlanks(hunk: ParsedHunk, blanks: number): void {
  if (blanks === 0) return;
  let keep = 0;
  if (hunk.oldCount !== undefined && hunk.newCount !== undefined) {
    let oldSeen = 0;
    let newSeen = 0;
    for (const l of hunk.lines) {
      if (l.op !== "+") oldSeen++;
      if (l.op !== "-") newSeen++;
    }
    const withoutOld = oldSeen - blanks;
    const withoutNew = newSeen - blanks;
    const missing = Math.min(hunk.oldCount - withoutOld, hunk.newCount - withoutNew);
    keep = Math.max(0, Math.min(blanks, missing));
  }
  hunk.lines.length -= blanks - keep;
}

/**
 * Reads every file section and hunk of a unified diff. Fails only when there is
 * nothing that could be a hunk; everything else is left to the locator.
 */
export function parseUnifiedDiff(text: string): Outcome<FilePatch[]> {
  const lines = text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const builder = new PatchBuilder();
  let hunk: ParsedHunk | undefined;
  let blankRun = 0;
  let sawHeader = false;

  const closeHunk = (): void => {
    if (hunk) trimTrailingBlanks(hunk, blankRun);
    hunk = undefined;
    blankRun = 0;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // Only a line starting with `@@` can be a header: the regular expressions run on those alone. One whose
    // numbers cannot be read (`@@ ... @@`, `@@ -2,3 +2,3 @`) still opens a hunk, bare: skipping it would drop
    // the hunk's lines and apply the others without them.
    const header = !line.startsWith("@@") ? null : (HUNK_HEADER.exec(line) ?? undefined);
    if (header !== null) {
      closeHunk();
      sawHeader = true;
      hunk = builder.startHunk(i + 1, header);
      continue;
    }
    if (line.startsWith("--- ") && isFileHeaderPair(lines, i)) {
      closeHunk();
      builder.startFile(line.slice(4), lines[i + 1]!.slice(4));
      i++;
      continue;
    }
    if (!hunk) {
      // Prose and fences outside hunks are skipped; git's section lines say which file and which blobs.
      if (line.startsWith("diff --git ")) builder.gitSection();
      const index = INDEX_LINE.exec(line);
      if (index) builder.indexLine(index);
      continue;
    }
    if (line.startsWith("\\")) {
      const last = hunk.lines[hunk.lines.length - 1];
      if (last?.op !== "+") hunk.noNewlineOld = true;
      if (last?.op !== "-") hunk.noNewlineNew = true;
      continue;
    }
    if (line === "") {
      // A blank context line written without its leading space.
      hunk.lines.push({ op: " ", text: "" });
      blankRun++;
      continue;
    }
    if (isHunkLine(line)) {
      hunk.lines.push({ op: line[0] as HunkOp, text: line.slice(1) });
      blankRun = 0;
      continue;
    }
    if (!FENCE.test(line) && !line.startsWith("diff --git") && moreHunkLinesFollow(lines, i + 1)) {
      // A context line the model wrote without its leading space.
      hunk.lines.push({ op: " ", text: line });
      blankRun = 0;
      continue;
    }
    closeHunk();
    i--; // read again outside the hunk: it may be a `diff --git` or `index` line
  }
  closeHunk();

  if (!sawHeader) return parseHeaderless(lines);
  const patches = builder.patches.filter((p) => p.hunks.length > 0);
  if (patches.length === 0) {
    return fail("invalid_diff", "Invalid Diff: the diff has `@@` headers but no lines under them.", [
      "Write each hunk as an `@@ @@` line followed by context lines (space), removed lines (-) and added lines (+).",
    ]);
  }
  return succeed(patches);
}

/** A diff with no `@@` line at all: its +/-/space lines are read as one bare hunk. */
function parseHeaderless(lines: string[]): Outcome<FilePatch[]> {
  const builder = new PatchBuilder();
  let hunk: ParsedHunk | undefined;
  let changes = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (isFileHeaderPair(lines, i)) {
      builder.startFile(line.slice(4), lines[i + 1]!.slice(4));
      hunk = undefined;
      i++;
      continue;
    }
    if (FENCE.test(line) || line.startsWith("diff --git") || line.startsWith("index ")) continue;
    if (isHunkLine(line) || (line === "" && hunk)) {
      hunk ??= builder.startHunk(0, undefined);
      const op: HunkOp = line === "" ? " " : (line[0] as HunkOp);
      if (op !== " ") changes++;
      hunk.lines.push({ op, text: line.slice(1) });
    }
  }
  for (const p of builder.patches) for (const h of p.hunks) trimTrailingBlanks(h, countTrailingBlanks(h));
  const patches = builder.patches.filter((p) => p.hunks.length > 0);
  if (changes === 0 || patches.length === 0) {
    return fail(
      "invalid_diff",
      "Invalid Diff: no hunks found; the text has no `@@` line and no lines starting with + or -.",
      [
        "Send a unified diff: `--- a/FILE`, `+++ b/FILE`, then `@@ @@` hunks with context lines (space), removed (-) and added (+) lines.",
      ],
    );
  }
  return succeed(patches);
}

function countTrailingBlanks(h: ParsedHunk): number {
  let n = 0;
  for (let i = h.lines.length - 1; i >= 0 && h.lines[i]!.op === " " && h.lines[i]!.text === ""; i--) n++;
  return n;
}
