// A `shown` record read back: the diffs a change's call showed live, as session/load replays
// them. The file is input: a record is taken only in the shape lockstep writes (root-relative
// paths that stay inside the root, strings where texts go, a bounded count and size), else it
// is left out and the call replays its outcome alone, as an older file's does.
import path from "node:path";
import type { ShownDiff } from "./format.js";

/** Files one change shows at most (a change across files names the rest). */
export const MAX_SHOWN_FILES = 500;
/** Characters of text one record may hold: live sends at most 40 KB of diffs in one update. */
const MAX_SHOWN_CHARS = 200_000;

export interface ShownCall {
  tool: string;
  files: ShownDiff[];
}

type Json = Record<string, unknown>;

/** A path as lockstep names a file of the root: relative, no `..`, no NUL. */
export function insideRoot(file: unknown): file is string {
  if (typeof file !== "string" || file === "" || file.length > 4096 || file.includes("\0")) return false;
  if (path.isAbsolute(file) || path.win32.isAbsolute(file)) return false;
  const normal = path.posix.normalize(file.replace(/\\/g, "/"));
  return normal !== ".." && !normal.startsWith("../");
}

function shownDiff(value: unknown): ShownDiff | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Json;
  if (!insideRoot(v["file_path"])) return undefined;
  const file_path = v["file_path"];
  if (typeof v["text"] === "string") return { file_path, text: v["text"] };
  const old = v["old_text"];
  const line = v["line"];
  if (typeof v["new_text"] !== "string" || !(old === null || typeof old === "string")) return undefined;
  if (line !== undefined && !(Number.isSafeInteger(line) && (line as number) >= 1)) return undefined;
  return {
    file_path,
    old_text: old,
    new_text: v["new_text"],
    ...(line !== undefined ? { line: line as number } : {}),
  };
}

/** The record's call id and diffs when it is one lockstep wrote; undefined for anything else. */
export function readShown(record: Json): { call_id: string; call: ShownCall } | undefined {
  const { job_id, call_id, tool, files } = record;
  if (typeof job_id !== "string" || typeof call_id !== "string" || typeof tool !== "string") return undefined;
  if (!call_id.startsWith(`${job_id}:`) || !Array.isArray(files) || files.length > MAX_SHOWN_FILES)
    return undefined;
  const diffs: ShownDiff[] = [];
  let chars = 0;
  for (const f of files) {
    const d = shownDiff(f);
    if (d === undefined) return undefined;
    chars += "text" in d ? d.text.length : (d.old_text?.length ?? 0) + d.new_text.length;
    if (chars > MAX_SHOWN_CHARS) return undefined;
    diffs.push(d);
  }
  return { call_id, call: { tool, files: diffs } };
}
