// The workspace's view of an ACP client's files. ACP v1 gives an agent
// fs/read_text_file (the text the user sees, unsaved edits included) and
// fs/write_text_file (a whole file, no precondition, no version). lockstep adds
// the precondition: a write goes back only after the file was read again through
// the client and its sha256 is the one the change was built on. A client that
// reads but cannot write gets disk writes of disk text only: a buffer's unsaved
// text is never written to disk, where the user's next save would overwrite it.
//
// Reads per change: two fs/read_text_file. One serves every check made before the question
// (the text the change is built on; a read younger than FRESH_MS stands for the client's text
// while no question was answered since, as a later read checks it anyway). The other is the
// check before the write: the read made just after the user's answer (`decided`) serves it;
// where nothing was asked (approval "auto", an "always"), the write reads the file again itself.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sha256 } from "../edit/shared/text.js";
import { applyTextEdits } from "../edit/text-edits.js";
import { readTextFile, writeTextFileAtomic } from "../workspace/disk.js";
import type { EditorDocument, EditorLink, EditReply, FileEdit } from "../workspace/editor-link.js";

/** The client's file methods, for one session (absolute paths as the client knows them). */
export interface ClientFiles {
  /** The file's text as the client holds it; rejects when the client cannot read it (e.g. it does not exist). */
  read(path: string): Promise<string>;
  /** Present when the client offers fs/write_text_file. */
  write?: (path: string, content: string) => Promise<void>;
}

/** How long a client read stands for the client's text while nothing was decided. */
export const FRESH_MS = 1000;

export class AcpEditorLink implements EditorLink {
  /**
   * When each file was last read through the client (cleared when a question is answered), and
   * whether that read followed an answer closely enough to be the check before the write.
   */
  private readonly readAt = new Map<string, { at: number; afterAnswer: boolean }>();
  private answeredAt = -Infinity;
  /** What the client last showed for each file; `version` counts the distinct texts seen, the client has no versions. */
  private readonly buffers = new Map<string, EditorDocument>();
  private versions = 0;

  /**
   * @param realRoot the root's real path, which the workspace's URIs are under
   * @param clientRoot the session's `cwd` as the client gave it, which its paths are under
   */
  constructor(
    private readonly files: ClientFiles,
    private readonly realRoot: string,
    private readonly clientRoot: string,
  ) {}

  readonly canApplyEdit = true;
  readonly createFiles = true;

  document(uri: string): EditorDocument | undefined {
    return this.buffers.get(uri);
  }

  documentUris(): Iterable<string> {
    return this.buffers.keys();
  }

  async refresh(uri: string): Promise<void> {
    if (this.fresh(uri)) return;
    await this.readNow(uri);
  }

  /** The user answered a question: every read from before it is old. */
  decided(): void {
    this.readAt.clear();
    this.answeredAt = performance.now();
  }

  private fresh(uri: string): boolean {
    const read = this.readAt.get(uri);
    return read !== undefined && performance.now() - read.at < FRESH_MS;
  }

  private async readNow(uri: string): Promise<string | undefined> {
    const text = await this.files.read(this.clientPath(uri)).catch(() => undefined);
    this.remember(uri, text);
    if (text === undefined) this.readAt.delete(uri);
    else {
      const at = performance.now();
      this.readAt.set(uri, { at, afterAnswer: at - this.answeredAt < FRESH_MS });
    }
    return text;
  }

  async applyEdit(edit: FileEdit, signal: AbortSignal): Promise<EditReply> {
    const after = applyTextEdits(edit.before, edit.edits);
    return this.files.write
      ? this.writeThroughClient(edit, after, this.files.write)
      : this.writeDisk(edit, after, signal);
  }

  /** Re-read through the client, then write only if it still holds the text the change was built on. */
  private async writeThroughClient(
    edit: FileEdit,
    after: string,
    write: (path: string, content: string) => Promise<void>,
  ): Promise<EditReply> {
    const file = this.clientPath(edit.uri);
    // The workspace has just read the file after the user's answer: that read is the check. Otherwise read now.
    const checked = this.fresh(edit.uri) && this.readAt.get(edit.uri)?.afterAnswer === true;
    const now = checked ? this.buffers.get(edit.uri)?.text : await this.readNow(edit.uri);
    if (now === undefined ? !edit.create : sha256(now) !== sha256(edit.before)) {
      return {
        applied: false,
        reason:
          now === undefined
            ? "the client no longer has this file"
            : `the client's text is now at sha256 ${sha256(now).slice(0, 12)}…, not the text the change was built on`,
      };
    }
    try {
      await write(file, after);
    } catch (error) {
      return {
        applied: false,
        refused: true,
        reason: `the client refused the write (${error instanceof Error ? error.message : String(error)})`,
      };
    }
    this.remember(edit.uri, after);
    // What the client does with a write (a format on save) is known only by reading it again.
    this.readAt.delete(edit.uri);
    return { applied: true };
  }

  /** A client that cannot take writes: the disk, and only over the disk's own text. */
  private async writeDisk(edit: FileEdit, after: string, signal: AbortSignal): Promise<EditReply> {
    const abs = fileURLToPath(edit.uri);
    const disk = await readTextFile(abs);
    const onDisk = disk.ok ? disk.value.content : undefined;
    if (edit.create ? onDisk !== undefined : onDisk !== edit.before) {
      return {
        applied: false,
        // The client still shows the text the change was built on, unsaved: not a stale state, a retry cannot land either.
        refused: (await this.files.read(this.clientPath(edit.uri)).catch(() => undefined)) === edit.before,
        reason:
          "the editor shows text for this file that is not on disk (unsaved changes), and this client cannot take writes: lockstep writes the disk only over the disk's own text. " +
          "Ask the user to save the file, then read it again",
      };
    }
    if (signal.aborted) return { applied: false, reason: "cancelled before the write" };
    const written = await writeTextFileAtomic(abs, after, {
      base: edit.create ? null : edit.before,
      pinned: true,
    });
    if (!written.ok) return { applied: false, reason: written.error.message };
    this.remember(edit.uri, after);
    this.readAt.delete(edit.uri);
    return { applied: true };
  }

  private remember(uri: string, text: string | undefined): void {
    if (text === undefined) {
      this.buffers.delete(uri);
      return;
    }
    if (this.buffers.get(uri)?.text !== text) this.buffers.set(uri, { version: ++this.versions, text });
  }

  /** The file's path under the session's cwd as the client gave it (the client may not know the real path). */
  private clientPath(uri: string): string {
    const rel = path.relative(this.realRoot, fileURLToPath(uri));
    return path.join(this.clientRoot, rel);
  }
}
