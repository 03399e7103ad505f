// The files rg named, searched as the JavaScript search searches a file (on its
// watched threads, with its binary, UTF-8 and line rules), and their matches put
// in walk order. A file is searched as soon as rg names it, while rg goes on
// walking (its order is not the walk's, so answers wait in a map), up to a
// budget of files and matches; after rg ends, the rest are searched in walk
// order only as far as the matches wanted reach. Open buffers are searched by
// their unsaved text, after rg ends (their disk copies do not count).
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fail, succeed, type Outcome } from "../../shared/outcome.js";
import { MAX_FILE_BYTES } from "../disk.js";
import type { Workspace } from "../workspace.js";
import { displayName, type WalkedFile } from "../walk.js";
import { isWalked, type WalkStart } from "./walker.js";
import type { ItemAnswer, SearchItem } from "./file-scan.js";
import type { Listing } from "./rg-listing.js";
import { fileUri } from "./file-uri.js";
import { searchBatches, type Batch } from "./search-batches.js";
import { batchFailure, FILE_TIME_LIMIT_MS } from "./search-failure.js";
import type { SearchMatch, SearchResult, TreeSearch } from "./search-types.js";
import { judgeThreads, runBatch, searchesHere, type BatchOutcome } from "./search-worker.js";
import { walkCompare } from "./walk-order.js";

/** Files a thread is given at once: small, so that a few large files spread over the threads. */
const BATCH_FILES = 4;
/** Files searched ahead of the walk order at most (their answers are held until it reaches them). */
const EAGER_FILES = 256;
/** From this size a file's lines holding the required text are located by rg, not found and counted here (256 KB and 1 MB measured alike within the noise; 256 KB held the server 4-6 MB lower). */
const LOCATE_BYTES = 256 * 1024;

/** Where each file's lines holding the required text are (SearchItem.lines), for the files rg named them all in. */
export type Locate = (rels: string[]) => Promise<Map<string, number[]>>;

interface Queued {
  file: WalkedFile;
  lines?: number[];
}

export class CandidateJudge {
  private readonly root: string;
  private readonly prefix: string;
  private readonly answers = new Map<string, ItemAnswer>();
  private readonly running = new Set<Promise<void>>();
  private queued: Queued[] = [];
  /** Files whose size is being asked (before they are queued), and the large ones to locate. */
  private readonly sizing = new Set<Promise<void>>();
  private large: WalkedFile[] = [];
  /** rg locating a group of large files' lines (one at a time; the next group waits). */
  private locating: Promise<void> | undefined;
  /** rg did not finish: nothing more is sent to the threads. */
  private abandoned = false;
  private eagerFiles = 0;
  private heldMatches = 0;
  private failed: { outcome: Exclude<BatchOutcome, { kind: "done" }>; files: WalkedFile[] } | undefined;
  private readonly stop = new SharedArrayBuffer(4);

  constructor(
    private readonly workspace: Workspace,
    private readonly request: TreeSearch,
    private readonly start: WalkStart,
    private readonly namesSkipped: boolean,
    /** The walk's listing (rg's), for what needs its names; undefined if rg failed. */
    private readonly listed: () => Promise<Listing | undefined>,
    private readonly locate?: Locate,
  ) {
    this.root = start.root;
    this.prefix = start.root.endsWith(path.sep) ? start.root : start.root + path.sep;
  }

  /** A file rg found the required text in (rg still walking): searched now, within the budget. */
  offer(rel: string): void {
    if (this.eagerFiles >= EAGER_FILES || this.heldMatches > this.request.maxResults) return;
    if (this.workspace.heldInMemory(fileUri(this.prefix + rel))) return;
    this.eagerFiles++;
    const file = { root: this.root, rel, abs: this.prefix + rel };
    if (this.locate === undefined) return this.enqueue({ file });
    const sized = fs.stat(file.abs).then(
      (stats) => {
        if (stats.size < LOCATE_BYTES) return this.enqueue({ file });
        this.large.push(file);
        this.locateNext();
      },
      () => this.enqueue({ file }),
    );
    const tracked = sized.finally(() => this.sizing.delete(tracked));
    this.sizing.add(tracked);
  }

