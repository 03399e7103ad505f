// The workspace's view of the editor, implemented over LSP: open buffers, and
// edits sent as workspace/applyEdit, one request per file.
import type {
  Connection,
  CreateFile,
  DeleteFile,
  TextDocumentEdit,
  WorkspaceEdit,
} from "vscode-languageserver";
import { ApplyWorkspaceEditRequest, CancellationTokenSource } from "vscode-languageserver";
import { withoutControls } from "../shared/control-characters.js";
import type { EditorDocument, EditorLink, EditReply, FileEdit } from "../workspace/editor-link.js";
import type { ClientFlags } from "./capabilities.js";
import type { OpenDocuments } from "./documents.js";
import { toLspEdits } from "./positions.js";

/** A deadline that fires later than this counts as lockstep having been busy, not the editor silent. */
const LATE_MS = 20;
/** The least the editor's answer then gets to be read. */
const GRACE_MS = 100;

/** The label of an edit the user decided (asked, reviewed, always allowed, or a command they ran): lockstep's clients skip the editor's own second question for it. */
export const DECIDED_LABEL = "lockstep: decided by the user";

/** How editors word a user's "no" to an edit they asked about. */
const USER_DECLINED = /\buser\b.*\b(cancel|declin|reject|abort)/i;

export class LspEditorLink implements EditorLink {
  constructor(
    private readonly connection: Connection,
    private readonly documents: OpenDocuments,
    private readonly flags: ClientFlags,
    private readonly timeoutMs: () => number,
    /** The edit's label: it tells lockstep's clients whether the user decided it (approval not auto). */
    private readonly label: () => string = () => "lockstep",
  ) {}

  get canApplyEdit(): boolean {
    return this.flags.canApplyEdit;
  }

  get createFiles(): boolean {
    return this.flags.createFiles;
  }

  get deleteFiles(): boolean {
    return this.flags.deleteFiles;
  }

  deleteFile(uri: string, signal: AbortSignal): Promise<EditReply> {
    const remove: DeleteFile = {
      kind: "delete",
      uri: this.documents.editorUri(uri),
      options: { ignoreIfNotExists: true },
    };
    return this.send({ documentChanges: [remove] }, signal);
  }

  /**
   * Asks the client to save these buffers (`lockstep/saveFiles`, lockstep's Neovim client), before a
   * command runs on the disk's text. A client without it is not asked; the caller finds them unsaved.
   */
  async saveFiles(uris: readonly string[], signal: AbortSignal): Promise<ReadonlyMap<string, string>> {
    if (!this.flags.saveFiles || uris.length === 0) return new Map();
    const source = new CancellationTokenSource();
    const cancel = (): void => source.cancel();
    signal.addEventListener("abort", cancel, { once: true });
    const timer = setTimeout(cancel, this.timeoutMs());
    const ours = new Map(uris.map((u) => [this.documents.editorUri(u), u]));
    try {
      const answer: unknown = await this.connection.sendRequest(
        "lockstep/saveFiles",
        { uris: [...ours.keys()] },
        source.token,
      );
      return saveFailures(answer, ours);
    } catch {
      // Not saved: the caller reads the buffers again and names what is still unsaved.
      return new Map();
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", cancel);
      source.dispose();
    }
  }

  document(uri: string): EditorDocument | undefined {
    const doc = this.documents.get(uri);
    return doc ? { version: doc.version, text: doc.getText() } : undefined;
  }

  documentUris(): Iterable<string> {
    return this.documents.openRealUris();
  }

  async applyEdit(edit: FileEdit, signal: AbortSignal): Promise<EditReply> {
    const uri = this.documents.editorUri(edit.uri);
    const edits = toLspEdits(edit.before, edit.edits);
    let workspaceEdit: WorkspaceEdit;
    if (this.flags.versionedEdits) {
      const textEdit: TextDocumentEdit = { textDocument: { uri, version: edit.version }, edits };
      const create: CreateFile = { kind: "create", uri };
      workspaceEdit = { documentChanges: edit.create ? [create, textEdit] : [textEdit] };
    } else {
      workspaceEdit = { changes: { [uri]: edits } };
    }
    return this.send(workspaceEdit, signal);
  }

  private async send(workspaceEdit: WorkspaceEdit, signal: AbortSignal): Promise<EditReply> {
    const source = new CancellationTokenSource();
    // Cancelling only sends $/cancelRequest; the request may never settle. The wait ends here.
    let giveUp = (): void => undefined;
    const gaveUp = new Promise<EditReply>((resolve) => {
      giveUp = () => {
        source.cancel();
        resolve({ applied: false, timedOut: true, reason: "no answer from the editor" });
      };
    });
    signal.addEventListener("abort", giveUp, { once: true });
    // The wait is for the editor, not for lockstep: a deadline passed while lockstep itself was busy (a large
    // didChange, say) may have the answer already waiting, unread. It gets one more moment to be read.
    const timeoutMs = this.timeoutMs();
    const due = performance.now() + timeoutMs;
    let timer = setTimeout(() => {
      const late = performance.now() - due;
      if (late > LATE_MS) timer = setTimeout(giveUp, Math.min(Math.max(late, GRACE_MS), timeoutMs));
      else giveUp();
    }, timeoutMs);
    const request = this.connection
      .sendRequest(ApplyWorkspaceEditRequest.type, { label: this.label(), edit: workspaceEdit }, source.token)
      .then(
        (reply): EditReply =>
          reply.applied
            ? { applied: true }
            : { applied: false, reason: reply.failureReason ?? "the editor did not apply it" },
        // eglot answers a stale version with a JSON-RPC error rather than applied: false.
        // eglot answers a user who says no to its "Proceed?" with the error "User cancelled server edit".
        (error: unknown): EditReply => {
          const reason = error instanceof Error ? error.message : String(error);
          return { applied: false, reason, ...(USER_DECLINED.test(reason) ? { declined: true } : {}) };
        },
      );
    try {
      return await Promise.race([request, gaveUp]);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", giveUp);
      source.dispose();
    }
  }
}

/**
 * Why the editor could not save each buffer, from its answer (`{failed: [{uri, message}]}`): input,
 * so only URIs lockstep asked about, at most 200 characters each, on one line.
 */
function saveFailures(answer: unknown, asked: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  const failed = (answer as { failed?: unknown } | null)?.failed;
  if (!Array.isArray(failed)) return out;
  for (const f of failed.slice(0, asked.size)) {
    const { uri, message } = (f ?? {}) as { uri?: unknown; message?: unknown };
    const ours = typeof uri === "string" ? asked.get(uri) : undefined;
    if (ours === undefined || typeof message !== "string") continue;
    // One line: a newline or tab is a control here too. An escape sequence's ESC becomes a space like
    // any control; the text after it stays.
    const line = withoutControls(message, { replaceWith: " " }).trim();
    if (line !== "") out.set(ours, line.length > 200 ? `${line.slice(0, 199)}…` : line);
  }
  return out;
}
