// Which file section of a diff safe_patch applies: the target's path decides, a header's path
// is a hint, and a header that names another existing file refuses. Pure: whether a file exists
// is the caller's answer (`fileExists`); this file knows nothing of disks or workspaces.
import type { FilePatch } from "./diff-parse.js";
import { fail, succeed, type Outcome } from "../../shared/outcome.js";

export interface PatchOptions {
  /** The target's workspace path. It decides: the diff's header paths are only hints. */
  filePath?: string;
  /** Whether a header's path names a file that exists (workspace-relative); a diff headed for another existing file is refused. */
  fileExists?: (path: string) => boolean;
}

/**
 * The file section of a diff that targets `filePath`. Models head diffs with
 * `original`/`modified`, `a/x`/`b/x`, `before.c`, or the right name in the
 * wrong folder: the given path decides, and a header only refuses a diff when
 * it names another file that exists.
 */
export function selectFilePatch(patches: FilePatch[], options: PatchOptions): Outcome<FilePatch> {
  const { filePath, fileExists } = options;
  const named = (p: FilePatch): string | undefined => p.newPath ?? p.oldPath;
  if (filePath === undefined) {
    if (patches.length === 1) return succeed(patches[0]!);
    return fail(
      "invalid_diff",
      `Invalid Diff: the diff covers ${patches.length} files; send one file's diff per call.`,
    );
  }
  const target = filePath.replace(/\\/g, "/");
  const matches = (p: FilePatch): boolean => {
    const path = named(p);
    return (
      path !== undefined && (path === target || target.endsWith("/" + path) || path.endsWith("/" + target))
    );
  };
  const exact = patches.filter(matches);
  if (exact.length === 1) return succeed(exact[0]!);
  /** The header names an existing file other than the target (either side). */
  const otherFile = (p: FilePatch): string | undefined =>
    [p.newPath, p.oldPath].find(
      (path) =>
        path !== undefined && !matches({ ...p, newPath: path, oldPath: path }) && fileExists?.(path) === true,
    );
  if (patches.length === 1) {
    const only = patches[0]!;
    const other = otherFile(only);
    if (other !== undefined) {
      return fail("invalid_diff", `Invalid Diff: the diff is for \`${other}\`, not \`${filePath}\`.`, [
        `Call safe_patch with file_path "${other}" if that file is meant, or rebuild the diff from ${filePath}'s content.`,
      ]);
    }
    return succeed(only);
  }
  const names = patches.map((p) => named(p) ?? "(unnamed)").join(", ");
  return fail(
    "invalid_diff",
    `Invalid Diff: the diff covers ${patches.length} files (${names}) and none is \`${filePath}\`.`,
    ["Send one safe_patch call per file, each with only that file's hunks."],
  );
}
