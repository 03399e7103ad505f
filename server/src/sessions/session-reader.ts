// Reading one session file back: the header, the conversation up to its last
// complete turn, the journal with what was reverted taken out, the runs and the
// usage. A torn last line (a kill or a power cut mid-write) is a note, not a
// failure; a file of a newer or broken format is refused with its reason, and the
// caller names it and goes on.
import { REDACTED } from "./secrets.js";
import { deeperThan, MAX_JSON_DEPTH } from "../jsonrpc/limits.js";
import { addUsage, type Message, type Usage } from "../agent/model.js";
import type { JournalEntry } from "../review/journal.js";
import { blobId, decodeMessage, FORMAT, type SessionHeader, type SessionRecord } from "./format.js";
import { readShown, type ShownCall } from "./shown-record.js";

export interface StoredRun {
  job_id: string;
  prompt: string;
  model: string;
  started: string;
  /** null while the run never ended (the server stopped during it). */
  ended: string | null;
  status: string | null;
  files_changed: string[];
  usage: Usage;
}

export interface StoredSession {
  header: SessionHeader;
  /** Up to the last complete turn. */
  history: Message[];
  /** Changes still to revert, in the order they were applied. */
  journal: JournalEntry[];
  runs: StoredRun[];
  turns: number;
  usage: Usage;
  /** The last record's time. */
  updated: string;
  /** What was skipped on the way (a torn last line), for the user. */
  notes: string[];
  /** Bytes of complete lines: where an append may continue (a torn tail is cut there). */
  completeBytes: number;
  /** The blobs the file holds, so an append does not write them again. */
  blobIds: Set<string>;
  /** By tool call id: the diffs each change's call showed live (validated; absent in older files). */
  shown: Map<string, ShownCall>;
}

export type ReadResult = { ok: true; session: StoredSession } | { ok: false; reason: string };

/** The whole file, as a resume needs it (a list reads a summary through summary-fold.ts instead). */
export function parseSession(text: string): ReadResult {
  const lines = text.split("\n");
  const notes: string[] = [];
  const records: SessionRecord[] = [];
  let completeBytes = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const last = i === lines.length - 1;
    if (line === "") {
      if (!last) completeBytes += 1;
      continue;
    }
    let record: SessionRecord;
    try {
      record = JSON.parse(line) as SessionRecord;
    } catch {
      if (last) {
        notes.push(`the last line (${line.length} bytes) was cut off mid-write and is skipped`);
        break;
      }
      return { ok: false, reason: `line ${i + 1} is not JSON (a broken file)` };
    }
    if (typeof record !== "object" || record === null || typeof record.t !== "string")
      return { ok: false, reason: `line ${i + 1} is not a session record` };
    // Too deep for what walks a record next (the history sent to the model, the client's replay): lockstep never writes one.
    if (deeperThan(record))
      return {
        ok: false,
        reason: `line ${i + 1} nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects (not a file lockstep wrote)`,
      };
    records.push(record);
    // A last line without its newline that still parses is whole; its newline is added before the next append.
    completeBytes += Buffer.byteLength(line) + (last ? 0 : 1);
  }
  const header = records[0];
  if (header?.t !== "session") return { ok: false, reason: "it does not begin with a session header" };
  if (typeof header.format !== "number" || header.format > FORMAT)
    return {
      ok: false,
      reason: `it was written in format ${String(header.format)} by a newer lockstep (this one reads format ${FORMAT})`,
    };
  return { ok: true, session: fold(header, records.slice(1), notes, completeBytes) };
}

function fold(
  header: SessionHeader,
  records: SessionRecord[],
  notes: string[],
  completeBytes: number,
): StoredSession {
  const blobs = new Map<string, string>();
  const history: Message[] = [];
  let pending: Message[] = [];
  let journal: (JournalEntry & { before_id: string | null; after_id: string })[] = [];
  const runs = new Map<string, StoredRun>();
  const usage: Usage = { input_tokens: 0, output_tokens: 0 };
  let turns = 0;
  let updated = header.started;
  // A run's tokens so far, from its last complete turn: what a run the server stopped during used.
  const turnUsage = new Map<string, Usage>();
  const shown = new Map<string, ShownCall>();
  for (const r of records) {
    if ("at" in r) updated = r.at;
    switch (r.t) {
      case "blob":
        blobs.set(r.id, r.content);
        break;
      case "msg":
        pending.push(r.m);
        break;
      case "turn":
        history.push(...pending.map((m) => decodeMessage(m, blobs)));
        pending = [];
        turns++;
        turnUsage.set(r.job_id, r.usage);
        break;
      case "run":
        runs.set(r.job_id, {
          job_id: r.job_id,
          prompt: r.prompt,
          model: r.model,
          started: r.at,
          ended: null,
          status: null,
          files_changed: [],
          usage: { input_tokens: 0, output_tokens: 0 },
        });
        break;
      case "end": {
        // A stopped run's closing note is committed by its end record.
        history.push(...pending.map((m) => decodeMessage(m, blobs)));
        pending = [];
        const run = runs.get(r.job_id);
        const used = r.status === "interrupted" ? (turnUsage.get(r.job_id) ?? r.usage) : r.usage;
        if (run)
          Object.assign(run, { ended: r.at, status: r.status, files_changed: r.files_changed, usage: used });
        addUsage(usage, used);
        break;
      }
      case "journal":
        journal.push({
          job_id: r.job_id,
          tool: r.tool,
          file_path: r.file_path,
          uri: r.uri,
          before: null,
          after: "",
          before_id: r.before,
          after_id: r.after,
        });
        break;
      case "forget":
        journal = journal.filter((e) => !(e.job_id === r.job_id && e.uri === r.uri));
        break;
      case "shown": {
        // The last record of a call is what it showed (a call shown twice sends its diffs again, all of them).
        const read = readShown(r as unknown as Record<string, unknown>);
        if (read) shown.set(read.call_id, read.call);
        break;
      }
      default:
        break;
    }
  }
  // A run that never ended still changed files: they are what its journal entries name.
  for (const run of runs.values()) {
    if (run.ended !== null) continue;
    run.files_changed = [...new Set(journal.filter((e) => e.job_id === run.job_id).map((e) => e.file_path))];
    const used = turnUsage.get(run.job_id);
    if (used) {
      run.usage = used;
      addUsage(usage, used);
    }
  }
  const entries: JournalEntry[] = [];
  for (const { before_id, after_id, ...e } of journal) {
    const after = blobs.get(after_id);
    const before = before_id === null ? null : blobs.get(before_id);
    // An entry whose texts were lost cannot be reverted by content; it is left out.
    if (after === undefined || before === undefined) continue;
    // A text the store redacted is not the file's: reverting by it would write [redacted] into the file.
    if (!intact(after, after_id) || (before !== null && before_id !== null && !intact(before, before_id)))
      continue;
    entries.push({ ...e, before, after });
  }
  return {
    header,
    history,
    journal: entries,
    runs: [...runs.values()],
    turns,
    usage,
    updated,
    notes,
    completeBytes,
    blobIds: new Set(blobs.keys()),
    shown,
  };
}

/** Whether a stored text is the one its id was made from (only a redacted one can differ). */
const intact = (text: string, id: string): boolean => !text.includes(REDACTED) || blobId(text) === id;
