// One change model for every spelling of a change across files: a multi-file
// unified diff (`git diff`, `diff -ru`) and OpenAI's `apply_patch` envelope both
// parse into a list of file operations, and one applier (apply-change.ts) runs
// them through the patch engine. Knows nothing of files or processes.
import type { HunkLine } from "../patch/diff-parse.js";

/** A path as the change names it, with the reading that drops one leading folder (`patch -p1`) for plain diffs. */
export interface PathRef {
  path: string;
  /** For a plain (not git) diff: the path with its first folder dropped, tried when `path` names no file. */
  stripped?: string;
}

/** An `apply_patch` hunk: `@@ anchor` lines that narrow where it goes, then its lines. */
export interface AnchoredHunk {
  /** Stacked `@@ text` lines, outermost first (a class, then a method). */
  anchors: string[];
  lines: HunkLine[];
  /** `*** End of File`: the old lines end the file. */
  endOfFile: boolean;
  /** 1-based line of the hunk in the given text, for messages. */
  line: number;
}

/** How an update's hunks were written: a unified-diff section (handed to the patch engine as it is) or anchored hunks. */
export type UpdateBody = { kind: "diff"; text: string } | { kind: "anchored"; hunks: AnchoredHunk[] };

export type FileOperation =
  | { op: "update"; path: PathRef; moveTo?: PathRef; body: UpdateBody | null; line: number }
  | { op: "add"; path: PathRef; content: string | { diff: string }; line: number }
  | {
      op: "delete";
      path: PathRef;
      /** The diff's removed lines, checked against the file. */ diff?: string;
      line: number;
    };

export type ChangeFormat = "unified" | "apply_patch";

export interface ChangeSet {
  format: ChangeFormat;
  operations: FileOperation[];
}

export function describeOperation(op: FileOperation, path: string, to?: string): string {
  if (op.op === "add") return `create ${path}`;
  if (op.op === "delete") return `delete ${path}`;
  return to !== undefined ? `rename ${path} to ${to}${op.body ? " and change it" : ""}` : `change ${path}`;
}
