// rg run on a repository that is input, not the user: it opens and reads every
// ignore file as it walks, through links, whole. A FIFO named .gitignore makes
// it wait for ever; a .gitignore linked to /dev/zero makes it grow by gigabytes
// a second; a 200 MB one took 7.6 GB and 19 s. The walker reads none of these
// (a regular file only, never through a link, at most 1 MB), so when rg is
// seen waiting or growing, it is ended and the walker answers instead: a false
// alarm costs only speed. Watched through /proc (Linux); elsewhere not at all.
import { readFileSync } from "node:fs";

/** How long rg may use next to no CPU (under 5% of a core) before it is taken to be blocked. */
export const STALL_MS = 3000;

/** The most memory rg may hold (its own search of a tree: tens of MB; a 64 MB line twice over). */
export const MAX_RG_BYTES = 512 * 1024 * 1024;

/**
 * Watches rg's process: `onWrong("stalled")` when it used under 5% of a core for STALL_MS
 * while this thread kept its turns (its idle threads still wake now and then, so "no CPU at
 * all" never comes; a turn of this thread a second late, rg perhaps waiting on a full pipe
 * meanwhile, starts the count again), `onWrong("overgrown")` when it holds over MAX_RG_BYTES.
 * Answers the function that stops watching.
 */
export function watchRipgrep(pid: number, onWrong: (why: "stalled" | "overgrown") => void): () => void {
  // Often enough that memory growing at gigabytes a second is seen within a few hundred MB.
  const EVERY_MS = 100;
  // /proc counts CPU in clock ticks, 100 a second on Linux.
  const mostTicks = (STALL_MS / 1000) * 100 * 0.05;
  const cpu = (): number | undefined => {
    try {
      // Fields after the command's name (which may hold spaces, in parentheses): utime is 14th, stime 15th.
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ");
      return fields === undefined ? undefined : Number(fields[11]) + Number(fields[12]);
    } catch {
      return undefined;
    }
  };
  const residentBytes = (): number => {
    try {
      const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
      return kb === undefined ? 0 : Number(kb) * 1024;
    } catch {
      return 0;
    }
  };
  let since = cpu();
  if (since === undefined) return () => {};
  let tick = performance.now();
  let from = tick;
  const timer = setInterval(() => {
    const now = performance.now();
    const used = cpu();
    // This thread away for a second (busy; rg may have waited on a full pipe meanwhile): count anew.
    const late = now - tick > 1000;
    tick = now;
    if (used === undefined) return;
    if (residentBytes() > MAX_RG_BYTES) {
      clearInterval(timer);
      return onWrong("overgrown");
    }
    if (late) {
      [since, from] = [used, now];
    } else if (now - from >= STALL_MS) {
      if (used - since! <= mostTicks) {
        clearInterval(timer);
        return onWrong("stalled");
      }
      [since, from] = [used, now];
    }
  }, EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
