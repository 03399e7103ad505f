// What /proc says of a process (Linux): its resident memory and the CPU time it used.
import { readFile } from "node:fs/promises";

/** Linux's USER_HZ, fixed at 100 on every architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Resident memory of a process. */
export async function rss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kb) * 1024;
}

/** CPU time (user + system, all threads) a process has used so far, in 10 ms ticks. */
export async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}
