// A session's summary for the list, folded line by line as the file streams by, in memory
// that does not grow with the file: the message and blob lines (nearly all of the bytes) are
// passed over unread; a turn or journal line lockstep wrote is known by its start and read
// only for the few fields the list needs (its run, and for a journal line its file), and only
// the last turn of a run still open is kept, to be read if the run never ended; every other
// line (a run, its end, a forget) is parsed and checked. A million-record file was read whole,
// split, parsed line by line into a list of records and folded: 2.2 s and 390 MB.
// The file is input: a line that is no record of lockstep's, or too deep, refuses the file by
// name; a torn last line is a note, as when the session is loaded.
import { addUsage, type Usage } from "../agent/model.js";
import { deeperThan, MAX_JSON_DEPTH } from "../jsonrpc/limits.js";
import { FORMAT, titleOf, type SessionHeader } from "./format.js";

export interface FileSummary {
  header: SessionHeader;
  title: string;
  runs: number;
  turns: number;
  files_changed: string[];
  usage: Usage;
  updated: string;
  notes: string[];
}

export type SummaryResult = { ok: true; summary: FileSummary } | { ok: false; reason: string };

/** Line starts passed over unread. */
export const SKIPPED_HEADS = ['{"t":"blob"', '{"t":"msg"', '{"t":"shown"'];
const TURN = /^\{"t":"turn","job_id":"([^"\\]{1,200})",/;
const JOURNAL =
  /^\{"t":"journal","job_id":"([^"\\]{1,200})","tool":"[^"\\]{0,200}","file_path":"([^"\\]{1,4096})","uri":"([^"\\]{1,8192})",/;
/** The head of a line the patterns above are tried on. */
const HEAD_CHARS = 13_000;
/** Distinct changed files a summary lists at most (a list, not an inventory). */
const MAX_FILES = 10_000;

interface OpenRun {
  /** Its last turn line, read for its usage only if the run never ends. */
  lastTurn?: string;
  /** uri → the file paths of its journal entries still standing. */
  journal: Map<string, Set<string>>;
}

type Json = Record<string, unknown>;
const isUsage = (u: unknown): u is Usage =>
  typeof u === "object" &&
  u !== null &&
  Number.isFinite((u as Json)["input_tokens"]) &&
  Number.isFinite((u as Json)["output_tokens"]);
const isString = (v: unknown): v is string => typeof v === "string";

/** A field of a line kept unread (it may be broken: it was only matched by its start). */
function fieldOf(line: string, key: string): unknown {
  try {
    return (JSON.parse(line) as Json)[key];
  } catch {
    return undefined;
  }
}

export class SummaryFold {
  private header: SessionHeader | undefined;
  private lineNo = 0;
  private failure: string | undefined;
  private runCount = 0;
  private firstPrompt: string | undefined;
  private readonly open = new Map<string, OpenRun>();
  private readonly files = new Set<string>();
  private turns = 0;
  private readonly usage: Usage = { input_tokens: 0, output_tokens: 0 };
  private updated: string | undefined;
  /** The last turn or journal line after the last record read whole: its time is read at the end. */
  private lateLine: string | undefined;
  private readonly notes: string[] = [];

  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** A line passed over unread (its start is one of SKIPPED_HEADS). */
  skipped(): void {
    this.lineNo++;
    if (this.header === undefined) this.failure ??= "it does not begin with a session header";
  }

  /** The last line, passed over unread, came without its newline: cut off mid-write. */
  torn(): void {
    this.lineNo++;
    if (this.failure === undefined) this.notes.push("the last line was cut off mid-write and is skipped");
  }

  /** A line longer than the reader keeps. */
  tooLong(maxBytes: number): void {
    this.lineNo++;
    this.failure ??= `line ${this.lineNo} is longer than ${maxBytes} bytes (not a file lockstep wrote)`;
  }

  /** A whole line, its newline cut; `last`: the file's end came without a newline. */
  line(text: string, last = false): void {
    this.lineNo++;
    if (this.failure !== undefined || text === "") return;
    if (this.header !== undefined && !last && this.readInPart(text)) return;
    const passedOver = this.header !== undefined && SKIPPED_HEADS.some((h) => text.startsWith(h));
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      if (last) this.notes.push(`the last line (${text.length} bytes) was cut off mid-write and is skipped`);
      else this.failure = `line ${this.lineNo} is not JSON (a broken file)`;
      return;
    }
    if (typeof record !== "object" || record === null || !isString((record as Json)["t"]))
      return void (this.failure = `line ${this.lineNo} is not a session record`);
    if (deeperThan(record))
      return void (this.failure = `line ${this.lineNo} nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects (not a file lockstep wrote)`);
    if (this.header === undefined) return this.start(record as Json);
    if (passedOver) return;
    if (!this.fold(record as Json))
      this.failure ??= `line ${this.lineNo} is not a session record lockstep wrote`;
  }

  result(): SummaryResult {
    if (this.failure !== undefined) return { ok: false, reason: this.failure };
    if (this.header === undefined) return { ok: false, reason: "it does not begin with a session header" };
    if (this.lateLine !== undefined) {
      const at = fieldOf(this.lateLine, "at");
      if (isString(at)) this.updated = at;
    }
    for (const run of this.open.values()) {
      for (const files of run.journal.values()) for (const file of files) this.addFile(file);
      const usage = run.lastTurn === undefined ? undefined : fieldOf(run.lastTurn, "usage");
      if (isUsage(usage)) addUsage(this.usage, usage);
    }
    const header = this.header;
    return {
      ok: true,
      summary: {
        header,
        title: header.title !== "" ? header.title : titleOf(this.firstPrompt ?? ""),
        runs: this.runCount,
        turns: this.turns,
        files_changed: [...this.files].sort(),
        usage: this.usage,
        updated: this.updated ?? header.started,
        notes: this.notes,
      },
    };
  }

  private start(record: Json): void {
    if (record["t"] !== "session") return void (this.failure = "it does not begin with a session header");
    if (typeof record["format"] !== "number" || record["format"] > FORMAT)
      return void (this.failure = `it was written in format ${String(record["format"])} by a newer lockstep (this one reads format ${FORMAT})`);
    const strings = ["id", "started", "provider"].every((k) => isString(record[k]));
    const model = record["model"];
    const title = record["title"];
    if (
      !strings ||
      !(model === null || model === undefined || isString(model)) ||
      !(title === undefined || isString(title))
    )
      return void (this.failure = "its session header is not one lockstep wrote");
    this.header = { ...(record as unknown as SessionHeader), model: model ?? null, title: title ?? "" };
  }

  /** A turn or journal line as lockstep writes it, taken without parsing it whole; false for any other. */
  private readInPart(text: string): boolean {
    if (text.startsWith('{"t":"turn"')) {
      const m = TURN.exec(text.slice(0, HEAD_CHARS));
      if (!m) return false;
      this.turns++;
      const run = this.open.get(m[1]!);
      if (run) run.lastTurn = text;
      this.lateLine = text;
      return true;
    }
    if (text.startsWith('{"t":"journal"')) {
      const m = JOURNAL.exec(text.slice(0, HEAD_CHARS));
      if (!m) return false;
      this.entry(m[1]!, m[3]!, m[2]!);
      this.lateLine = text;
      return true;
    }
    return false;
  }

  /** One record read whole; false when it is not the shape lockstep writes for its kind. */
  private fold(r: Json): boolean {
    if ("at" in r) {
      if (!isString(r["at"])) return false;
      this.updated = r["at"];
      this.lateLine = undefined;
    }
    const job = r["job_id"];
    switch (r["t"]) {
      case "turn":
        if (!isString(job) || !isUsage(r["usage"])) return false;
        this.turns++;
        if (this.open.has(job)) this.open.get(job)!.lastTurn = JSON.stringify({ usage: r["usage"] });
        return true;
      case "journal":
        if (!isString(job) || !isString(r["file_path"]) || !isString(r["uri"])) return false;
        this.entry(job, r["uri"], r["file_path"]);
        return true;
      case "forget":
        if (!isString(job) || !isString(r["uri"])) return false;
        this.open.get(job)?.journal.delete(r["uri"]);
        return true;
      case "run":
        if (!isString(job) || !isString(r["prompt"])) return false;
        this.runCount++;
        this.firstPrompt ??= r["prompt"];
        this.open.set(job, { journal: new Map() });
        return true;
      case "end":
        return this.end(r);
      default:
        return true;
    }
  }

  private end(r: Json): boolean {
    const job = r["job_id"];
    const files = r["files_changed"];
    if (!isString(job) || !isUsage(r["usage"]) || !Array.isArray(files) || !files.every(isString))
      return false;
    const run = this.open.get(job);
    // A stopped run's tokens are its last complete turn's, as when the session is loaded.
    const turn = r["status"] === "interrupted" && run?.lastTurn ? fieldOf(run.lastTurn, "usage") : undefined;
    addUsage(this.usage, isUsage(turn) ? turn : r["usage"]);
    if (run) {
      for (const f of files) this.addFile(f);
      this.open.delete(job);
    }
    return true;
  }

  private entry(job: string, uri: string, file: string): void {
    const journal = this.open.get(job)?.journal;
    if (!journal) return;
    const files = journal.get(uri) ?? new Set<string>();
    if (files.size < MAX_FILES) files.add(file);
    journal.set(uri, files);
  }

  private addFile(file: string): void {
    if (this.files.size < MAX_FILES) this.files.add(file);
  }
}
