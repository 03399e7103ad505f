// Removing a file lockstep created, on a revert: only while it holds exactly
// what lockstep wrote, through the editor where the file is its business.
import { unlink } from "node:fs/promises";
import { fail, succeed, type Outcome } from "../shared/outcome.js";
import { readTextFile } from "./disk.js";
import { leftInPlace } from "./edit-replies.js";
import type { EditorLink } from "./editor-link.js";
import type { ResolvedPath } from "./sandbox.js";

/**
 * Removes a file that holds exactly `expected`: through the editor where it has the file open
 * or takes closed files' edits and can delete files, else on disk. Never anything else.
 */
export async function removeFile(
  options: { editor?: EditorLink | undefined; closedFileEdits?: "editor" | "disk" | undefined },
  path: ResolvedPath,
  expected: string,
  signal: AbortSignal,
): Promise<Outcome<void>> {
  const editor = options.editor;
  const viaEditor =
    editor !== undefined &&
    editor.canApplyEdit &&
    (editor.document(path.uri) !== undefined || (options.closedFileEdits ?? "editor") === "editor");
  if (viaEditor) {
    if (!editor.deleteFiles || !editor.deleteFile) {
      return leftInPlace("permission_denied", path.rel, "this editor cannot delete files through LSP");
    }
    const reply = await editor.deleteFile(path.uri, signal);
    if (!reply.applied)
      return leftInPlace(
        "state_mismatch",
        path.rel,
        `the editor did not delete it${reply.reason ? ` (${reply.reason})` : ""}`,
      );
    return succeed(undefined);
  }
  const disk = await readTextFile(path.abs);
  if (!disk.ok || disk.value.content !== expected)
    return leftInPlace("state_mismatch", path.rel, "it changed on disk");
  try {
    await unlink(path.abs);
  } catch (error) {
    return fail(
      "io_error",
      `${path.rel} could not be deleted: ${error instanceof Error ? error.message : String(error)}.`,
    );
  }
  return succeed(undefined);
}
