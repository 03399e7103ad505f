// The one way files reach the search threads, for the JavaScript search and the
// ripgrep path alike: batches in order, as many at once as there are threads,
// answers taken in that order (so the matches, `truncated` and `files_searched`
// are the same however many threads search), and the threads told to stop once
// enough matches are in. Knows nothing of where the files came from.
import { fail, succeed, type Outcome } from "../../shared/outcome.js";
import { MAX_FILE_BYTES } from "../disk.js";
import type { Workspace } from "../workspace.js";
import type { WalkedFile } from "../walk.js";
import type { ItemAnswer, SearchItem } from "./file-scan.js";
import { batchFailure, FILE_TIME_LIMIT_MS } from "./search-failure.js";
import type { TreeSearch } from "./search-types.js";
import { runBatch, SEARCH_THREADS, type BatchOutcome } from "./search-worker.js";

export interface Batch {
  files: WalkedFile[];
  items: SearchItem[];
}

/**
 * Searches the batches `next` hands out (undefined: no more) until `take`, given each
 * batch's answers in order, says no more matches are wanted (it answers how many still are).
 */
export async function searchBatches(
  next: () => Promise<Batch | undefined>,
  request: TreeSearch,
  sandbox: Workspace["sandbox"],
  take: (batch: Batch, answers: ItemAnswer[]) => number,
  /** Searched in this thread (search-worker.ts searchesHere). */
  here = false,
): Promise<Outcome<void>> {
  const stop = new SharedArrayBuffer(4);
  const inFlight: { batch: Batch; running: Promise<BatchOutcome> }[] = [];
  let wanted = request.maxResults + 1;
  let more = true;
  try {
    for (;;) {
      while (more && wanted > 0 && inFlight.length < (request.threads ?? SEARCH_THREADS)) {
        const batch = await next();
        if (batch === undefined) {
          more = false;
          break;
        }
        if (batch.items.length === 0) continue;
        const running = runBatch(
          { items: batch.items, pattern: request.pattern, limit: wanted, maxBytes: MAX_FILE_BYTES, stop },
          request.signal,
          request.fileTimeLimitMs ?? FILE_TIME_LIMIT_MS,
          here,
        );
        inFlight.push({ batch, running });
      }
      const head = inFlight.shift();
      if (head === undefined) break;
      const outcome = await head.running;
      if (outcome.kind !== "done") return batchFailure(outcome, head.batch.files, sandbox, request);
      wanted = take(head.batch, outcome.answers);
      // Threads still searching stop at their next file.
      if (wanted <= 0) Atomics.store(new Int32Array(stop), 0, 1);
    }
  } finally {
    Atomics.store(new Int32Array(stop), 0, 1);
  }
  if (request.signal.aborted)
    return fail("cancelled", "Cancelled: the search stopped; nothing else was done.");
  return succeed(undefined);
}
