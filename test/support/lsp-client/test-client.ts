// The test client itself: spawns the real server (`node bin/lockstep.js
// --stdio`), talks JSON-RPC to it over the pipes, records what goes each way,
// answers the server's requests the way the imitated editor does, and plays
// the user on the buffers (open, type, save, close). The buffers and their
// didChange timing are in buffers.ts, the WorkspaceEdit handling in
// apply-edit.ts, the answers to the server's requests in editor-answers.ts,
// what was received and the waits on it in inbox.ts; lsp-client.ts documents
// the whole API.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from "vscode-jsonrpc/node.js";
import type {
  ApplyWorkspaceEditParams,
  ApplyWorkspaceEditResult,
  CodeAction,
  Command,
  Diagnostic,
  InitializeParams,
  InitializeResult,
  Range,
  TextEdit,
} from "vscode-languageserver-protocol";
import { applyWorkspaceEdit, type ApplyEditRecord } from "./apply-edit.js";
import { EditorBuffers, languageOf, type BufferView } from "./buffers.js";
import type { Envelope } from "./envelope.js";
import { capabilitiesFor, CLIENT_INFO, serverEntry, type EditorStyle, type StartOptions } from "./options.js";
import { rangeOf, wholeRange } from "./text.js";
import { answerServerRequest, type AnsweringEditor } from "./editor-answers.js";
import { Inbox, WAIT_MS, withTimeout, type Message, type RequestRecord } from "./inbox.js";

// The stable names other tests import from this module.
export { WAIT_MS, type Message, type RequestRecord } from "./inbox.js";

/** Every client whose server may still run (stopAllServers kills them). */
export const liveClients = new Set<TestClient>();

export class TestClient {
  readonly style: EditorStyle;
  readonly root: string;
  readonly process: ChildProcessWithoutNullStreams;
  readonly connection: MessageConnection;
  /** Resolves with the exit code (or the signal's name) once the server process is gone. */
  readonly exited: Promise<number | string | null>;
  initializeResult: InitializeResult | undefined;
  readonly notifications: Message[] = [];
  readonly requests: RequestRecord[] = [];
  readonly applyEditRequests: ApplyEditRecord[] = [];
  readonly sent: Message[] = [];
  beforeApplyEdit: StartOptions["beforeApplyEdit"];
  /** How many of the next applyEdit requests to answer `applied: true` without applying them (Infinity: always). */
  lies = 0;
  /** Requests of ours still waiting for the server's reply (eglot's idle timer waits for none). */
  private outstanding = 0;
  configuration: Record<string, unknown> | undefined;
  private stderrText = "";
  private readonly buffers: EditorBuffers;
  private readonly inbox = new Inbox();
  /** What the answers to the server's requests need of this client. */
  private readonly editor: AnsweringEditor;
  private running = true;