  private enqueue(queued: Queued): void {
    this.queued.push(queued);
    this.dispatch(false);
  }

  /** The large files named so far located by rg, then queued (those rg could not name every line of, without). */
  private locateNext(): void {
    if (this.locating !== undefined || this.large.length === 0 || this.locate === undefined) return;
    const large = this.large;
    this.large = [];
    const located = this.locate(large.map((f) => f.rel)).catch(() => new Map<string, number[]>());
    this.locating = located.then((located) => {
      for (const file of large) {
        const lines = located.get(file.rel);
        this.queued.push(lines === undefined ? { file } : { file, lines });
      }
      this.dispatch(false);
      this.locating = undefined;
      this.locateNext();
    });
  }

  /** Every file named so far sized, and the large ones located. */
  private async locateLarge(): Promise<void> {
    while (this.sizing.size > 0) await Promise.all(this.sizing);
    while (this.locating !== undefined) await this.locating;
  }

  /** Sends the queued files to a free thread, a batch at a time (`all`: a short last batch too). */
  private dispatch(all: boolean): void {
    while (
      !this.abandoned &&
      this.running.size < judgeThreads() &&
      (this.queued.length >= BATCH_FILES || (all && this.queued.length > 0))
    )
      this.send(this.queued.splice(0, BATCH_FILES), all);
  }

  private send(queued: Queued[], all: boolean): void {
    const request = this.request;
    const files = queued.map((q) => q.file);
    const done = runBatch(
      {
        items: queued.map((q) => (q.lines ? { abs: q.file.abs, lines: q.lines } : { abs: q.file.abs })),
        pattern: request.pattern,
        limit: request.maxResults + 1,
        each: true,
        maxBytes: MAX_FILE_BYTES,
        stop: this.stop,
      },
      request.signal,
      request.fileTimeLimitMs ?? FILE_TIME_LIMIT_MS,
      searchesHere(request.pattern),
    ).then((outcome) => {
      if (outcome.kind !== "done") {
        this.failed ??= { outcome, files };
        return;
      }
      outcome.answers.forEach((answer, i) => {
        // Past the batch's limit a file is not reached: it is searched in walk order if wanted.
        if (answer.skipped === "not_reached") return;
        this.answers.set(files[i]!.rel, answer);
        this.heldMatches += answer.matches.length;
      });
    });
    const tracked = done.finally(() => {
      this.running.delete(tracked);
      this.dispatch(all);
    });
    this.running.add(tracked);
  }

  /** rg did not finish (the caller searches in JavaScript): what was started ahead stops. */
  async abandon(): Promise<void> {
    this.eagerFiles = EAGER_FILES;
    this.abandoned = true;
    Atomics.store(new Int32Array(this.stop), 0, 1);
    await this.locateLarge();
    while (this.running.size > 0) await Promise.all(this.running);
  }

