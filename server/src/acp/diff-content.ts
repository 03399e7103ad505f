// A change's diff as ACP tool call content, sized for the line a client reads it in. ACP puts
// the whole old and new text in a diff, and one notification is one line: a 40 KB file made an
// 83 KB line, past the 64 KB a default Python SDK reader takes. So a diff is sent whole while
// it is small; past DIFF_WHOLE_LIMIT it is cut to the changed lines with CONTEXT_LINES around
// them (the same hunk a client shows, over fewer lines); a change whose changed lines alone are
// past the limit is named in words with its location, its text left to the file. Pure.
import type { ToolCallContent, ToolCallLocation } from "@agentclientprotocol/sdk";

/** Bytes of old and new text (as JSON) one diff may carry whole. */
export const DIFF_WHOLE_LIMIT = 16_000;
/** Bytes of diffs one update may carry: a line stays well under 64 KB with its other fields. */
export const UPDATE_DIFF_BUDGET = 40_000;
const CONTEXT_LINES = 3;

const size = (text: string | null): number => (text === null ? 4 : Buffer.byteLength(JSON.stringify(text)));

/** The changed lines of `before` → `after` with context: the first and last line that differ, as 0-based line indexes. */
export function changedRegion(
  before: string,
  after: string,
  context = CONTEXT_LINES,
): { oldText: string; newText: string; line: number } {
  const a = before.split("\n");
  const b = after.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const from = Math.max(0, head - context);
  const keepTail = Math.max(0, tail - context);
  return {
    oldText: a.slice(from, a.length - keepTail).join("\n"),
    newText: b.slice(from, b.length - keepTail).join("\n"),
    line: from + 1,
  };
}

/** What a diff is made of: a live change, or a stored journal entry for a replay. */
export interface DiffSource {
  file_path: string;
  before: { content: string } | null;
  after: string;
  added?: number;
  removed?: number;
}

export interface SizedDiff {
  content: ToolCallContent;
  /** Where the shown text starts in the file, when it is a cut (the client may open it there). */
  location?: ToolCallLocation;
}

/** One file's change: whole, cut to its changed lines, or named; `room` is what the update has left. */
export function sizedDiff(change: DiffSource, abs: string, room: number): SizedDiff {
  const oldText = change.before === null ? null : change.before.content;
  const limit = Math.min(DIFF_WHOLE_LIMIT, room);
  if (size(oldText) + size(change.after) <= limit)
    return { content: { type: "diff", path: abs, oldText, newText: change.after } };
  if (oldText !== null) {
    const cut = changedRegion(oldText, change.after);
    if (size(cut.oldText) + size(cut.newText) <= limit)
      return {
        content: { type: "diff", path: abs, oldText: cut.oldText, newText: cut.newText },
        location: { path: abs, line: cut.line },
      };
  }
  const lines =
    change.after.split("\n").length - (change.after.endsWith("\n") || change.after === "" ? 1 : 0);
  const counted = change.added !== undefined && change.removed !== undefined;
  const what =
    oldText === null
      ? `creates ${change.file_path} (${lines} lines)`
      : `changes ${change.file_path} (${counted ? `+${change.added} -${change.removed} lines, ` : ""}${lines} lines after)`;
  return {
    content: {
      type: "content",
      content: {
        type: "text",
        text: `This change ${what}: too large to show here. Open the file to see it once it lands.`,
      },
    },
    location: { path: abs },
  };
}

/** The diffs of one update (a change across files: one per file), within UPDATE_DIFF_BUDGET together. */
export function sizedDiffs(changes: readonly DiffSource[], abs: (rel: string) => string): SizedDiff[] {
  let room = UPDATE_DIFF_BUDGET;
  return changes.map((change) => {
    const sized = sizedDiff(change, abs(change.file_path), room);
    room = Math.max(0, room - Buffer.byteLength(JSON.stringify(sized.content)));
    return sized;
  });
}
