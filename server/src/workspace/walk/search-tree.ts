// search_files' walk: the files of a scope go to the search thread in batches
// (the next batch is gathered while one is searched), open buffers by their
// unsaved text read through the ledger (so a match agrees with what read_file
// returns), every other file by its path, read on that thread.
import { pathToFileURL } from "node:url";
import { fail, succeed, type Outcome } from "../../shared/outcome.js";
import { MAX_FILE_BYTES } from "../disk.js";
import type { Workspace } from "../workspace.js";
import { displayName, scopeFiles, type WalkedFile } from "../walk.js";
import type { SearchItem } from "./file-scan.js";
import { planRipgrep, searchWithRipgrep } from "./rg-search.js";
import { batchFailure, FILE_TIME_LIMIT_MS } from "./search-failure.js";
import type { SearchMatch, SearchResult, TreeSearch } from "./search-types.js";
import { runBatch, SEARCH_THREADS, type BatchOutcome } from "./search-worker.js";

export type { SearchMatch, SearchResult, TreeSearch } from "./search-types.js";

const BATCH_FILES = 256;

/** The search through ripgrep where it can give the same answer (rg-search.ts), else in JavaScript. */
export async function searchTree(workspace: Workspace, request: TreeSearch): Promise<Outcome<SearchResult>> {
  if (request.engine !== "js") {
    const plan = await planRipgrep(workspace, request);
    const fast = typeof plan === "string" ? undefined : await searchWithRipgrep(workspace, request, plan);
    if (fast !== undefined) return fast;
  }
  return searchInJavaScript(workspace, request);
}

async function searchInJavaScript(workspace: Workspace, request: TreeSearch): Promise<Outcome<SearchResult>> {
  const { signal } = request;
  const sandbox = workspace.sandbox;
  const matches: SearchMatch[] = [];
  let searched = 0;
  let truncated = false;
  const files = scopeFiles(request.scope, signal, sandbox.roots);

  const gather = async (): Promise<{ files: WalkedFile[]; items: SearchItem[] }> => {
    const batch: { files: WalkedFile[]; items: SearchItem[] } = { files: [], items: [] };
    while (batch.files.length < BATCH_FILES) {
      const next = await files.next();
      if (next.done === true) break;
      const file = next.value;
      if (request.include && !request.include(file.rel)) continue;
      batch.files.push(file);
      const uri = pathToFileURL(file.abs).href;
      // Most files are not open: no promise made for those (16,000 a search on a large tree).
      batch.items.push(
        workspace.heldInMemory(uri) ? await heldItem(workspace, file, uri) : { abs: file.abs },
      );
    }
    return batch;
  };

  // Batches go to the threads in walk order and their answers are taken in that order, so the
  // matches, `truncated` and `files_searched` are the same however many threads search.
  const stop = new SharedArrayBuffer(4);
  const inFlight: { files: WalkedFile[]; running: Promise<BatchOutcome> }[] = [];
  let walked = false;
  let counting = true;
  let found = 0;
  // The next batch is walked while the threads search: with one thread the walk and the search
  // took turns before (the thread stood idle a quarter of the search, the walk's share).
  let next: ReturnType<typeof gather> | undefined = gather();
  try {
    for (;;) {
      while (!walked && !truncated && inFlight.length < (request.threads ?? SEARCH_THREADS)) {
        const batch = await next!;
        next = undefined;
        if (batch.files.length === 0) walked = true;
        else {
          next = gather();
          const limit = request.maxResults + 1 - matches.length;
          const running = runBatch(
            { items: batch.items, pattern: request.pattern, limit, maxBytes: MAX_FILE_BYTES, stop },
            signal,
            request.fileTimeLimitMs ?? FILE_TIME_LIMIT_MS,
          );
          inFlight.push({ files: batch.files, running });
        }
      }
      const head = inFlight.shift();
      if (head === undefined) break;
      const outcome = await head.running;
      if (outcome.kind !== "done") return batchFailure(outcome, head.files, sandbox, request);
      outcome.answers.forEach((answer, i) => {
        // Counted as one thread would: up to the file where the (max+1)-th match turned up; a
        // binary or unreadable file was looked at, and counts (as rg's listing counts it).
        if (counting && answer.skipped !== "too_large" && answer.skipped !== "not_reached") searched++;
        found += answer.matches.length;
        if (found > request.maxResults) counting = false;
        const file = head.files[i]!;
        for (const m of answer.matches) {
          if (matches.length === request.maxResults) {
            truncated = true;
            break;
          }
          matches.push({ file_path: displayName(sandbox, file.root, file.rel), line: m.line, text: m.text });
        }
      });
      if (truncated) Atomics.store(new Int32Array(stop), 0, 1);
    }
  } finally {
    // Threads still searching stop at their next file and go back to the pool.
    Atomics.store(new Int32Array(stop), 0, 1);
    // A batch walked ahead and not needed (truncated, cancelled or failed) is let finish first:
    // the walk takes one request at a time.
    await next?.catch(() => undefined);
    await files.return(undefined);
  }
  if (signal.aborted) return fail("cancelled", "Cancelled: the search stopped; nothing else was done.");
  return succeed({ matches, files_searched: searched, truncated });
}

/** An open buffer (or an edit the editor has not reported) by its text; by its path if it cannot be read. */
async function heldItem(workspace: Workspace, file: WalkedFile, uri: string): Promise<SearchItem> {
  const state = await workspace.read({ abs: file.abs, rel: file.rel, uri, root: file.root, exists: true });
  return state.ok ? { text: state.value.content } : { abs: file.abs };
}
