// What the workspace needs from an editor, and what it sends one: the contract the
// LSP layer (lsp/editor-link.ts), the ACP layer (acp/editor-link.ts) and tests implement.
import type { TextEdit } from "../edit/text-edits.js";

export interface EditorDocument {
  version: number;
  text: string;
}

/** One file's change as the editor receives it (the LSP layer turns it into a WorkspaceEdit). */
export interface FileEdit {
  uri: string;
  /** The buffer version the edits were computed against; `null` when not open or unknown. */
  version: number | null;
  /** Offsets into `before`. */
  edits: TextEdit[];
  before: string;
  /** The file does not exist yet: create it, then insert. */
  create: boolean;
}

export interface EditReply {
  applied: boolean;
  reason?: string;
  /** No answer in time: the editor may still apply the edit; only its next report tells. */
  timedOut?: boolean;
  /** The editor cannot take this change as things are (a read-only buffer with unsaved text, a write it refused): not stale; `reason` says why. */
  refused?: boolean;
  /** The user declined it in the editor's own prompt (eglot asks "Proceed?"): a decision, not a stale state. */
  declined?: boolean;
}

/** What the workspace needs from an editor. Implemented by the LSP layer, and by tests in-process. */
export interface EditorLink {
  /** The open buffer for a (real-path) file URI. */
  document(uri: string): EditorDocument | undefined;
  /** The (real-path) URIs `document` answers for, where the editor can list them (a search then asks of these only). */
  documentUris?(): Iterable<string>;
  applyEdit(edit: FileEdit, signal: AbortSignal): Promise<EditReply>;
  readonly canApplyEdit: boolean;
  readonly createFiles: boolean;
  /** DeleteFile resource operations are understood (a revert removes a file lockstep created). */
  readonly deleteFiles?: boolean;
  deleteFile?(uri: string, signal: AbortSignal): Promise<EditReply>;
  /**
   * An editor whose buffers are known only by asking (ACP's fs/read_text_file): asked before every
   * read of a file, so that `document` then answers with what the editor holds now.
   */
  refresh?(uri: string): Promise<void>;
  /**
   * Saves these (real-path) file URIs' buffers to disk, where the editor takes such a request
   * (lockstep's Neovim and Emacs clients): a command is about to run on the disk's text.
   * Answers why the editor could not save a buffer, by URI, where it said.
   */
  saveFiles?(uris: readonly string[], signal: AbortSignal): Promise<ReadonlyMap<string, string>>;
}
