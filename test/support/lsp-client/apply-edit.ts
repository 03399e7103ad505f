// How the imitated editor carries out a WorkspaceEdit (workspace/applyEdit, or
// a code action's edit) on its buffers:
//   helix:  stale TextDocumentEdit.version → {applied:false, failureReason, failedChange};
//           else apply and send the didChange at once.
//   neovim: stale version on the FIRST documentChanges entry → skipped silently,
//           still {applied:true}; the didChange waits for the debounce.
//   eglot:  stale → JSON-RPC error "Edits on `F' require version N, you have M";
//           no resource operations; the didChange waits for the idle timer.
// A file that is not open is loaded from disk into a hidden buffer (unsaved,
// disk untouched); CreateFile and DeleteFile act on disk as Helix and Neovim do.
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ResponseError } from "vscode-jsonrpc/node.js";
import type {
  ApplyWorkspaceEditParams,
  ApplyWorkspaceEditResult,
  CreateFile,
  DeleteFile,
  TextDocumentEdit,
  WorkspaceEdit,
} from "vscode-languageserver-protocol";
import { languageOf, type EditorBuffer, type EditorBuffers } from "./buffers.js";
import type { EditorStyle } from "./options.js";

export interface ApplyEditRecord {
  params: ApplyWorkspaceEditParams;
  reply?: ApplyWorkspaceEditResult;
  /** The JSON-RPC error the client answered with (eglot). */
  error?: string;
  /** TextDocumentEdits the client skipped while replying applied: true (Neovim). */
  skipped: TextDocumentEdit[];
}

/** Applies `edit` to the buffers as `style` does; the record (of an applyEdit request) gets the skipped edits. */
export async function applyWorkspaceEdit(
  buffers: EditorBuffers,
  style: EditorStyle,
  edit: WorkspaceEdit,
  record?: ApplyEditRecord,
): Promise<ApplyWorkspaceEditResult> {
  const changes: (TextDocumentEdit | CreateFile | { kind: string })[] =
    edit.documentChanges ??
    Object.entries(edit.changes ?? {}).map(([uri, edits]) => ({
      textDocument: { uri, version: null },
      edits,
    }));
  for (let index = 0; index < changes.length; index++) {
    const change = changes[index]!;
    if ("kind" in change) {
      if (style === "eglot")
        throw new ResponseError(-32603, `Unsupported resource operation: ${change.kind}`);
      if (change.kind === "delete") {
        await deleteFile(buffers, change as DeleteFile);
        continue;
      }
      if (change.kind !== "create")
        return {
          applied: false,
          failureReason: `the test client does not do ${change.kind}`,
          failedChange: index,
        };
      await createFile(style, change as CreateFile);
      continue;
    }
    const docEdit = change as TextDocumentEdit;
    const abs = fileURLToPath(docEdit.textDocument.uri);
    const buffer = buffers.get(abs) ?? (await load(buffers, style, abs));
    const wanted = docEdit.textDocument.version;
    if (wanted !== null && wanted !== undefined) {
      if (style === "helix" && wanted !== buffer.version) {
        return {
          applied: false,
          failureReason: `Document ${buffer.rel} changed: the edit is for version ${wanted}, the document is at version ${buffer.version}`,
          failedChange: index,
        };
      }
      if (style === "eglot" && wanted !== buffer.version) {
        throw new ResponseError(
          -32603,
          `Edits on \`${abs}' require version ${wanted}, you have ${buffer.version}`,
        );
      }
      if (style === "neovim" && index === 0 && wanted > 0 && buffer.version > wanted) {
        record?.skipped.push(docEdit);
        continue;
      }
    }
    const edits = docEdit.edits.map((e) => ({ range: e.range, newText: e.newText }));
    void buffers.edit(buffer, edits);
    if (style === "helix") buffers.send(buffer);
  }
  return { applied: true };
}

/** A file the editor is asked to edit but has not open: loaded from disk, unsaved, unseen. */
async function load(buffers: EditorBuffers, style: EditorStyle, abs: string): Promise<EditorBuffer> {
  let text = "";
  try {
    text = await fs.readFile(abs, "utf8");
  } catch (error) {
    // Neovim's bufload of a missing file gives an empty buffer; Helix and eglot fail.
    if (style !== "neovim") throw new ResponseError(-32603, `cannot open ${abs}: ${String(error)}`);
  }
  const buffer = buffers.create(abs, text, 0, languageOf(abs), true);
  // Helix (Editor::open) and eglot (find-file-noselect, then eglot's mode hook) tell the server; Neovim's hidden buffer is not attached.
  if (style !== "neovim") buffers.attach(buffer);
  return buffer;
}

/** Helix and Neovim delete the file and drop its buffer (the server hears didClose). */
async function deleteFile(buffers: EditorBuffers, change: DeleteFile): Promise<void> {
  const abs = fileURLToPath(change.uri);
  const buffer = buffers.get(abs);
  if (buffer) buffers.forget(buffer);
  await fs.rm(abs, { force: change.options?.ignoreIfNotExists === true });
}

async function createFile(style: EditorStyle, change: CreateFile): Promise<void> {
  const abs = fileURLToPath(change.uri);
  const opts = change.options ?? {};
  const exists = existsSync(abs);
  // Neovim 0.7: truncates unless ignoreIfExists (without overwrite); Helix: skips an existing file when ignoreIfExists.
  const write =
    style === "neovim"
      ? !opts.ignoreIfExists || opts.overwrite === true
      : !exists || opts.overwrite === true || !opts.ignoreIfExists;
  if (write) {
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, "");
  }
}
