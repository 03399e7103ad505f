// A child in a process group of its own that cannot outlive what it belongs to. Started
// through /bin/sh, which leaves one watchdog in the group and then execs the program (same
// pid). The watchdog blocks reading fd 3, whose other end only lockstep holds; when lockstep
// lets go of it (the command ended) or is gone (exit, signal, SIGKILL), the read returns and
// the watchdog kills the whole group: the program, whatever it started, and itself. Node has
// no prctl(PR_SET_PDEATHSIG), and this needs no polling. Left open: a grandchild that moves
// to another session or group of its own (the sandbox's PID namespace catches that one).

/** `$0 "$@"` is the program and its arguments, passed as arguments: nothing of them is read as shell text. */
export const WATCHDOG = '(read -r _ <&3; kill -KILL 0) & exec "$0" "$@" 3<&-';

/** SIGKILL to a whole process group; nothing when it is gone already. */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // The group is gone already.
  }
}