  /**
   * The answer once rg has named its `candidates` and counted the files it searched
   * (`searched`; undefined: count the listing): files_searched counts every file walked,
   * or, when matches were left out, those in walk order up to the file where the first
   * one left out turned up. Undefined when the listing was needed and rg could not give it.
   */
  async finish(
    candidates: readonly string[],
    searched: number | undefined,
  ): Promise<Outcome<SearchResult> | undefined> {
    const { workspace, request, root, prefix } = this;
    const sandbox = workspace.sandbox;
    await this.locateLarge();
    this.dispatch(true);
    try {
      while (this.running.size > 0) await Promise.all(this.running);
    } finally {
      // Searched ahead is all that was wanted ahead: nothing more is offered.
      this.eagerFiles = EAGER_FILES;
    }
    if (this.failed) return batchFailure(this.failed.outcome, this.failed.files, sandbox, request);
    const held = await this.heldFiles();
    if (held === undefined) return undefined;
    const wanted = [...new Set([...candidates, ...held])].sort(walkCompare);
    const matches: SearchMatch[] = [];
    let found = 0;
    let lastCounted: string | undefined;
    // Files taken in walk order as far as their answers are in (searched ahead, or just now).
    let taken = 0;
    const take = (): number => {
      for (; taken < wanted.length && found <= request.maxResults; taken++) {
        const rel = wanted[taken]!;
        const answer = this.answers.get(rel);
        if (answer === undefined) break;
        for (const m of answer.matches) {
          if (found++ === request.maxResults) lastCounted = rel;
          if (found > request.maxResults) break;
          matches.push({ file_path: displayName(sandbox, root, rel), line: m.line, text: m.text });
        }
      }
      return request.maxResults + 1 - found;
    };
    take();
    let index = taken;
    const next = async (): Promise<Batch | undefined> => {
      const batch: Batch = { files: [], items: [] };
      for (; index < wanted.length && batch.items.length < BATCH_FILES; index++) {
        const rel = wanted[index]!;
        if (this.answers.has(rel)) continue;
        const file = { root, rel, abs: prefix + rel };
        const uri = fileUri(file.abs);
        let item: SearchItem = { abs: file.abs };
        if (workspace.heldInMemory(uri)) {
          const state = await workspace.read({ ...file, uri, exists: true });
          if (state.ok) item = { text: state.value.content };
        }
        batch.files.push(file);
        batch.items.push(item);
      }
      return batch.items.length === 0 ? undefined : batch;
    };
    const outcome =
      found > request.maxResults
        ? succeed(undefined)
        : await searchBatches(
            next,
            { threads: judgeThreads(), ...request },
            sandbox,
            (batch, answers) => {
              answers.forEach((answer, i) => this.answers.set(batch.files[i]!.rel, answer));
              return take();
            },
            searchesHere(request.pattern),
          );
    Atomics.store(new Int32Array(this.stop), 0, 1);
    if (!outcome.ok) return outcome;
    if (request.signal.aborted)
      return fail("cancelled", "Cancelled: the search stopped; nothing else was done.");
    take();
    let counted = lastCounted === undefined ? searched : undefined;
    if (counted === undefined) {
      const listed = await this.listed();
      if (listed === undefined) return undefined;
      counted = lastCounted === undefined ? listed.count : countUpTo(listed, lastCounted);
    }
    return succeed({ matches, files_searched: counted, truncated: found > request.maxResults });
  }

  /**
   * The walked files the editor holds (searched by their unsaved text): its buffers below the
   * start, each asked of the walk's rules, or, for an editor that cannot list its buffers, the
   * listing asked of the editor file by file. Undefined when that listing could not be had.
   */
  private async heldFiles(): Promise<string[] | undefined> {
    const { workspace, request, prefix } = this;
    const uris = workspace.heldUris();
    if (uris === undefined) {
      const listed = await this.listed();
      if (listed === undefined) return undefined;
      const held: string[] = [];
      for (const rel of listed.names()) if (workspace.heldInMemory(fileUri(prefix + rel))) held.push(rel);
      return held;
    }
    const base = fileUri(prefix);
    const held: string[] = [];
    for (const uri of new Set(uris)) {
      if (!uri.startsWith(base) || !workspace.heldInMemory(uri)) continue;
      const rel = fileURLToPath(uri).slice(prefix.length);
      if (request.include && !request.include(rel)) continue;
      if (await isWalked(this.start, rel, this.namesSkipped)) held.push(rel);
    }
    return held;
  }
}

/** The listed files up to `last` in walk order, `last` included. */
function countUpTo(listed: Listing, last: string): number {
  let n = 0;
  for (const rel of listed.names()) if (walkCompare(rel, last) <= 0) n++;
  return n;
}
