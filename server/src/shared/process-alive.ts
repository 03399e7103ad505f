// Whether a process named in a file (a lock, a journal, a discovery file) still runs. The
// name is input: only a positive whole number names a process, since signal 0 to 0 or to a
// negative number would ask about a whole process group and always answer yes.
import { errnoCode } from "./errno.js";

/** Signal 0 checks without signalling; EPERM means it runs, as another user's. */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === "EPERM";
  }
}
