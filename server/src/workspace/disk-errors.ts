// Turning a file-system error into a Failure that names the path and the next
// step, for the reads (disk.ts) and the writes (disk-write.ts) alike.
import { fail } from "../shared/outcome.js";
import type { Outcome } from "../shared/outcome.js";
import { errnoCode } from "../shared/errno.js";

export type Action = "read" | "write" | "list" | "create the directory" | "resolve" | "lock";

/** Turns a file-system error into a Failure that names the path and the next step. */
export function ioFailure(error: unknown, target: string, action: Action): Outcome<never> {
  const code = errnoCode(error);
  const detail = error instanceof Error ? error.message : String(error);
  switch (code) {
    case "ENOENT":
      return fail(
        "not_found",
        `${target} does not exist. Check the path, or list its directory to see what is there.`,
      );
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return fail(
        "permission_denied",
        `The operating system does not allow lockstep to ${action} ${target} (${code}). Choose another path, or ask the user to change the permissions.`,
      );
    case "EISDIR":
      return isDirectory(target);
    case "ENOTDIR":
    case "EEXIST":
      return fail(
        "invalid_argument",
        `Cannot ${action} ${target}: a part of the path that should be a directory is a file (${code}). Check the path; list the parent directory to see what is there.`,
      );
    case "ENAMETOOLONG":
      return fail(
        "invalid_argument",
        `Cannot ${action} ${target}: the path or a name in it is too long. Use a shorter path.`,
      );
    case "ELOOP":
      return fail(
        "invalid_argument",
        `Cannot ${action} ${target}: its symbolic links form a loop (ELOOP). Use a path that does not go through the looping link.`,
      );
    case "ENOSPC":
    case "EDQUOT":
      return fail(
        "io_error",
        `Cannot ${action} ${target}: the disk or quota is full (${code}). Nothing was changed; tell the user.`,
      );
    default:
      return fail(
        "io_error",
        `Cannot ${action} ${target}: ${code ?? "error"} (${detail}). Nothing was changed; try again, and tell the user if it keeps failing.`,
      );
  }
}

export function isDirectory(abs: string): Outcome<never> {
  return fail(
    "invalid_argument",
    `${abs} is a directory, not a file. Use list_files to see its entries, then read or write one of them.`,
  );
}

export function notRegular(abs: string): Outcome<never> {
  return fail(
    "invalid_argument",
    `${abs} is not a regular file (it is a pipe, socket or device). lockstep works with regular text files only; choose another path.`,
  );
}
