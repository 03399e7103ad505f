// The terminal client's editor: it has no buffers, so the server's WorkspaceEdits are
// applied to the files on disk, each shown as it lands.
import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ApplyWorkspaceEditParams, ApplyWorkspaceEditResult, TextEdit } from "vscode-languageserver";
import { TextDocument } from "vscode-languageserver-textdocument";
import { writeTextFileAtomic } from "../workspace/disk.js";
import type { Io } from "./io.js";
import { changeView, deletionView, paint } from "./stream-view.js";

/**
 * Applies a WorkspaceEdit to the files under `root`, saying each change on stdout. `shown`: the
 * files whose diff the approval question just showed; for those one line says it landed.
 */
export async function applyToDisk(
  params: ApplyWorkspaceEditParams,
  root: string,
  io: Io,
  shown?: Set<string>,
): Promise<ApplyWorkspaceEditResult> {
  const edits: { uri: string; edits: TextEdit[] }[] = [];
  for (const change of params.edit.documentChanges ?? []) {
    if ("textDocument" in change) {
      edits.push({
        uri: change.textDocument.uri,
        edits: change.edits.filter((e): e is TextEdit => "range" in e),
      });
    }
    // A revert removes a file the run created (the server checked it is as the run left it).
    if ("kind" in change && change.kind === "delete") {
      await rm(fileURLToPath(change.uri), { force: true });
      io.stdout(deletionView(path.relative(root, fileURLToPath(change.uri))));
    }
  }
  for (const [uri, list] of Object.entries(params.edit.changes ?? {})) edits.push({ uri, edits: list });
  for (const { uri, edits: list } of edits) {
    const file = fileURLToPath(uri);
    const exists = existsSync(file);
    const before = exists ? await readFile(file, "utf8") : "";
    const after = TextDocument.applyEdits(TextDocument.create(uri, "plaintext", 0, before), list);
    // Under the lock other lockstep processes honour, and only while the file still holds what
    // the edits were applied to.
    const written = await writeTextFileAtomic(file, after, { base: exists ? before : null });
    if (!written.ok) return { applied: false, failureReason: written.error.message };
    const rel = path.relative(root, file);
    io.stdout(
      shown?.delete(rel) === true ? paint.bold(`✎ ${rel} written\n`) : changeView(rel, before, after),
    );
  }
  return { applied: true };
}
