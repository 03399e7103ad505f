// What the runner's and the sandbox's tests share: a request with defaults, a scratch root,
// and whether a process still runs (a zombie does not).
import { mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RunRequest } from "../../server/src/commands/index.js";

export function scratchRoot(): string {
  return realpathSync(mkdtempSync(path.join(tmpdir(), "lockstep-commands-")));
}

export function request(command: string, cwd: string, more: Partial<RunRequest> = {}): RunRequest {
  return {
    command,
    cwd,
    timeoutMs: 60_000,
    signal: new AbortController().signal,
    env: process.env,
    remove: [],
    secrets: [],
    ...more,
  };
}

export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Waits (on a poll, bounded) until `check` holds; names what it waited for when it does not. */
export async function eventually(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The pid a command wrote to `file` under `root`, once it is there. */
export async function pidIn(root: string, file: string): Promise<number> {
  let pid = NaN;
  await eventually(() => {
    try {
      pid = Number(readFileSync(path.join(root, file), "utf8").trim());
    } catch {
      return false;
    }
    return Number.isInteger(pid) && pid > 0;
  }, `${file} to name a pid`);
  return pid;
}

/**
 * Waits until `pid` has ended: a SIGKILL sent to its group reaches it at once, but on a loaded
 * machine it may run on for a moment. One that was never killed stays and fails, after 5 s.
 */
export function ended(pid: number): Promise<void> {
  return eventually(() => !running(pid), `process ${pid} to end`, 5_000);
}
