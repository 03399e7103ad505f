// The test client's buffers, as the imitated editor keeps them: each buffer's
// text and version, whether it is hidden (loaded by a WorkspaceEdit) or attached
// (didOpen sent), and its content changes not sent yet. When a didChange goes
// out is the editor's: Helix at once (the client sends), Neovim after a
// debounce, eglot on an idle timer that waits while a request of ours is out.
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { TextDocumentContentChangeEvent, TextEdit } from "vscode-languageserver-protocol";
import type { EditorStyle } from "./options.js";
import { applySpans, contentChangesFor, lineStarts, sortedOffsets } from "./text.js";

/** eglot sends its didChanges after this much idle time (eglot-send-changes-idle-time). */
const EGLOT_IDLE_MS = 500;

export interface BufferView {
  readonly uri: string;
  readonly rel: string;
  readonly languageId: string;
  /** The editor's version of the buffer (moves at once; the didChange may come later). */
  readonly version: number;
  readonly text: string;
  /** Loaded by a WorkspaceEdit, never shown to the user. */
  readonly hidden: boolean;
  /** didOpen was sent. */
  readonly attached: boolean;
}

export interface EditorBuffer extends BufferView {
  abs: string;
  version: number;
  text: string;
  hidden: boolean;
  attached: boolean;
  /** Content changes not sent yet, in the order they apply. */
  unsent: TextDocumentContentChangeEvent[];
  timer?: NodeJS.Timeout;
  /** Resolvers of `type()` calls and `settled()` waiting for the unsent changes to go. */
  onSent: (() => void)[];
}

const LANGUAGES: Record<string, string> = {
  ".ts": "typescript",
  ".js": "javascript",
  ".py": "python",
  ".md": "markdown",
  ".diff": "diff",
  ".patch": "diff",
  ".go": "go",
  ".rs": "rust",
  ".json": "json",
};

export function languageOf(rel: string): string {
  return LANGUAGES[path.extname(rel)] ?? "plaintext";
}

export interface BufferHost {
  readonly root: string;
  readonly style: EditorStyle;
  /** Neovim's didChange debounce (ms). */
  readonly debounceMs: number;
  /** Sends a notification to the server (and records it). */
  notify(method: string, params: unknown): void;
  /** A request of ours is waiting for the server's reply (eglot's idle timer waits for none). */
  busy(): boolean;
}

/** The buffers by absolute path. */
export class EditorBuffers {
  private readonly byPath = new Map<string, EditorBuffer>();

  constructor(private readonly host: BufferHost) {}

  get(abs: string): EditorBuffer | undefined {
    return this.byPath.get(abs);
  }

  all(): EditorBuffer[] {
    return [...this.byPath.values()];
  }

  mustGet(rel: string): EditorBuffer {
    const buffer = this.byPath.get(path.join(this.host.root, rel));
    if (!buffer) throw new Error(`${rel} is not open`);
    return buffer;
  }

  create(abs: string, text: string, version: number, languageId: string, hidden: boolean): EditorBuffer {
    const buffer: EditorBuffer = {
      uri: pathToFileURL(abs).href,
      rel: path.relative(this.host.root, abs).split(path.sep).join("/"),
      abs,
      languageId,
      version,
      text,
      hidden,
      attached: false,
      unsent: [],
      onSent: [],
    };
    this.byPath.set(abs, buffer);
    return buffer;
  }

  attach(buffer: EditorBuffer): void {
    buffer.attached = true;
    this.host.notify("textDocument/didOpen", {
      textDocument: {
        uri: buffer.uri,
        languageId: buffer.languageId,
        version: buffer.version,
        text: buffer.text,
      },
    });
  }

  /** Drops the buffer; the server hears didClose if it was attached. */
  forget(buffer: EditorBuffer): void {
    if (buffer.attached) this.host.notify("textDocument/didClose", { textDocument: { uri: buffer.uri } });
    this.byPath.delete(buffer.abs);
  }

  /** Applies edits to the buffer, moves its version, queues the change; resolves when the change is sent. */
  edit(buffer: EditorBuffer, edits: readonly TextEdit[]): Promise<void> {
    const starts = lineStarts(buffer.text);
    const spans = sortedOffsets(buffer.text, edits, starts);
    const changes = contentChangesFor(buffer.text, spans, starts);
    buffer.text = applySpans(buffer.text, spans);
    buffer.version++;
    if (!buffer.attached) return Promise.resolve();
    buffer.unsent.push(...changes);
    if (this.host.style === "neovim" && buffer.timer === undefined) {
      buffer.timer = setTimeout(() => this.send(buffer), this.host.debounceMs);
    }
    if (this.host.style === "eglot" && buffer.timer === undefined) this.idleTimer(buffer);
    return new Promise((resolve) => buffer.onSent.push(resolve));
  }

  /** Sends the buffer's pending changes now as one didChange and wakes whoever waits for them. */
  send(buffer: EditorBuffer): void {
    clearTimeout(buffer.timer);
    buffer.timer = undefined;
    if (buffer.unsent.length > 0 && buffer.attached) {
      const contentChanges = buffer.unsent.splice(0);
      this.host.notify("textDocument/didChange", {
        textDocument: { uri: buffer.uri, version: buffer.version },
        contentChanges,
      });
    }
    for (const resolve of buffer.onSent.splice(0)) resolve();
  }

  sendAll(): void {
    for (const buffer of this.byPath.values()) this.send(buffer);
  }

  /** Resolves when no didChange is waiting on a timer. */
  async settled(): Promise<void> {
    await Promise.all(
      this.all()
        .filter((b) => b.timer !== undefined)
        .map((b) => new Promise<void>((resolve) => b.onSent.push(resolve))),
    );
  }

  clearTimers(): void {
    for (const b of this.byPath.values()) {
      clearTimeout(b.timer);
      b.timer = undefined;
    }
  }

  /**
   * eglot's didChange goes out on a 0.5 s idle timer, which does not fire while
   * Emacs waits for a reply to its own request: held until no request is out.
   */
  private idleTimer(buffer: EditorBuffer, ms = EGLOT_IDLE_MS): void {
    buffer.timer = setTimeout(() => {
      if (this.host.busy()) this.idleTimer(buffer, 10);
      else this.send(buffer);
    }, ms);
  }
}
