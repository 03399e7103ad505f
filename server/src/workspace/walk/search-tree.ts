// search_files' walk: the files of a scope go to the search thread in batches
// (the next batch is gathered while one is searched), open buffers by their
// unsaved text read through the ledger (so a match agrees with what read_file
// returns), every other file by its path, read on that thread.
import { succeed, type Outcome } from "../../shared/outcome.js";
import type { Workspace } from "../workspace.js";
import { displayName, scopeFiles, type WalkedFile } from "../walk.js";
import type { SearchItem } from "./file-scan.js";
import { fileUri } from "./file-uri.js";
import { planRipgrep, searchWithRipgrep } from "./rg-search.js";
import { searchBatches, type Batch } from "./search-batches.js";
import type { SearchMatch, SearchResult, TreeSearch } from "./search-types.js";
import { warmThreads } from "./search-worker.js";

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
  let counting = true;
  let found = 0;
  warmThreads();
  const files = scopeFiles(request.scope, signal, sandbox.roots);

  const gather = async (): Promise<Batch> => {
    const batch: Batch = { files: [], items: [] };
    while (batch.files.length < BATCH_FILES) {
      const next = await files.next();
      if (next.done === true) break;
      const file = next.value;
      if (request.include && !request.include(file.rel)) continue;
      batch.files.push(file);
      const uri = fileUri(file.abs);
      // Most files are not open: no promise made for those (16,000 a search on a large tree).
      batch.items.push(
        workspace.heldInMemory(uri) ? await heldItem(workspace, file, uri) : { abs: file.abs },
      );
    }
    return batch;
  };
  // The next batch is walked while the threads search: with one thread the walk and the search
  // took turns before (the thread stood idle a quarter of the search, the walk's share).
  let ahead: Promise<Batch> | undefined = gather();
  const next = async (): Promise<Batch | undefined> => {
    const batch = await ahead!;
    ahead = batch.files.length === 0 ? undefined : gather();
    return ahead === undefined ? undefined : batch;
  };
  let outcome: Outcome<void>;
  try {
    outcome = await searchBatches(next, request, sandbox, (batch, answers) => {
      answers.forEach((answer, i) => {
        // Counted as one thread would: up to the file where the (max+1)-th match turned up; a
        // binary or unreadable file was looked at, and counts (as rg's listing counts it).
        if (counting && answer.skipped !== "too_large" && answer.skipped !== "not_reached") searched++;
        found += answer.matches.length;
        if (found > request.maxResults) counting = false;
        const file = batch.files[i]!;
        for (const m of answer.matches) {
          if (matches.length === request.maxResults) {
            truncated = true;
            break;
          }
          matches.push({ file_path: displayName(sandbox, file.root, file.rel), line: m.line, text: m.text });
        }
      });
      return request.maxResults + 1 - found;
    });
  } finally {
    // A batch walked ahead and not needed (truncated, cancelled or failed) is let finish first:
    // the walk takes one request at a time.
    await ahead?.catch(() => undefined);
    await files.return(undefined);
  }
  if (!outcome.ok) return outcome;
  return succeed({ matches, files_searched: searched, truncated });
}

/** An open buffer (or an edit the editor has not reported) by its text; by its path if it cannot be read. */
async function heldItem(workspace: Workspace, file: WalkedFile, uri: string): Promise<SearchItem> {
  const state = await workspace.read({ abs: file.abs, rel: file.rel, uri, root: file.root, exists: true });
  return state.ok ? { text: state.value.content } : { abs: file.abs };
}
