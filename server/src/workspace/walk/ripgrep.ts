// ripgrep, where it is installed: found once on PATH (LOCKSTEP_SEARCH=js declines it),
// run with the walk's own ignore rules spelled as flags, its output read
// record by record with a bound on each record and on the whole, so a tree of any
// size or a line of any length costs bounded memory (past a bound the caller
// falls back to the JavaScript search). Knows nothing of patterns or results.
import { spawn, spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { watchRipgrep } from "./rg-watch.js";

export interface Ripgrep {
  path: string;
  version: string;
  major: number;
}

let found: Ripgrep | null | undefined;

/**
 * The search that runs: rg where it is installed in a version whose reading of ignore files the
 * walker's matches (13 and 14: a nested repository stops the outer .gitignore files, ignore-rules.ts),
 * unless LOCKSTEP_SEARCH=js. Anything else, JavaScript.
 */
export function ripgrep(): Ripgrep | undefined {
  if (process.env["LOCKSTEP_SEARCH"] === "js") return undefined;
  const rg = findRipgrep();
  return rg && MATCHED_MAJORS.includes(rg.major) ? rg : undefined;
}

/** ripgrep versions whose ignore reading is the walker's (read in their source; 13 is what CI runs). */
const MATCHED_MAJORS = [13, 14];

/** The rg on PATH, whatever the choice (undefined when absent or not answering --version). */
export function findRipgrep(): Ripgrep | undefined {
  if (found !== undefined) return found ?? undefined;
  found = null;
  for (const dir of (process.env["PATH"] ?? "").split(path.delimiter)) {
    if (dir === "" || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, "rg");
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    const r = spawnSync(candidate, ["--version"], { encoding: "utf8", timeout: 5000 });
    const version = /^ripgrep (\d+)\.(\d+)\S*/.exec(r.stdout ?? "");
    // The flags used here are all in 11.
    if (version) found = { path: candidate, version: version[0], major: Number(version[1]) };
    break;
  }
  return found ?? undefined;
}

/** What the search runs on, for `lockstep config` and the server's status. */
export function searchEngine(): string {
  const rg = ripgrep();
  if (rg) return `${rg.version} (${rg.path}), JavaScript where rg cannot give the same answer`;
  const installed = findRipgrep();
  if (installed === undefined) return "JavaScript (rg not found on PATH)";
  if (process.env["LOCKSTEP_SEARCH"] === "js")
    return `JavaScript (LOCKSTEP_SEARCH=js; ${installed.version} is installed)`;
  return `JavaScript (${installed.version} is installed, but only ripgrep 13 and 14 read ignore files as lockstep does)`;
}

/**
 * The walk's rules as rg flags: hidden files seen, .gitignore and .ignore read
 * in and below the start only (none above it, no global or .git/info/exclude),
 * no config file, links not followed, node_modules and .git skipped unless
 * named, and files over `maxBytes` left out (every file listed without it). `requireGit` off: .gitignore read
 * outside a repository too (ripgrep 13 then still stops it at a nested one;
 * 14 stops it there only when it requires a repository).
 */
export function walkFlags(skipNamed: boolean, maxBytes: number | undefined, requireGit: boolean): string[] {
  return [
    "--no-config",
    "--hidden",
    "--no-ignore-parent",
    "--no-ignore-global",
    "--no-ignore-exclude",
    ...(requireGit ? [] : ["--no-require-git"]),
    ...(maxBytes === undefined ? [] : ["--max-filesize", String(maxBytes)]),
    ...(skipNamed ? ["--glob", "!node_modules/", "--glob", "!.git/"] : []),
  ];
}

/** How rg ended: "stalled" and "overgrown" are rg-watch.ts's (a FIFO, an endless or huge ignore file). */
export type RecordsEnd = "done" | "too_large" | "failed" | "aborted" | "stalled" | "overgrown";

/**
 * Runs rg in `cwd`, handing each record (a line of its output, or a NUL-ended
 * name with `separator` 0) to `onRecord` as raw bytes; returning false stops it.
 * A record over `maxRecord` bytes or output over `maxTotal` ends it "too_large".
 * Exit status 1 (nothing found) is "done" like 0; anything else is "failed".
 * What follows the last separator goes to `onTail` when given (rg's --stats).
 */
export function runRecords(
  rg: Ripgrep,
  cwd: string,
  args: string[],
  options: { separator: number; maxRecord: number; maxTotal: number; signal: AbortSignal },
  onRecord: (record: Buffer) => boolean,
  onTail?: (tail: Buffer) => void,
): Promise<RecordsEnd> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  return runRg(rg, cwd, args, options, (chunk) => {
    if (chunk === undefined) {
      if (onTail) onTail(Buffer.concat(held));
      else if (heldBytes > 0 && !onRecord(Buffer.concat(held))) return "done";
      return undefined;
    }
    let from = 0;
    for (let at = chunk.indexOf(options.separator); at !== -1; at = chunk.indexOf(options.separator, from)) {
      const piece = chunk.subarray(from, at);
      const record = heldBytes === 0 ? piece : Buffer.concat([...held, piece]);
      held = [];
      heldBytes = 0;
      from = at + 1;
      if (record.length > options.maxRecord) return "too_large";
      if (!onRecord(record)) return "done";
    }
    if (from < chunk.length) {
      heldBytes += chunk.length - from;
      if (heldBytes > options.maxRecord) return "too_large";
      held.push(chunk.subarray(from));
    }
    return undefined;
  });
}

/** rg's whole output, up to `maxTotal` bytes, as one buffer (a listing kept as bytes: no string per name). */
export async function runOutput(
  rg: Ripgrep,
  cwd: string,
  args: string[],
  options: { maxTotal: number; signal: AbortSignal },
): Promise<{ end: RecordsEnd; output: Buffer }> {
  const chunks: Buffer[] = [];
  const end = await runRg(rg, cwd, args, options, (chunk) => void (chunk && chunks.push(chunk)));
  return { end, output: Buffer.concat(chunks) };
}

/**
 * Runs rg, handing its output chunk by chunk to `onChunk` (then undefined at its end); an
 * answer other than undefined stops it with that end.
 */
function runRg(
  rg: Ripgrep,
  cwd: string,
  args: string[],
  options: { maxTotal: number; signal: AbortSignal },
  onChunk: (chunk: Buffer | undefined) => RecordsEnd | undefined,
): Promise<RecordsEnd> {
  return new Promise((resolve) => {
    const child = spawn(rg.path, args, { cwd, stdio: ["ignore", "pipe", "ignore"] });
    let end: RecordsEnd | undefined;
    const stop = (why: RecordsEnd): void => {
      end ??= why;
      child.kill("SIGKILL");
    };
    const abort = (): void => stop("aborted");
    options.signal.addEventListener("abort", abort, { once: true });
    const unwatch = child.pid === undefined ? () => {} : watchRipgrep(child.pid, stop);
    let total = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      if (end !== undefined) return;
      total += chunk.length;
      if (total > options.maxTotal) return stop("too_large");
      const why = onChunk(chunk);
      if (why !== undefined) stop(why);
    });
    child.on("error", () => stop("failed"));
    child.on("close", (code) => {
      unwatch();
      options.signal.removeEventListener("abort", abort);
      if (end === undefined) end = onChunk(undefined);
      resolve(end ?? (code === 0 || code === 1 ? "done" : "failed"));
    });
  });
}
