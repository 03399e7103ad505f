// The wrapped server's lifetime tied to lockstep's, whatever ends lockstep.
//
// On POSIX the child is started in a process group of its own (a new session),
// through /bin/sh, which leaves behind one watchdog in that group and then execs
// the server (same pid). The watchdog blocks reading a pipe whose other end only
// lockstep holds; when lockstep is gone, by exit, signal or SIGKILL, the kernel
// closes that end, the read returns, and the watchdog kills the whole group: the
// server, whatever it started, and itself. Node has no prctl(PR_SET_PDEATHSIG),
// and this needs no polling. lockstep's own kills go to the group as well.
// Left open: a grandchild that moves to another session or group of its own.
// On Windows the child is spawned directly, and dies by lockstep's exit handler.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import type { Readable } from "node:stream";
import { WATCHDOG } from "../commands/process-group.js";

/** Exit codes of sh's exec when the command is missing or cannot be run. */
const NOT_FOUND = 127;
const NOT_EXECUTABLE = 126;

export const tethered = process.platform !== "win32";

export function spawnTethered(command: string, args: readonly string[]): ChildProcessWithoutNullStreams {
  if (!tethered) return spawn(command, [...args], { stdio: ["pipe", "pipe", "pipe"] });
  const child = spawn("/bin/sh", ["-c", WATCHDOG, command, ...args], {
    stdio: ["pipe", "pipe", "pipe", "pipe"],
    detached: true,
  });
  const lifeline = child.stdio[3] as Readable | null;
  lifeline?.on("error", () => undefined);
  // The server gone, the watchdog is let go too, and takes whatever the server left in its group.
  child.once("exit", () => lifeline?.destroy());
  return child as unknown as ChildProcessWithoutNullStreams;
}

/** SIGKILL to the child's whole group (the server, its children, the watchdog); to the child alone without one. */
export function killTethered(child: ChildProcessWithoutNullStreams): void {
  if (tethered && child.pid !== undefined) {
    try {
      process.kill(-child.pid, "SIGKILL");
      return;
    } catch {
      // The group is gone already; the child may not be (not yet a leader): killed below.
    }
  }
  child.kill("SIGKILL");
}

/** How a tethered child's end reads when sh could not start the server. */
export function startFailure(code: number | null, command: string): string | undefined {
  if (!tethered) return undefined;
  if (code === NOT_FOUND) return `it could not be started (${command}: no such command)`;
  if (code === NOT_EXECUTABLE) return `it could not be started (${command}: not executable)`;
  return undefined;
}
