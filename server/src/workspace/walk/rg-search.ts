// search_files through ripgrep, giving what the JavaScript search gives. rg
// lists the walk's files (`--files`) and, at the same time, names the files
// whose raw bytes hold the pattern's required text (`--files-with-matches
// --fixed-strings --text`): every file the pattern can match a line of, most
// often a handful. Those files are then searched exactly as the JavaScript
// search searches a file, on its watched threads (so the binary, UTF-8 and
// line rules are its own, and a catastrophic pattern is still stopped), open
// buffers by their unsaved text instead of their disk copies, in walk order.
// Whatever rg cannot do alike gives a reason: the caller searches in JavaScript.
import { promises as fs } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { fail, succeed, type Outcome } from "../../shared/outcome.js";
import { MAX_FILE_BYTES } from "../disk.js";
import type { Workspace } from "../workspace.js";
import { displayName, type WalkedFile } from "../walk.js";
import type { SearchItem } from "./file-scan.js";
import { IGNORE_FILES, IgnoreRules } from "./ignore-rules.js";
import { requiredLiterals } from "./required-literal.js";
import { ripgrep, runRecords, walkFlags, type Ripgrep } from "./ripgrep.js";
import { batchFailure, FILE_TIME_LIMIT_MS } from "./search-failure.js";
import type { SearchMatch, SearchResult, TreeSearch } from "./search-types.js";
import { runBatch, SEARCH_THREADS, type BatchOutcome } from "./search-worker.js";
import { walkOrder } from "./walk-order.js";

/** Files listed at most (past it, the JavaScript walk streams instead of holding every name). */
const MAX_LISTED = 200_000;
/** Files sent to a search thread at once. */
const BATCH_FILES = 64;

interface Plan {
  rg: Ripgrep;
  start: { root: string; rel: string };
  skipNamed: boolean;
  needles: string[];
  ignoreCase: boolean;
  /** The root's ignore files, for a start below it (.gitignore first: .ignore overrides it). */
  ignoreFiles: string[];
}

/** Why this search goes to JavaScript, or the plan for rg. */
export async function planRipgrep(
  workspace: Workspace,
  request: TreeSearch,
  rg: Ripgrep | undefined = ripgrep(),
): Promise<Plan | string> {
  if (!rg) return "rg is not used";
  const scope = request.scope;
  if (scope.kind !== "tree") return "one file";
  if (scope.starts.length !== 1) return "several roots";
  const start = scope.starts[0]!;
  if (workspace.sandbox.roots.some((r) => r !== start.root && r.startsWith(start.root + path.sep)))
    return "a root nested in another";
  const ignoreCase = request.pattern.flags.includes("i");
  const needles = requiredLiterals(request.pattern.source, ignoreCase);
  if (needles === undefined || needles.some((n) => n === "" || n.includes("\n")))
    return "no required text in the pattern";
  // rg reads ignore files from the start down. Above a start below the root, the root's own
  // are given to rg (their patterns are relative to rg's directory, the root); any deeper, JavaScript.
  const names = start.rel === "" ? [] : start.rel.split("/");
  const ignoreFiles: string[] = [];
  for (let i = 0; i < names.length; i++) {
    const dir = path.join(start.root, ...names.slice(0, i));
    for (const name of [...IGNORE_FILES, ".rgignore"]) {
      const stats = await fs.lstat(path.join(dir, name)).catch(() => undefined);
      if (stats === undefined) continue;
      if (i > 0 || !stats.isFile() || name === ".rgignore")
        return "ignore files above the directory searched";
      ignoreFiles.push(path.join(dir, name));
    }
  }
  // A start the root's rules ignore was named on purpose: the walker keeps only its own rules below it.
  if (ignoreFiles.length > 0 && (await IgnoreRules.above(start.root, start.rel)) === IgnoreRules.none)
    return "the directory searched is ignored";
  const skipNamed = !scope.namesSkipped && !/(^|\/)(node_modules|\.git)(\/|$)/.test(start.rel);
  return { rg, start, skipNamed, needles, ignoreCase, ignoreFiles };
}

