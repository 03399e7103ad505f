// ripgrep, where it is installed: found once on PATH (LOCKSTEP_SEARCH chooses),
// run with the walk's own ignore rules spelled as flags, its output read
// record by record with a bound on each record and on the whole, so a tree of any
// size or a line of any length costs bounded memory (past a bound the caller
// falls back to the JavaScript search). Knows nothing of patterns or results.
import { spawn, spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";

export interface Ripgrep {
  path: string;
  version: string;
}

let found: Ripgrep | null | undefined;

/**
 * The search that runs: rg only with LOCKSTEP_SEARCH=rg. Left unset, JavaScript: on two cores it
 * answered as soon as rg listing and searching beside it (benchmarks.md), and below a nested git
 * repository rg stops applying the outer .gitignore files, so it would search files the walker
 * leaves out: a different answer, which the default must never give.
 */
export function ripgrep(): Ripgrep | undefined {
  return process.env["LOCKSTEP_SEARCH"] === "rg" ? findRipgrep() : undefined;
}

/** The rg on PATH, whatever the choice (undefined when absent or too old to have --json). */
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
    if (version && Number(version[1]) >= 11) found = { path: candidate, version: version[0] };
    break;
  }
  return found ?? undefined;
}

/** What the search runs on, for `lockstep config` and the server's status. */
export function searchEngine(): string {
  const rg = ripgrep();
  if (rg) return `${rg.version} (${rg.path}), JavaScript where rg cannot give the same answer`;
  if (process.env["LOCKSTEP_SEARCH"] === "rg")
    return "JavaScript (LOCKSTEP_SEARCH=rg, but rg not found on PATH)";
  return findRipgrep()
    ? "JavaScript (rg is installed; LOCKSTEP_SEARCH=rg uses it)"
    : "JavaScript (rg not found on PATH)";
}

/**
 * The walk's rules as rg flags: hidden files seen, .gitignore and .ignore read
 * in and below the start only (none above it, no global or .git/info/exclude,
 * no repository needed), no config file, links not followed, node_modules and
 * .git skipped unless named, and files over `maxBytes` left out.
 */
export function walkFlags(skipNamed: boolean, maxBytes: number): string[] {
  return [
    "--no-config",
    "--hidden",
    "--no-ignore-parent",
    "--no-ignore-global",
    "--no-ignore-exclude",
    "--no-require-git",
    "--max-filesize",
    String(maxBytes),
    ...(skipNamed ? ["--glob", "!node_modules/", "--glob", "!.git/"] : []),
  ];
}

export type RecordsEnd = "done" | "too_large" | "failed" | "aborted";

/**
 * Runs rg in `cwd`, handing each record (a line of its output, or a NUL-ended
 * name with `separator` 0) to `onRecord` as raw bytes; returning false stops it.
 * A record over `maxRecord` bytes or output over `maxTotal` ends it "too_large".
 * Exit status 1 (nothing found) is "done" like 0; anything else is "failed".
 */
export function runRecords(
  rg: Ripgrep,
  cwd: string,
  args: string[],
  options: { separator: number; maxRecord: number; maxTotal: number; signal: AbortSignal },
  onRecord: (record: Buffer) => boolean,
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
    let held: Buffer[] = [];
    let heldBytes = 0;
    let total = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      if (end !== undefined) return;
      total += chunk.length;
      if (total > options.maxTotal) return stop("too_large");
      let from = 0;
      for (
        let at = chunk.indexOf(options.separator);
        at !== -1;
        at = chunk.indexOf(options.separator, from)
      ) {
        const piece = chunk.subarray(from, at);
        const record = heldBytes === 0 ? piece : Buffer.concat([...held, piece]);
        held = [];
        heldBytes = 0;
        from = at + 1;
        if (record.length > options.maxRecord) return stop("too_large");
        if (!onRecord(record)) return stop("done");
      }
      if (from < chunk.length) {
        heldBytes += chunk.length - from;
        if (heldBytes > options.maxRecord) return stop("too_large");
        held.push(chunk.subarray(from));
      }
    });
    child.on("error", () => stop("failed"));
    child.on("close", (code) => {
      options.signal.removeEventListener("abort", abort);
      if (end === undefined && heldBytes > 0 && !onRecord(Buffer.concat(held))) end = "done";
      resolve(end ?? (code === 0 || code === 1 ? "done" : "failed"));
    });
  });
}
