// OpenAI's `apply_patch` envelope, as GPT-4.1, GPT-5 and Codex models write it:
//   *** Begin Patch
//   *** Update File: PATH      (optionally *** Move to: NEW), then hunks:
//   @@ anchor                  (zero or more; the first hunk may omit it)
//    context / -removed / +added lines, *** End of File after a hunk at the end
//   *** Add File: PATH         (every line +)
//   *** Delete File: PATH
//   *** End Patch
// Read into the one change model; where each hunk lands is the applier's business.
import type { HunkLine } from "../patch/diff-parse.js";
import { fail, succeed, type Outcome } from "../../shared/outcome.js";
import type { AnchoredHunk, FileOperation } from "./change.js";

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const MARKERS = {
  add: "*** Add File:",
  delete: "*** Delete File:",
  update: "*** Update File:",
  move: "*** Move to:",
  eof: "*** End of File",
};

/** Whether the text holds an envelope (prose and fences around it are allowed). */
export function hasEnvelope(text: string): boolean {
  return /^[ \t]*\*\*\* Begin Patch[ \t]*\r?$/m.test(text);
}

function invalid(line: number, what: string, next: string): Outcome<never> {
  return fail(
    "invalid_diff",
    `Invalid Diff: apply_patch envelope, line ${line}: ${what}. Nothing was applied.`,
    [next],
  );
}

function pathAfter(marker: string, line: string): string {
  return line.trim().slice(marker.length).trim();
}

/**
 * Reads every envelope in the text (models sometimes answer with two). A line
 * the grammar does not allow refuses the whole text, naming it: a half-read
 * change is never applied.
 */
export function parseEnvelope(text: string): Outcome<FileOperation[]> {
  const lines = text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  const ops: FileOperation[] = [];
  let i = lines.findIndex((l) => l.trim() === BEGIN);
  if (i === -1)
    return invalid(
      1,
      "no `*** Begin Patch` line",
      "Start the patch with `*** Begin Patch` and end it with `*** End Patch`.",
    );
  while (i !== -1) {
    const read = readEnvelope(lines, i + 1, ops);
    if (!read.ok) return read;
    const after = read.value;
    const next = lines.slice(after).findIndex((l) => l.trim() === BEGIN);
    i = next === -1 ? -1 : after + next;
  }
  if (ops.length === 0)
    return invalid(
      1,
      "the envelope holds no file operation",
      "Add `*** Update File: PATH`, `*** Add File: PATH` or `*** Delete File: PATH` sections.",
    );
  return succeed(ops);
}

/** Reads file operations from `start` up to `*** End Patch`; returns the line after it. */
function readEnvelope(lines: string[], start: number, ops: FileOperation[]): Outcome<number> {
  let i = start;
  while (i < lines.length) {
    const raw = lines[i]!;
    const line = raw.trim();
    const no = i + 1;
    if (line === END) return succeed(i + 1);
    if (line === "") {
      i++;
      continue;
    }
    if (line.startsWith(MARKERS.add)) {
      const path = pathAfter(MARKERS.add, line);
      if (path === "") return invalid(no, "`*** Add File:` names no path", "Write `*** Add File: PATH`.");
      const content: string[] = [];
      i++;
      while (i < lines.length && lines[i]!.startsWith("+")) content.push(lines[i++]!.slice(1));
      ops.push({
        op: "add",
        path: { path },
        content: content.length > 0 ? content.join("\n") + "\n" : "",
        line: no,
      });
      continue;
    }
    if (line.startsWith(MARKERS.delete)) {
      const path = pathAfter(MARKERS.delete, line);
      if (path === "")
        return invalid(no, "`*** Delete File:` names no path", "Write `*** Delete File: PATH`.");
      ops.push({ op: "delete", path: { path }, line: no });
      i++;
      continue;
    }
    if (line.startsWith(MARKERS.update)) {
      const path = pathAfter(MARKERS.update, line);
      if (path === "")
        return invalid(no, "`*** Update File:` names no path", "Write `*** Update File: PATH`.");
      i++;
      let moveTo: string | undefined;
      if (lines[i]?.trim().startsWith(MARKERS.move)) {
        moveTo = pathAfter(MARKERS.move, lines[i]!);
        if (moveTo === "")
          return invalid(i + 1, "`*** Move to:` names no path", "Write `*** Move to: NEW_PATH`.");
        i++;
      }
      const hunks = readHunks(lines, i, path);
      if (!hunks.ok) return hunks;
      i = hunks.value.next;
      if (hunks.value.hunks.length === 0 && moveTo === undefined) {
        return invalid(
          no,
          `the update of ${path} has no hunks`,
          "Give it `@@` hunks with context, - and + lines, or leave it out.",
        );
      }
      const body =
        hunks.value.hunks.length > 0 ? { kind: "anchored" as const, hunks: hunks.value.hunks } : null;
      ops.push({
        op: "update",
        path: { path },
        ...(moveTo !== undefined ? { moveTo: { path: moveTo } } : {}),
        body,
        line: no,
      });
      continue;
    }
    return invalid(
      no,
      `\`${line.slice(0, 80)}\` is not a file operation`,
      "Each section starts with `*** Update File: PATH`, `*** Add File: PATH` or `*** Delete File: PATH`.",
    );
  }
  return invalid(
    lines.length,
    "no `*** End Patch` line (the patch looks cut off)",
    "Send the whole patch, ending with `*** End Patch`.",
  );
}