/** The search through rg, or undefined when it cannot give the JavaScript search's answer. */
export async function searchWithRipgrep(
  workspace: Workspace,
  request: TreeSearch,
  plan: Plan,
): Promise<Outcome<SearchResult> | undefined> {
  const { rg, start, signal } = { ...plan, signal: request.signal };
  const where = start.rel === "" ? "." : start.rel;
  const flags = [
    ...walkFlags(plan.skipNamed, MAX_FILE_BYTES),
    ...plan.ignoreFiles.flatMap((f) => ["--ignore-file", f]),
  ];
  const names: string[] = [];
  let rgIgnore = false;
  const listing = runRecords(
    rg,
    start.root,
    [...flags, "--files", "--null", "--", where],
    { separator: 0, maxRecord: 64 * 1024, maxTotal: 64 * 1024 * 1024, signal },
    (record) => {
      const rel = relOf(record.toString("utf8"));
      if (rel.endsWith(".rgignore") && (rel === ".rgignore" || rel.endsWith("/.rgignore"))) rgIgnore = true;
      names.push(rel);
      return names.length <= MAX_LISTED && !rgIgnore;
    },
  );
  const candidates = new Set<string>();
  const searching = runRecords(
    rg,
    start.root,
    [
      ...flags,
      "--files-with-matches",
      "--null",
      "--text",
      "--fixed-strings",
      plan.ignoreCase ? "--ignore-case" : "--case-sensitive",
      ...plan.needles.flatMap((n) => ["--regexp", n]),
      "--",
      where,
    ],
    { separator: 0, maxRecord: 64 * 1024, maxTotal: 64 * 1024 * 1024, signal },
    (record) => {
      candidates.add(relOf(record.toString("utf8")));
      return candidates.size <= MAX_LISTED;
    },
  );
  const [listed, found] = await Promise.all([listing, searching]);
  if (signal.aborted || listed === "aborted" || found === "aborted")
    return fail("cancelled", "Cancelled: the search stopped; nothing else was done.");
  if (
    listed !== "done" ||
    found !== "done" ||
    rgIgnore ||
    names.length > MAX_LISTED ||
    candidates.size > MAX_LISTED
  )
    return undefined;
  const files = walkOrder(request.include ? names.filter(request.include) : names);
  return judge(workspace, request, start.root, files, candidates);
}

/** The candidate files and open buffers searched in walk order on the search threads; files_searched counts every listed file. */
async function judge(
  workspace: Workspace,
  request: TreeSearch,
  root: string,
  files: string[],
  candidates: Set<string>,
): Promise<Outcome<SearchResult>> {
  const sandbox = workspace.sandbox;
  const matches: SearchMatch[] = [];
  let found = 0;
  let searched = files.length;
  let index = 0;
  const gather = async (): Promise<{ indexes: number[]; items: SearchItem[] }> => {
    const batch: { indexes: number[]; items: SearchItem[] } = { indexes: [], items: [] };
    for (; index < files.length && batch.items.length < BATCH_FILES; index++) {
      const rel = files[index]!;
      const abs = path.join(root, rel);
      const uri = fileUri(abs);
      if (workspace.heldInMemory(uri)) {
        const state = await workspace.read({ abs, rel, uri, root, exists: true });
        batch.items.push(state.ok ? { text: state.value.content } : { abs });
      } else if (candidates.has(rel)) batch.items.push({ abs });
      else continue;
      batch.indexes.push(index);
    }
    return batch;
  };
  // As the JavaScript search does: batches in walk order on several threads, answers taken in that order.
  const stop = new SharedArrayBuffer(4);
  const inFlight: { indexes: number[]; running: Promise<BatchOutcome> }[] = [];
  try {
    for (;;) {
      while (
        index < files.length &&
        found <= request.maxResults &&
        inFlight.length < (request.threads ?? SEARCH_THREADS)
      ) {
        const batch = await gather();
        if (batch.items.length === 0) continue;
        const running = runBatch(
          {
            items: batch.items,
            pattern: request.pattern,
            limit: request.maxResults + 1 - found,
            maxBytes: MAX_FILE_BYTES,
            stop,
          },
          request.signal,
          request.fileTimeLimitMs ?? FILE_TIME_LIMIT_MS,
        );
        inFlight.push({ indexes: batch.indexes, running });
      }
      const head = inFlight.shift();
      if (head === undefined) break;
      const outcome = await head.running;
      if (outcome.kind !== "done") {
        const walked = head.indexes.map((i) => fileOf(root, files[i]!));
        return batchFailure(outcome, walked, sandbox, request);
      }
      outcome.answers.forEach((answer, i) => {
        const at = head.indexes[i]!;
        for (const m of answer.matches) {
          if (found++ === request.maxResults) searched = Math.min(searched, at + 1);
          if (found > request.maxResults) continue;
          matches.push({ file_path: displayName(sandbox, root, files[at]!), line: m.line, text: m.text });
        }
      });
      if (found > request.maxResults) Atomics.store(new Int32Array(stop), 0, 1);
    }
  } finally {
    Atomics.store(new Int32Array(stop), 0, 1);
  }
  if (request.signal.aborted)
    return fail("cancelled", "Cancelled: the search stopped; nothing else was done.");
  return succeed({ matches, files_searched: searched, truncated: found > request.maxResults });
}

/** pathToFileURL's answer, made directly for the paths it would not escape (most of a tree; 16,000 URLs cost 100 ms). */
function fileUri(abs: string): string {
  return /^\/[A-Za-z0-9/._-]*$/.test(abs) && !/\/\/|\/\.\.?(\/|$)/.test(abs)
    ? `file://${abs}`
    : pathToFileURL(abs).href;
}

function fileOf(root: string, rel: string): WalkedFile {
  return { root, rel, abs: path.join(root, rel) };
}

function relOf(name: string): string {
  return name.startsWith("./") ? name.slice(2) : name;
}