  constructor(private readonly options: StartOptions) {
    this.style = options.style;
    this.root = options.root;
    this.beforeApplyEdit = options.beforeApplyEdit;
    this.configuration = options.configuration;
    this.editor = {
      style: options.style,
      root: options.root,
      options,
      configuration: () => this.configuration,
      applyEdit: (params) => this.onApplyEdit(params),
      saveUris: (uris) => this.saveUris(uris),
    };
    this.buffers = new EditorBuffers({
      root: options.root,
      style: options.style,
      debounceMs: options.debounceMs ?? 150,
      notify: (method, params) => this.notify(method, params),
      busy: () => this.outstanding > 0,
    });
    this.process = spawn(process.execPath, [serverEntry(), "--stdio", ...(options.args ?? [])], {
      cwd: options.root,
      env: { ...process.env, ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.exited = new Promise((resolve) => {
      this.process.once("exit", (code, signal) => {
        this.running = false;
        resolve(code ?? signal);
      });
      this.process.once("error", (error) => {
        this.running = false;
        this.stderrText += String(error);
        resolve(null);
      });
    });
    this.process.stdin.on("error", () => undefined);
    this.process.stdout.on("error", () => undefined);
    this.process.stderr.on("data", (chunk: Buffer | string) => (this.stderrText += chunk.toString()));
    this.connection = createMessageConnection(
      new StreamMessageReader(this.process.stdout),
      new StreamMessageWriter(this.process.stdin),
    );
    this.connection.onNotification((method, params) =>
      this.inbox.received(this.notifications, { method, params }),
    );
    // vscode-jsonrpc routes $/progress apart from other notifications.
    this.connection.onUnhandledProgress((params) =>
      this.inbox.received(this.notifications, { method: "$/progress", params }),
    );
    this.connection.onRequest((method, params) => this.answer(method, params));
    this.connection.onError(() => undefined);
    this.connection.listen();
  }

  get pid(): number {
    return this.process.pid ?? -1;
  }

  get stderr(): string {
    return this.stderrText;
  }

  get alive(): boolean {
    return this.running;
  }

  path(rel: string): string {
    return path.join(this.root, rel);
  }

  uri(rel: string): string {
    return pathToFileURL(this.path(rel)).href;
  }

  async initialize(): Promise<InitializeResult> {
    const rootUri = pathToFileURL(this.root).href;
    const params: InitializeParams = {
      processId: process.pid,
      clientInfo: CLIENT_INFO[this.style],
      rootUri,
      rootPath: this.root,
      workspaceFolders: [{ uri: rootUri, name: path.basename(this.root) }],
      capabilities: capabilitiesFor(this.options),
      ...(this.options.initializationOptions
        ? { initializationOptions: this.options.initializationOptions }
        : {}),
    };
    const died = this.exited.then((code) => {
      throw new Error(
        `the server exited (${String(code)}) before answering initialize; stderr:\n${this.stderrText}`,
      );
    });
    this.initializeResult = await Promise.race([
      this.connection.sendRequest<InitializeResult>("initialize", params),
      died,
    ]);
    this.notify("initialized", {});
    return this.initializeResult;
  }

  // ------------------------------------------------------------ buffers

  buffer(rel: string): BufferView | undefined {
    return this.buffers.get(this.path(rel));
  }

  /** didOpen (version 1, disk text unless given). Opening a hidden buffer shows it with its unsaved text. */
  async open(rel: string, text?: string, languageId?: string): Promise<BufferView> {
    const abs = this.path(rel);
    const existing = this.buffers.get(abs);
    if (existing && !existing.hidden) throw new Error(`${rel} is already open`);
    if (existing) {
      existing.hidden = false;
      if (!existing.attached) this.buffers.attach(existing);
      return existing;
    }
    const content = text ?? (await fs.readFile(abs, "utf8"));
    const buffer = this.buffers.create(abs, content, 1, languageId ?? languageOf(rel), false);
    this.buffers.attach(buffer);
    return buffer;
  }

  /** The user replaces the first occurrence of `find`; resolves once the didChange has been sent. */
  type(rel: string, find: string, replace: string): Promise<void> {
    const buffer = this.buffers.mustGet(rel);
    return this.change(rel, [{ range: rangeOf(buffer.text, find), newText: replace }]);
  }

  /** The user makes these edits (ranges into the current text) as one change. */
  change(rel: string, edits: TextEdit[]): Promise<void> {
    const buffer = this.buffers.mustGet(rel);
    const sent = this.buffers.edit(buffer, edits);
    // Typing goes out at once in Helix and (after its idle timer) eglot; Neovim debounces it with everything else.
    if (this.style !== "neovim") this.buffers.send(buffer);
    return sent;
  }

  /** Writes the buffer to disk and sends didSave (nobody does this for lockstep's edits). */
  async save(rel: string): Promise<void> {
    const buffer = this.buffers.mustGet(rel);
    await fs.writeFile(buffer.abs, buffer.text);
    this.buffers.send(buffer);
    this.notify("textDocument/didSave", { textDocument: { uri: buffer.uri } });
  }

  /** lockstep/saveFiles: each named buffer that is open, saved as `save` does (or refused, by the options). */
  private async saveUris(
    uris: readonly string[],
  ): Promise<{ saved: string[]; failed?: { uri: string; message: string }[] }> {
    const refuse = this.options.saveFiles;
    if (typeof refuse === "object")
      return { saved: [], failed: uris.map((uri) => ({ uri, message: refuse.refuse })) };
    const saved: string[] = [];
    for (const uri of uris) {
      const abs = fileURLToPath(uri);
      if (this.buffers.get(abs) === undefined) continue;
      await this.save(path.relative(this.root, abs));
      saved.push(uri);
    }
    return { saved };
  }

  close(rel: string): void {
    const buffer = this.buffers.mustGet(rel);
    this.buffers.send(buffer);
    this.buffers.forget(buffer);
  }

  /** Sends every pending didChange now (eglot's idle timer; Neovim's debounce cut short). */
  async flush(): Promise<void> {
    this.buffers.sendAll();
  }

  /** Resolves when no didChange is waiting on a timer (Neovim's debounce, eglot's idle timer). */
  async settled(): Promise<void> {
    await this.buffers.settled();
  }

  // ------------------------------------------------------------ requests

  async command(name: string, arg?: unknown, options: { flush?: boolean } = {}): Promise<Envelope> {
    const command = name.includes(".") ? name : `lockstep.${name}`;
    return this.request<Envelope>(
      "workspace/executeCommand",
      arg === undefined ? { command } : { command, arguments: [arg] },
      options,
    );
  }

  /** A raw request. Neovim first sends its pending didChanges, unless `flush: false`. */
  async request<R>(method: string, params: unknown, options: { flush?: boolean } = {}): Promise<R> {
    if (this.style === "neovim" && options.flush !== false) await this.flush();
    this.outstanding++;
    try {
      return await this.connection.sendRequest<R>(method, params);
    } finally {
      this.outstanding--;
    }
  }

  async codeActions(
    rel: string,
    range?: Range,
    diagnostics: Diagnostic[] = [],
  ): Promise<(CodeAction | Command)[]> {
    const buffer = this.buffers.mustGet(rel);
    const result = await this.request<(CodeAction | Command)[] | null>("textDocument/codeAction", {
      textDocument: { uri: buffer.uri },
      range: range ?? wholeRange(buffer.text),
      context: { diagnostics, triggerKind: 1 },
    });
    return result ?? [];
  }

  /** What the editor does when the user picks an action: apply its edit, run its command. */
  async runCodeAction(action: CodeAction | Command): Promise<Envelope | undefined> {
    if ("edit" in action && action.edit) await applyWorkspaceEdit(this.buffers, this.style, action.edit);
    const command = typeof action.command === "string" ? (action as Command) : action.command;
    if (!command) return undefined;
    return this.request<Envelope>("workspace/executeCommand", {
      command: command.command,
      arguments: command.arguments ?? [],
    });
  }

  notify(method: string, params: unknown): void {
    this.sent.push({ method, params });
    if (!this.running) return;
    this.connection.sendNotification(method, params).catch(() => undefined);
  }

  waitForNotification(
    method: string,
    predicate: (params: unknown) => boolean = () => true,
    timeoutMs = WAIT_MS,
    from = 0,
  ): Promise<Message> {
    return this.inbox.waitFor(this.notifications, method, predicate, timeoutMs, from, "notification");
  }

  waitForRequest(
    method: string,
    predicate: (params: unknown) => boolean = () => true,
    timeoutMs = WAIT_MS,
    from = 0,
  ): Promise<RequestRecord> {
    return this.inbox.waitFor(this.requests, method, predicate, timeoutMs, from, "request");
  }

  // ------------------------------------------------------------ ending

  /** shutdown, then exit; resolves with the process's exit code. */
  async shutdown(timeoutMs = WAIT_MS): Promise<number | string | null> {
    await withTimeout(this.connection.sendRequest("shutdown"), timeoutMs, () => "the shutdown reply");
    return this.exitWithoutShutdown(timeoutMs);
  }

  /** The exit notification alone (the spec says: exit code 1 without a shutdown first). */
  async exitWithoutShutdown(timeoutMs = WAIT_MS): Promise<number | string | null> {
    this.notify("exit", undefined);
    const code = await withTimeout(this.exited, timeoutMs, () => "the server to exit");
    this.dispose();
    return code;
  }

  /** The client disappears: both pipes close. Resolves with the exit code once the server is gone. */
  async disconnect(timeoutMs = WAIT_MS): Promise<number | string | null> {
    this.buffers.clearTimers();
    this.connection.dispose();
    this.process.stdin.destroy();
    this.process.stdout.destroy();
    return withTimeout(this.exited, timeoutMs, () => "the server to exit after its client went away");
  }

  async kill(): Promise<void> {
    this.buffers.clearTimers();
    if (this.running) this.process.kill("SIGKILL");
    await this.exited;
    this.dispose();
  }

  // ------------------------------------------------------------ internals

  private dispose(): void {
    this.buffers.clearTimers();
    this.connection.dispose();
    liveClients.delete(this);
  }

  private async answer(method: string, params: unknown): Promise<unknown> {
    const record: RequestRecord = { method, params };
    try {
      record.result = await answerServerRequest(this.editor, method, params);
      return record.result;
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error);
      throw error;
    } finally {
      this.inbox.received(this.requests, record);
    }
  }

  private async onApplyEdit(params: ApplyWorkspaceEditParams): Promise<ApplyWorkspaceEditResult> {
    const record: ApplyEditRecord = { params, skipped: [] };
    this.applyEditRequests.push(record);
    await this.beforeApplyEdit?.(params, this);
    if (this.lies > 0) {
      // A client that answers "applied" and applies nothing (and so sends no didChange).
      this.lies--;
      record.reply = { applied: true };
      return record.reply;
    }
    try {
      record.reply = await applyWorkspaceEdit(this.buffers, this.style, params.edit, record);
      return record.reply;
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error);
      throw error;
    }
  }
}
