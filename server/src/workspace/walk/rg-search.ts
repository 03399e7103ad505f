// search_files through ripgrep, giving what the JavaScript search gives. rg
// lists the walk's files (`--files`) and, at the same time, finds the lines
// holding the pattern's required text (`--fixed-strings`, raw bytes): a
// superset of the matching lines. The JavaScript pattern then decides each such
// line on a watched search thread (so a catastrophic pattern is still stopped),
// a file with such lines is checked for the binary and UTF-8 rules, open
// buffers are searched by their unsaved text instead of their disk copies, and
// everything is put in walk order. Whatever rg cannot do alike gives undefined:
// the caller searches in JavaScript (see `fallbackReason`).
import { constants, promises as fs } from "node:fs";
import { isUtf8 } from "node:buffer";
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
import type { SearchMatch, SearchResult, TreeSearch } from "./search-tree.js";
import { runBatch } from "./search-worker.js";
import { walkOrder } from "./walk-order.js";

/** Files listed at most (past it, the JavaScript walk streams instead of holding every name). */
const MAX_LISTED = 200_000;
/** Bytes of rg's match records held at most, and the longest one. */
const MAX_CANDIDATE_BYTES = 24 * 1024 * 1024;
const MAX_RECORD_BYTES = 8 * 1024 * 1024;
/** Files checked for the text rules at once. */
const CHECKS_AHEAD = 4;
/** Lines sent to a search thread at once. */
const BATCH_ITEMS = 512;

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
export async function planRipgrep(workspace: Workspace, request: TreeSearch): Promise<Plan | string> {
  const rg = ripgrep();
  if (!rg) return "rg is not installed";
  const scope = request.scope;
  if (scope.kind !== "tree") return "one file";
  if (scope.starts.length !== 1) return "several roots";
  const start = scope.starts[0]!;
  if (workspace.sandbox.roots.some((r) => r !== start.root && r.startsWith(start.root + path.sep)))
    return "a root nested in another";
  // Lookarounds see past a line's end, where rg's lines do not; their results could differ.
  if (/\(\?<?[=!]/.test(request.pattern.source)) return "a lookaround";
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

interface Candidate {
  lines: { line: number; text: string }[];
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
  const candidates = new Map<string, Candidate>();
  let held = 0;
  const searching = runRecords(
    rg,
    start.root,
    [
      ...flags,
      "--json",
      "--text",
      "--encoding",
      "none",
      "--fixed-strings",
      plan.ignoreCase ? "--ignore-case" : "--case-sensitive",
      ...plan.needles.flatMap((n) => ["--regexp", n]),
      "--",
      where,
    ],
    { separator: 10, maxRecord: MAX_RECORD_BYTES, maxTotal: Number.MAX_SAFE_INTEGER, signal },
    (record) => {
      // Only match records matter; they start with {"type":"match".
      if (record.length < 16 || record.toString("latin1", 0, 16) !== '{"type":"match",') return true;
      const m = matchOf(record);
      if (m === undefined) return false;
      let c = candidates.get(m.rel);
      if (c === undefined) candidates.set(m.rel, (c = { lines: [] }));
      // A line that is not UTF-8 marks its file, which the UTF-8 rule then skips.
      if (m.text !== undefined) c.lines.push({ line: m.line, text: m.text });
      held += record.length;
      return held <= MAX_CANDIDATE_BYTES;
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
    held > MAX_CANDIDATE_BYTES
  )
    return undefined;
  const files = walkOrder(request.include ? names.filter(request.include) : names);
  return judge(workspace, request, start.root, files, candidates);
}

/** The candidates decided in walk order by the JavaScript pattern, open buffers searched by their text. */
async function judge(
  workspace: Workspace,
  request: TreeSearch,
  root: string,
  files: string[],
  candidates: Map<string, Candidate>,
): Promise<Outcome<SearchResult>> {
  const sandbox = workspace.sandbox;
  const matches: SearchMatch[] = [];
  let found = 0;
  let searched = files.length;
  const stop = new SharedArrayBuffer(4);
  // Items waiting for a thread: each names its file's place and, for a line, its number.
  let items: SearchItem[] = [];
  let owners: { index: number; line?: number }[] = [];
  const flush = async (): Promise<Outcome<void>> => {
    if (items.length === 0) return succeed(undefined);
    const batch = { items, owners };
    items = [];
    owners = [];
    const outcome = await runBatch(
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
    if (outcome.kind !== "done") {
      const walked = batch.owners.map((o) => fileOf(root, files[o.index]!));
      return batchFailure(outcome, walked, sandbox, request);
    }
    outcome.answers.forEach((answer, i) => {
      const owner = batch.owners[i]!;
      for (const m of answer.matches) {
        if (found++ === request.maxResults) {
          searched = Math.min(searched, owner.index + 1);
          continue;
        }
        if (found > request.maxResults) continue;
        const rel = files[owner.index]!;
        matches.push({
          file_path: displayName(sandbox, root, rel),
          line: owner.line ?? m.line,
          text: m.text,
        });
      }
    });
    return succeed(undefined);
  };
  // The files holding candidates are checked for the text rules a few ahead of the one decided.
  const checks = new Map<number, Promise<boolean>>();
  const ahead = files.flatMap((rel, index) => (candidates.has(rel) ? [index] : []));
  let next = 0;
  const checkAhead = (): void => {
    while (next < ahead.length && checks.size < CHECKS_AHEAD) {
      const index = ahead[next++]!;
      checks.set(index, textFile(path.join(root, files[index]!)));
    }
  };
  for (let index = 0; index < files.length && found <= request.maxResults; index++) {
    if (request.signal.aborted) break;
    const rel = files[index]!;
    const file = fileOf(root, rel);
    const uri = fileUri(file.abs);
    if (workspace.heldInMemory(uri)) {
      const state = await workspace.read({ abs: file.abs, rel, uri, root, exists: true });
      items.push(state.ok ? { text: state.value.content } : { abs: file.abs });
      owners.push({ index });
    } else {
      const c = candidates.get(rel);
      if (c === undefined) continue;
      checkAhead();
      const text = await checks.get(index);
      checks.delete(index);
      if (text !== true) continue;
      for (const l of c.lines) {
        items.push({ text: l.text.endsWith("\n") ? l.text.slice(0, -1) : l.text });
        owners.push({ index, line: l.line });
      }
    }
    if (items.length >= BATCH_ITEMS) {
      const done = await flush();
      if (!done.ok) return done;
    }
  }
  const done = await flush();
  if (!done.ok) return done;
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

function matchOf(record: Buffer): { rel: string; line: number; text?: string } | undefined {
  try {
    const data = (JSON.parse(record.toString("utf8")) as { data: RgMatch }).data;
    if (typeof data.path.text !== "string" || typeof data.line_number !== "number") return undefined;
    const rel = relOf(data.path.text);
    return typeof data.lines.text === "string"
      ? { rel, line: data.line_number, text: data.lines.text }
      : { rel, line: data.line_number };
  } catch {
    return undefined;
  }
}

interface RgMatch {
  path: { text?: string };
  line_number?: number;
  lines: { text?: string };
}

/**
 * Whether a file passes the search's rules for text: a regular file, no NUL in
 * its first 8 KB, valid UTF-8 throughout (read 256 KB at a time, cut between characters).
 */
async function textFile(abs: string): Promise<boolean> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(
      abs,
      constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0),
    );
    const stats = await handle.stat();
    if (!stats.isFile() || stats.size > MAX_FILE_BYTES) return false;
    const buffer = Buffer.allocUnsafe(Math.min(256 * 1024, stats.size + 1));
    let filled = 0;
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
      if (total < 8192 && buffer.subarray(filled, filled + Math.min(bytesRead, 8192 - total)).includes(0))
        return false;
      total += bytesRead;
      filled += bytesRead;
      if (total > MAX_FILE_BYTES) return false;
      const eof = bytesRead === 0;
      // Checked up to the last character's first byte (it may be cut), the rest kept for the next read.
      let end = filled;
      if (!eof) {
        let i = filled - 1;
        while (i > 0 && filled - i < 4 && (buffer[i]! & 0xc0) === 0x80) i--;
        if (buffer[i]! >= 0xc0) end = i;
      }
      if (!isUtf8(buffer.subarray(0, end))) return false;
      buffer.copy(buffer, 0, end, filled);
      filled -= end;
      if (eof) return true;
    }
  } catch {
    return false;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
