// What a search of the tree is asked and answers: shared by the JavaScript search
// (search-tree.ts) and the ripgrep path (rg-search.ts), so neither imports the other for it.
import type { Scope } from "../walk.js";
import type { CompiledSearch } from "./line-search.js";

export interface SearchMatch {
  file_path: string;
  line: number;
  text: string;
}

export interface SearchResult {
  matches: SearchMatch[];
  files_searched: number;
  truncated: boolean;
}

export interface TreeSearch {
  pattern: CompiledSearch;
  scope: Scope;
  /** Which walked files to search, by their root-relative path. */
  include?: (rel: string) => boolean;
  maxResults: number;
  signal: AbortSignal;
  /** A file the pattern takes longer than this on stops the search (a catastrophic pattern). */
  fileTimeLimitMs?: number;
  /** Batches searched at once (default: SEARCH_THREADS). */
  threads?: number;
  /** "js": never through ripgrep (the fallback, and what tests compare it with). */
  engine?: "auto" | "js";
}
