// One session file open for appending. Records are buffered and written in one
// write at the end of each turn (and at once for a revert journal entry): a kill
// of the process leaves whole turns and at most one torn line. The sync to the
// disk (for a power cut) runs off the thread, so a turn does not wait on it. A lock file
// holding the writer's pid keeps a second live server from appending to the same
// session; a lock whose process is gone is taken over, by one taker (session-lock.ts).
import { closeSync, fdatasync, ftruncateSync, openSync, readSync, writeSync } from "node:fs";
import type { Message } from "../agent/model.js";
import { blobId, encodeMessage, redact, type SessionRecord } from "./format.js";
import { releaseLock, takeLock } from "./session-lock.js";

export class SessionWriter {
  private fd: number;
  private buffer: string[] = [];
  private readonly blobs: Set<string>;
  private syncing = 0;
  private closing = false;

  private constructor(
    readonly id: string,
    readonly file: string,
    fd: number,
    blobs: Set<string>,
    private readonly secrets: () => readonly string[],
  ) {
    this.fd = fd;
    this.blobs = blobs;
  }

  /** A new file (exclusive create, 0600). */
  static create(id: string, file: string, secrets: () => readonly string[]): SessionWriter {
    takeLock(file);
    const fd = openSync(file, "wx", 0o600);
    return new SessionWriter(id, file, fd, new Set(), secrets);
  }

  /**
   * An existing file, to continue: a torn tail is cut at `completeBytes` first, so the next
   * record starts on a line of its own. `blobs`: the blob ids the file already holds.
   */
  static reopen(
    id: string,
    file: string,
    completeBytes: number,
    blobs: Set<string>,
    secrets: () => readonly string[],
  ): SessionWriter {
    takeLock(file);
    const fd = openSync(file, "r+", 0o600);
    ftruncateSync(fd, completeBytes);
    // A last line that was whole but lacked its newline gets one.
    const last = Buffer.alloc(1);
    const newline =
      completeBytes === 0 || (readSync(fd, last, 0, 1, completeBytes - 1) === 1 && last[0] === 0x0a);
    closeSync(fd);
    const appendFd = openSync(file, "a", 0o600);
    if (!newline) writeSync(appendFd, "\n");
    return new SessionWriter(id, file, appendFd, blobs, secrets);
  }

  add(record: SessionRecord): void {
    this.buffer.push(redact(JSON.stringify(record), this.secrets()));
  }

  /** A text as a blob (once per file); returns its id. */
  blob(content: string): string {
    const id = blobId(content);
    if (!this.blobs.has(id)) {
      this.blobs.add(id);
      this.add({ t: "blob", id, content });
    }
    return id;
  }

  message(m: Message): void {
    this.add({ t: "msg", m: encodeMessage(m, (content) => this.blob(content)) });
  }

  /** Writes what is buffered in one write (then syncs it off the thread). A failed write is thrown for the caller to report. */
  flush(): void {
    if (this.buffer.length === 0 || this.fd < 0 || this.closing) return;
    const text = this.buffer.join("\n") + "\n";
    this.buffer = [];
    writeSync(this.fd, text);
    this.syncing++;
    fdatasync(this.fd, () => {
      this.syncing--;
      if (this.syncing === 0 && this.closing) this.release();
    });
  }

  /** Flushes and closes; the descriptor is released once its pending syncs are done. */
  close(): void {
    if (this.fd < 0 || this.closing) return;
    try {
      this.flush();
    } finally {
      this.closing = true;
      releaseLock(this.file);
      if (this.syncing === 0) this.release();
    }
  }

  private release(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }
}

export { liveHolder, removeLock, SessionBusy } from "./session-lock.js";