/** One update's hunks, up to the next `***` line. */
function readHunks(
  lines: string[],
  start: number,
  path: string,
): Outcome<{ hunks: AnchoredHunk[]; next: number }> {
  const hunks: AnchoredHunk[] = [];
  let current: AnchoredHunk | undefined;
  let anchors: string[] = [];
  let anchorLine = start + 1;
  let i = start;
  // Raw empty lines at a hunk's end: separators before the next section, not context.
  let blanks = 0;
  const close = (): void => {
    if (current && !current.endOfFile) current.lines.length -= blanks;
    if (current && current.lines.length > 0) hunks.push(current);
    current = undefined;
    blanks = 0;
  };
  for (; i < lines.length; i++) {
    const raw = lines[i]!;
    const trimmed = raw.trim();
    if (trimmed === MARKERS.eof) {
      if (!current || current.lines.length === 0)
        return invalid(
          i + 1,
          `\`*** End of File\` follows no hunk lines in ${path}`,
          "Put `*** End of File` after the last hunk's lines.",
        );
      current.lines.length -= blanks;
      current.endOfFile = true;
      blanks = 0;
      close();
      continue;
    }
    if (raw.startsWith("***")) break;
    if (raw.startsWith("@@")) {
      // `@@ text` lines in a row are stacked anchors; an empty `@@` only starts a hunk.
      if (current && current.lines.length > 0) close();
      if (!current) {
        anchors = [];
        anchorLine = i + 1;
      }
      const anchor = raw.slice(2).trim();
      if (anchor !== "") anchors.push(raw.slice(2).replace(/^ /, ""));
      current = { anchors: [...anchors], lines: [], endOfFile: false, line: anchorLine };
      continue;
    }
    const op = raw[0];
    if (raw === "" || op === " " || op === "-" || op === "+") {
      // A blank line between hunks says nothing; inside one it is an empty context line.
      if (raw === "" && (!current || current.lines.length === 0)) continue;
      if (!current) current = { anchors: [], lines: [], endOfFile: false, line: i + 1 };
      blanks = raw === "" ? blanks + 1 : 0;
      const line: HunkLine =
        raw === "" ? { op: " ", text: "" } : { op: op as HunkLine["op"], text: raw.slice(1) };
      current.lines.push(line);
      continue;
    }
    return invalid(
      i + 1,
      `\`${raw.slice(0, 80)}\` in the update of ${path} starts with none of space, -, + or @@`,
      "Start every hunk line with a space (context), - (removed) or + (added).",
    );
  }
  if (current && current.lines.length === 0)
    return invalid(
      current.line,
      `the \`@@\` hunk in ${path} has no lines`,
      "Give the hunk its context, - and + lines, or remove the `@@` line.",
    );
  close();
  return succeed({ hunks, next: i });
}
