// A test client that spawns the real server (`node bin/lockstep.js --stdio`)
// and drives it over stdio the way Helix, Neovim or eglot does (facts from
// the shared EDITORS.md). It owns buffers, applies the server's
// WorkspaceEdits to them itself and sends didChange when, and only when, the
// imitated editor would. No vitest import: bench/server.ts uses it too.
//
// API (stable; other tests build on it)
//   startServer({root, style, initializationOptions?, env?, showMessageRequest?,
//                configuration?, args?, workDoneProgress?, beforeApplyEdit?})
//     → TestClient, initialized (initialize + initialized sent).
//     style "helix" | "neovim" | "eglot" | "no-apply-edit" decides the client
//     capabilities and how workspace/applyEdit is answered:
//       helix:  stale TextDocumentEdit.version → {applied:false, failureReason, failedChange};
//               else apply, send didChange, then reply {applied:true}.
//       neovim: stale version on the FIRST documentChanges entry → skipped silently,
//               reply still {applied:true}; every didChange (edits and typing) is sent
//               150 ms after the first unsent change; pending changes are flushed before
//               any request the client makes (changetracking.flush); pass
//               {flush:false} to command() to imitate a request from another buffer.
//       eglot:  stale → JSON-RPC error "Edits on `F' require version N, you have M";
//               else apply and reply; the didChange waits for client.flush() (the
//               0.5 s idle timer that never fires while Emacs waits on the server).
//               Typing flushes pending changes, then sends its own at once.
//       no-apply-edit: no workspace.applyEdit capability.
//     A TextDocumentEdit for a file that is not open loads it from disk into a hidden
//     buffer (unsaved, disk untouched). Helix and eglot announce it with didOpen
//     (version 0) and then treat it like any buffer; Neovim keeps it unattached until
//     open(). CreateFile (helix, neovim) creates an empty file on disk, like they do;
//     DeleteFile (helix, neovim) removes it and closes its buffer.
//     showMessageRequest: answers window/showMessageRequest; when absent,
//     window.showMessage is not advertised. configuration: the whole settings tree
//     ({lockstep: {...}}) answering workspace/configuration; when absent, not advertised.
//     workDoneProgress: advertise window.workDoneProgress (default: helix, neovim).
//   client.open(rel, text?, languageId?)   didOpen, version 1, text defaults to disk
//   client.type(rel, find, replace)        the user types (first occurrence of find);
//                                          resolves when the didChange has been sent
//   client.change(rel, edits)              the user makes several edits at once
//   client.buffer(rel)                     {uri, rel, version, text, hidden, attached} | undefined
//   client.close(rel) / client.save(rel)
//   client.command(name, arg?, {flush?})   workspace/executeCommand; name with or without
//                                          "lockstep."; arg undefined → no arguments → Envelope
//   client.request(method, params)         any raw request
//   client.codeActions(rel, range?, diagnostics?) / client.runCodeAction(action)
//   client.notifications                   [{method, params}] received, in order
//   client.waitForNotification(method, predicate?, timeoutMs = 5000, from = 0)
//                                          first match at index ≥ from, already received or not
//   client.requests / waitForRequest(...)  server → client requests, with what was answered
//   client.applyEditRequests               [{params, reply?, error?, skipped}] per applyEdit
//   client.sent                            client → server notifications, in order
//   client.flush() / client.settled()      send pending didChanges now / wait for debounced ones
//   client.shutdown()                      shutdown + exit → the process's exit code
//   client.exitWithoutShutdown() / client.disconnect() (closes the pipes) → exit code
//   client.kill()                          SIGKILL the server; client.stderr, client.pid
//   launch(files, options)                 createWorkspace(files) + startServer
//   cleanup()                              kills every server still running and removes the
//                                          workspaces createWorkspace made (afterEach(cleanup))
//   serverEntry() (the script a server is started from),
//   createWorkspace(files) / removeWorkspace(root), sha256(text), applyTextEdits(text, edits),
//   offsetAt / positionAt / rangeOf (UTF-16 positions; lines end at \n, \r\n or \r)
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, promises as fs, mkdtempSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createMessageConnection, ResponseError, StreamMessageReader, StreamMessageWriter, type MessageConnection } from "vscode-jsonrpc/node.js";
import type {
  ApplyWorkspaceEditParams,
  ApplyWorkspaceEditResult,
  ClientCapabilities,
  CodeAction,
  Command,
  ConfigurationParams,
  CreateFile,
  DeleteFile,
  Diagnostic,
  InitializeParams,
  InitializeResult,
  MessageActionItem,
  Position,
  Range,
  ShowMessageRequestParams,
  TextDocumentContentChangeEvent,
  TextDocumentEdit,
  TextEdit,
} from "vscode-languageserver-protocol";

// ---------------------------------------------------------------- results

export interface FileState {
  file_path: string;
  uri: string;
  version: number | null;
  sha256: string;
  content: string;
  open: boolean;
  /** Text lockstep delivered that the editor has not confirmed yet. */
  unconfirmed?: true;
}

export type Data = Record<string, unknown>;
export type Envelope = { ok: true; data: Data } | { ok: false; error: { code: string; message: string; suggestions: string[] }; data?: Data };

/** `data.latest_file_state` (or the data itself for read_file); throws naming what came instead. */
export function stateOf(envelope: Envelope): FileState {
  const data = envelope.data;
  const state = data && "latest_file_state" in data ? data["latest_file_state"] : data;
  if (typeof state !== "object" || state === null || !("sha256" in state)) throw new Error(`no file state in ${JSON.stringify(envelope)}`);
  return state as FileState;
}

export function sha256(text: string | Uint8Array): string {
  return createHash("sha256").update(text).digest("hex");
}

// ---------------------------------------------------------------- text

/** Offsets where each line starts; lines end at \n, \r\n or \r. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  // The native search keeps a big buffer's edits cheap (the bench applies one per patch).
  if (!text.includes("\r")) {
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
    return starts;
  }
  const eol = /\r\n?|\n/g;
  for (let m = eol.exec(text); m !== null; m = eol.exec(text)) starts.push(m.index + m[0].length);
  return starts;
}

/** LSP position (UTF-16) → offset, clamped as the spec says: past the line end is the line end, past the last line is the end. */
export function offsetAt(text: string, position: Position, starts = lineStarts(text)): number {
  if (position.line < 0) return 0;
  const start = starts[position.line];
  if (start === undefined) return text.length;
  let end = starts[position.line + 1] ?? text.length;
  // The line's own length excludes its terminator.
  if (end > start && text.charCodeAt(end - 1) === 10) end--;
  if (end > start && text.charCodeAt(end - 1) === 13) end--;
  return start + Math.min(Math.max(position.character, 0), end - start);
}

export function positionAt(text: string, offset: number, starts = lineStarts(text)): Position {
  const at = Math.min(Math.max(offset, 0), text.length);
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, character: at - starts[lo]! };
}

/** The range of the `occurrence`-th (0-based) occurrence of `find` in `text`. */
export function rangeOf(text: string, find: string, occurrence = 0): Range {
  let at = -1;
  for (let i = 0; i <= occurrence; i++) {
    at = text.indexOf(find, at + 1);
    if (at === -1) throw new Error(`${JSON.stringify(find)} does not occur ${occurrence + 1} time(s) in the text`);
  }
  const starts = lineStarts(text);
  return { start: positionAt(text, at, starts), end: positionAt(text, at + find.length, starts) };
}

export function wholeRange(text: string): Range {
  return { start: { line: 0, character: 0 }, end: positionAt(text, text.length) };
}

/** Edits in order of position (ties keep their given order), each as offsets into `text`. */
function sortedOffsets(text: string, edits: readonly TextEdit[], starts = lineStarts(text)): { start: number; end: number; newText: string }[] {
  const spans = edits.map((e, i) => ({ start: offsetAt(text, e.range.start, starts), end: offsetAt(text, e.range.end, starts), newText: e.newText, i }));
  spans.sort((a, b) => a.start - b.start || a.i - b.i);
  for (let k = 0; k < spans.length; k++) {
    const s = spans[k]!;
    if (s.end < s.start) throw new Error(`text edit with end before start: ${JSON.stringify(edits[s.i])}`);
    const next = spans[k + 1];
    if (next && next.start < s.end) throw new Error(`overlapping text edits: ${JSON.stringify(edits[s.i])} and ${JSON.stringify(edits[next.i])}`);
  }
  return spans;
}

/** Applies LSP text edits, all ranges referring to `text` (the LSP rule); throws on overlaps. */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  return applySpans(text, sortedOffsets(text, edits));
}

function applySpans(text: string, spans: readonly { start: number; end: number; newText: string }[]): string {
  let out = "";
  let at = 0;
  for (const s of spans) {
    out += text.slice(at, s.start) + s.newText;
    at = s.end;
  }
  return out + text.slice(at);
}

/**
 * The same edits as didChange content changes, which apply one after another:
 * last position first, so each range is still valid when its turn comes.
 */
function contentChangesFor(text: string, spans: readonly { start: number; end: number; newText: string }[], starts: number[]): TextDocumentContentChangeEvent[] {
  return [...spans]
    .reverse()
    .map((s) => ({ range: { start: positionAt(text, s.start, starts), end: positionAt(text, s.end, starts) }, text: s.newText }));
}

// ---------------------------------------------------------------- workspaces

const workspaces = new Set<string>();

/** A fresh temporary directory (real path) holding `files`; cleanup() removes it. */
export async function createWorkspace(files: Record<string, string | Uint8Array> = {}, prefix = "lockstep-lsp-"): Promise<string> {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  workspaces.add(root);
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, content);
  }
  return root;
}

export async function removeWorkspace(root: string): Promise<void> {
  workspaces.delete(root);
  await fs.rm(root, { recursive: true, force: true });
}

// ---------------------------------------------------------------- the client

export type EditorStyle = "helix" | "neovim" | "eglot" | "no-apply-edit";

/** eglot sends its didChanges after this much idle time (eglot-send-changes-idle-time). */
const EGLOT_IDLE_MS = 500;

export interface StartOptions {
  root: string;
  style: EditorStyle;
  initializationOptions?: Record<string, unknown>;
  env?: Record<string, string>;
  showMessageRequest?: (params: ShowMessageRequestParams) => Promise<MessageActionItem | null>;
  configuration?: Record<string, unknown>;
  args?: string[];
  workDoneProgress?: boolean;
  /** Runs when a workspace/applyEdit arrives, before the client decides (e.g. the user types meanwhile). */
  beforeApplyEdit?: (params: ApplyWorkspaceEditParams, client: TestClient) => void | Promise<void>;
  /** Neovim's didChange debounce (ms). */
  debounceMs?: number;
}

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

interface Buffer extends BufferView {
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

export interface ApplyEditRecord {
  params: ApplyWorkspaceEditParams;
  reply?: ApplyWorkspaceEditResult;
  /** The JSON-RPC error the client answered with (eglot). */
  error?: string;
  /** TextDocumentEdits the client skipped while replying applied: true (Neovim). */
  skipped: TextDocumentEdit[];
}

export interface RequestRecord {
  method: string;
  params: unknown;
  result?: unknown;
  error?: string;
}

export interface Message {
  method: string;
  params: unknown;
}

const LANGUAGES: Record<string, string> = { ".ts": "typescript", ".js": "javascript", ".py": "python", ".md": "markdown", ".diff": "diff", ".patch": "diff", ".go": "go", ".rs": "rust", ".json": "json" };

function languageOf(rel: string): string {
  return LANGUAGES[path.extname(rel)] ?? "plaintext";
}

/** bin/lockstep.js of the project this file lives in (from test/support or dist/test/support). */
export function serverEntry(): string {
  for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
    const bin = path.join(dir, "bin", "lockstep.js");
    if (existsSync(bin) && existsSync(path.join(dir, "package.json"))) return bin;
    if (dir === path.dirname(dir)) throw new Error(`no bin/lockstep.js above ${import.meta.dirname}`);
  }
}

function capabilitiesFor(options: StartOptions): ClientCapabilities {
  const { style } = options;
  const progress = options.workDoneProgress ?? (style === "helix" || style === "neovim");
  const window: NonNullable<ClientCapabilities["window"]> = {
    workDoneProgress: progress,
    ...(options.showMessageRequest ? { showMessage: { messageActionItem: { additionalPropertiesSupport: false } } } : {}),
    ...(style === "helix" ? { showDocument: { support: true } } : {}),
  };
  const codeAction = {
    dynamicRegistration: false,
    codeActionLiteralSupport: { codeActionKind: { valueSet: ["", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source", "source.organizeImports"] } },
  };
  const textDocument: ClientCapabilities["textDocument"] = {
    synchronization: { dynamicRegistration: false, didSave: true, willSave: style === "eglot", willSaveWaitUntil: style === "eglot" },
    codeAction: style === "helix" ? { ...codeAction, isPreferredSupport: true, disabledSupport: true, dataSupport: true, resolveSupport: { properties: ["edit", "command"] } } : codeAction,
    publishDiagnostics: { relatedInformation: true },
  };
  const configuration = options.configuration !== undefined;
  if (style === "no-apply-edit") {
    return { workspace: { workspaceFolders: true, configuration }, textDocument, window };
  }
  const resourceOperations = style === "eglot" ? undefined : style === "helix" ? ["create", "rename", "delete"] : ["rename", "create", "delete"];
  return {
    workspace: {
      applyEdit: true,
      workspaceEdit: { documentChanges: true, ...(resourceOperations ? { resourceOperations: resourceOperations as ("create" | "rename" | "delete")[] } : {}) },
      executeCommand: { dynamicRegistration: false },
      workspaceFolders: true,
      configuration,
      didChangeConfiguration: { dynamicRegistration: false },
    },
    textDocument,
    window,
    ...(style === "helix" ? { general: { positionEncodings: ["utf-8", "utf-32", "utf-16"] } } : {}),
  };
}

const CLIENT_INFO: Record<EditorStyle, { name: string; version: string }> = {
  helix: { name: "helix", version: "25.07" },
  neovim: { name: "Neovim", version: "0.7.2" },
  eglot: { name: "Eglot", version: "1.9" },
  "no-apply-edit": { name: "plain", version: "0" },
};

const live = new Set<TestClient>();

/** Kills every server a test started and did not stop (call it in afterEach). */
export async function stopAllServers(): Promise<void> {
  await Promise.all([...live].map((c) => c.kill()));
}

/** Kills every server still running and removes every workspace createWorkspace made (afterEach). */
export async function cleanup(): Promise<void> {
  await stopAllServers();
  await Promise.all([...workspaces].map(removeWorkspace));
}

/** A workspace holding `files` and a server started on it. */
export async function launch(files: Record<string, string | Uint8Array>, options: Omit<StartOptions, "root">): Promise<TestClient> {
  return startServer({ ...options, root: await createWorkspace(files) });
}

export async function startServer(options: StartOptions): Promise<TestClient> {
  const client = new TestClient(options);
  live.add(client);
  try {
    await client.initialize();
  } catch (error) {
    await client.kill();
    throw error;
  }
  return client;
}

function lookup(tree: Record<string, unknown> | undefined, section: string | undefined): unknown {
  if (tree === undefined) return null;
  if (!section) return tree;
  let at: unknown = tree;
  for (const key of section.split(".")) {
    if (typeof at !== "object" || at === null || !(key in at)) return null;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what()}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

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
  private readonly buffers = new Map<string, Buffer>();
  private readonly waiters: (() => void)[] = [];
  private running = true;

  constructor(private readonly options: StartOptions) {
    this.style = options.style;
    this.root = options.root;
    this.beforeApplyEdit = options.beforeApplyEdit;
    this.configuration = options.configuration;
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
    this.connection = createMessageConnection(new StreamMessageReader(this.process.stdout), new StreamMessageWriter(this.process.stdin));
    this.connection.onNotification((method, params) => this.received(this.notifications, { method, params }));
    // vscode-jsonrpc routes $/progress apart from other notifications.
    this.connection.onUnhandledProgress((params) => this.received(this.notifications, { method: "$/progress", params }));
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
      ...(this.options.initializationOptions ? { initializationOptions: this.options.initializationOptions } : {}),
    };
    const died = this.exited.then((code) => {
      throw new Error(`the server exited (${String(code)}) before answering initialize; stderr:\n${this.stderrText}`);
    });
    this.initializeResult = await Promise.race([this.connection.sendRequest<InitializeResult>("initialize", params), died]);
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
      if (!existing.attached) this.attach(existing);
      return existing;
    }
    const content = text ?? (await fs.readFile(abs, "utf8"));
    const buffer = this.newBuffer(abs, content, 1, languageId ?? languageOf(rel), false);
    this.attach(buffer);
    return buffer;
  }

  /** The user replaces the first occurrence of `find`; resolves once the didChange has been sent. */
  type(rel: string, find: string, replace: string): Promise<void> {
    const buffer = this.mustGet(rel);
    return this.change(rel, [{ range: rangeOf(buffer.text, find), newText: replace }]);
  }

  /** The user makes these edits (ranges into the current text) as one change. */
  change(rel: string, edits: TextEdit[]): Promise<void> {
    const buffer = this.mustGet(rel);
    const sent = this.edit(buffer, edits);
    // Typing goes out at once in Helix and (after its idle timer) eglot; Neovim debounces it with everything else.
    if (this.style !== "neovim") this.sendChanges(buffer);
    return sent;
  }

  /** Writes the buffer to disk and sends didSave (nobody does this for lockstep's edits). */
  async save(rel: string): Promise<void> {
    const buffer = this.mustGet(rel);
    await fs.writeFile(buffer.abs, buffer.text);
    this.sendChanges(buffer);
    this.notify("textDocument/didSave", { textDocument: { uri: buffer.uri } });
  }

  close(rel: string): void {
    const buffer = this.mustGet(rel);
    this.sendChanges(buffer);
    if (buffer.attached) this.notify("textDocument/didClose", { textDocument: { uri: buffer.uri } });
    this.buffers.delete(this.path(rel));
  }

  /** Sends every pending didChange now (eglot's idle timer; Neovim's debounce cut short). */
  async flush(): Promise<void> {
    for (const buffer of this.buffers.values()) this.sendChanges(buffer);
  }

  /** Resolves when no didChange is waiting on a timer (Neovim's debounce, eglot's idle timer). */
  async settled(): Promise<void> {
    await Promise.all(
      [...this.buffers.values()].filter((b) => b.timer !== undefined).map((b) => new Promise<void>((resolve) => b.onSent.push(resolve))),
    );
  }

  // ------------------------------------------------------------ requests

  async command(name: string, arg?: unknown, options: { flush?: boolean } = {}): Promise<Envelope> {
    const command = name.includes(".") ? name : `lockstep.${name}`;
    return this.request<Envelope>("workspace/executeCommand", arg === undefined ? { command } : { command, arguments: [arg] }, options);
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

  async codeActions(rel: string, range?: Range, diagnostics: Diagnostic[] = []): Promise<(CodeAction | Command)[]> {
    const buffer = this.mustGet(rel);
    const result = await this.request<(CodeAction | Command)[] | null>("textDocument/codeAction", {
      textDocument: { uri: buffer.uri },
      range: range ?? wholeRange(buffer.text),
      context: { diagnostics, triggerKind: 1 },
    });
    return result ?? [];
  }

  /** What the editor does when the user picks an action: apply its edit, run its command. */
  async runCodeAction(action: CodeAction | Command): Promise<Envelope | undefined> {
    if ("edit" in action && action.edit) await this.applyWorkspaceEdit({ edit: action.edit });
    const command = typeof action.command === "string" ? (action as Command) : action.command;
    if (!command) return undefined;
    return this.request<Envelope>("workspace/executeCommand", { command: command.command, arguments: command.arguments ?? [] });
  }

  notify(method: string, params: unknown): void {
    this.sent.push({ method, params });
    if (!this.running) return;
    this.connection.sendNotification(method, params).catch(() => undefined);
  }

  waitForNotification(method: string, predicate: (params: unknown) => boolean = () => true, timeoutMs = 5000, from = 0): Promise<Message> {
    return this.waitFor(this.notifications, method, predicate, timeoutMs, from, "notification");
  }

  waitForRequest(method: string, predicate: (params: unknown) => boolean = () => true, timeoutMs = 5000, from = 0): Promise<RequestRecord> {
    return this.waitFor(this.requests, method, predicate, timeoutMs, from, "request");
  }

  // ------------------------------------------------------------ ending

  /** shutdown, then exit; resolves with the process's exit code. */
  async shutdown(timeoutMs = 5000): Promise<number | string | null> {
    await withTimeout(this.connection.sendRequest("shutdown"), timeoutMs, () => "the shutdown reply");
    return this.exitWithoutShutdown(timeoutMs);
  }

  /** The exit notification alone (the spec says: exit code 1 without a shutdown first). */
  async exitWithoutShutdown(timeoutMs = 5000): Promise<number | string | null> {
    this.notify("exit", undefined);
    const code = await withTimeout(this.exited, timeoutMs, () => "the server to exit");
    this.dispose();
    return code;
  }

  /** The client disappears: both pipes close. Resolves with the exit code once the server is gone. */
  async disconnect(timeoutMs = 5000): Promise<number | string | null> {
    this.clearTimers();
    this.connection.dispose();
    this.process.stdin.destroy();
    this.process.stdout.destroy();
    return withTimeout(this.exited, timeoutMs, () => "the server to exit after its client went away");
  }

  async kill(): Promise<void> {
    this.clearTimers();
    if (this.running) this.process.kill("SIGKILL");
    await this.exited;
    this.dispose();
  }

  // ------------------------------------------------------------ internals

  private dispose(): void {
    this.clearTimers();
    this.connection.dispose();
    live.delete(this);
  }

  private clearTimers(): void {
    for (const b of this.buffers.values()) {
      clearTimeout(b.timer);
      b.timer = undefined;
    }
  }

  private mustGet(rel: string): Buffer {
    const buffer = this.buffers.get(this.path(rel));
    if (!buffer) throw new Error(`${rel} is not open`);
    return buffer;
  }

  private newBuffer(abs: string, text: string, version: number, languageId: string, hidden: boolean): Buffer {
    const buffer: Buffer = {
      uri: pathToFileURL(abs).href,
      rel: path.relative(this.root, abs).split(path.sep).join("/"),
      abs,
      languageId,
      version,
      text,
      hidden,
      attached: false,
      unsent: [],
      onSent: [],
    };
    this.buffers.set(abs, buffer);
    return buffer;
  }

  private attach(buffer: Buffer): void {
    buffer.attached = true;
    this.notify("textDocument/didOpen", { textDocument: { uri: buffer.uri, languageId: buffer.languageId, version: buffer.version, text: buffer.text } });
  }

  /** Applies edits to the buffer, moves its version, queues the change; resolves when the change is sent. */
  private edit(buffer: Buffer, edits: readonly TextEdit[]): Promise<void> {
    const starts = lineStarts(buffer.text);
    const spans = sortedOffsets(buffer.text, edits, starts);
    const changes = contentChangesFor(buffer.text, spans, starts);
    buffer.text = applySpans(buffer.text, spans);
    buffer.version++;
    if (!buffer.attached) return Promise.resolve();
    buffer.unsent.push(...changes);
    if (this.style === "neovim" && buffer.timer === undefined) {
      buffer.timer = setTimeout(() => this.sendChanges(buffer), this.options.debounceMs ?? 150);
    }
    if (this.style === "eglot" && buffer.timer === undefined) this.idleTimer(buffer);
    return new Promise((resolve) => buffer.onSent.push(resolve));
  }

  /**
   * eglot's didChange goes out on a 0.5 s idle timer, which does not fire while
   * Emacs waits for a reply to its own request: held until no request is out.
   */
  private idleTimer(buffer: Buffer, ms = EGLOT_IDLE_MS): void {
    buffer.timer = setTimeout(() => {
      if (this.outstanding > 0) this.idleTimer(buffer, 10);
      else this.sendChanges(buffer);
    }, ms);
  }

  private sendChanges(buffer: Buffer): void {
    clearTimeout(buffer.timer);
    buffer.timer = undefined;
    if (buffer.unsent.length > 0 && buffer.attached) {
      const contentChanges = buffer.unsent.splice(0);
      this.notify("textDocument/didChange", { textDocument: { uri: buffer.uri, version: buffer.version }, contentChanges });
    }
    for (const resolve of buffer.onSent.splice(0)) resolve();
  }

  private received<T extends { method: string }>(list: T[], entry: T): void {
    list.push(entry);
    // Waiters run after the current handler has answered, so a reply is on the wire before the test goes on.
    setImmediate(() => {
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  private waitFor<T extends { method: string; params: unknown }>(list: T[], method: string, predicate: (params: unknown) => boolean, timeoutMs: number, from: number, what: string): Promise<T> {
    const find = (): T | undefined => list.slice(from).find((m) => m.method === method && predicate(m.params));
    const found = new Promise<T>((resolve) => {
      const check = (): void => {
        const hit = find();
        if (hit) resolve(hit);
        else this.waiters.push(check);
      };
      check();
    });
    return withTimeout(found, timeoutMs, () => `the ${what} ${method}; received: ${list.map((m) => m.method).join(", ") || "nothing"}`);
  }

  private async answer(method: string, params: unknown): Promise<unknown> {
    const record: RequestRecord = { method, params };
    try {
      record.result = await this.handle(method, params);
      return record.result;
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error);
      throw error;
    } finally {
      this.received(this.requests, record);
    }
  }

  private handle(method: string, params: unknown): unknown {
    switch (method) {
      case "workspace/applyEdit":
        if (this.style === "no-apply-edit") throw new ResponseError(-32601, "Unhandled method workspace/applyEdit");
        return this.onApplyEdit(params as ApplyWorkspaceEditParams);
      case "workspace/configuration":
        return (params as ConfigurationParams).items.map((item) => lookup(this.configuration, item.section));
      case "window/showMessageRequest":
        if (!this.options.showMessageRequest) throw new ResponseError(-32601, "Unhandled method window/showMessageRequest");
        return this.options.showMessageRequest(params as ShowMessageRequestParams);
      case "window/workDoneProgress/create":
      case "client/registerCapability":
      case "client/unregisterCapability":
        return null;
      case "window/showDocument":
        return { success: this.style === "helix" };
      case "workspace/workspaceFolders":
        return [{ uri: pathToFileURL(this.root).href, name: path.basename(this.root) }];
      default:
        throw new ResponseError(-32601, `Unhandled method ${method}`);
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
      record.reply = await this.applyWorkspaceEdit(params, record);
      return record.reply;
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error);
      throw error;
    }
  }

  private async applyWorkspaceEdit(params: Pick<ApplyWorkspaceEditParams, "edit">, record?: ApplyEditRecord): Promise<ApplyWorkspaceEditResult> {
    const edit = params.edit;
    const changes: (TextDocumentEdit | CreateFile | { kind: string })[] =
      edit.documentChanges ?? Object.entries(edit.changes ?? {}).map(([uri, edits]) => ({ textDocument: { uri, version: null }, edits }));
    for (let index = 0; index < changes.length; index++) {
      const change = changes[index]!;
      if ("kind" in change) {
        if (this.style === "eglot") throw new ResponseError(-32603, `Unsupported resource operation: ${change.kind}`);
        if (change.kind === "delete") {
          await this.deleteFile(change as DeleteFile);
          continue;
        }
        if (change.kind !== "create") return { applied: false, failureReason: `the test client does not do ${change.kind}`, failedChange: index };
        await this.createFile(change as CreateFile);
        continue;
      }
      const docEdit = change as TextDocumentEdit;
      const abs = fileURLToPath(docEdit.textDocument.uri);
      const buffer = this.buffers.get(abs) ?? (await this.load(abs));
      const wanted = docEdit.textDocument.version;
      if (wanted !== null && wanted !== undefined) {
        if (this.style === "helix" && wanted !== buffer.version) {
          return { applied: false, failureReason: `Document ${buffer.rel} changed: the edit is for version ${wanted}, the document is at version ${buffer.version}`, failedChange: index };
        }
        if (this.style === "eglot" && wanted !== buffer.version) {
          throw new ResponseError(-32603, `Edits on \`${abs}' require version ${wanted}, you have ${buffer.version}`);
        }
        if (this.style === "neovim" && index === 0 && wanted > 0 && buffer.version > wanted) {
          record?.skipped.push(docEdit);
          continue;
        }
      }
      const edits = docEdit.edits.map((e) => ({ range: e.range, newText: e.newText }));
      void this.edit(buffer, edits);
      if (this.style === "helix") this.sendChanges(buffer);
    }
    return { applied: true };
  }

  /** A file the editor is asked to edit but has not open: loaded from disk, unsaved, unseen. */
  private async load(abs: string): Promise<Buffer> {
    let text = "";
    try {
      text = await fs.readFile(abs, "utf8");
    } catch (error) {
      // Neovim's bufload of a missing file gives an empty buffer; Helix and eglot fail.
      if (this.style !== "neovim") throw new ResponseError(-32603, `cannot open ${abs}: ${String(error)}`);
    }
    const buffer = this.newBuffer(abs, text, 0, languageOf(abs), true);
    // Helix (Editor::open) and eglot (find-file-noselect, then eglot's mode hook) tell the server; Neovim's hidden buffer is not attached.
    if (this.style !== "neovim") this.attach(buffer);
    return buffer;
  }

  /** Helix and Neovim delete the file and drop its buffer (the server hears didClose). */
  private async deleteFile(change: DeleteFile): Promise<void> {
    const abs = fileURLToPath(change.uri);
    const buffer = this.buffers.get(abs);
    if (buffer) {
      if (buffer.attached) this.notify("textDocument/didClose", { textDocument: { uri: buffer.uri } });
      this.buffers.delete(abs);
    }
    await fs.rm(abs, { force: change.options?.ignoreIfNotExists === true });
  }

  private async createFile(change: CreateFile): Promise<void> {
    const abs = fileURLToPath(change.uri);
    const opts = change.options ?? {};
    const exists = existsSync(abs);
    // Neovim 0.7: truncates unless ignoreIfExists (without overwrite); Helix: skips an existing file when ignoreIfExists.
    const write = this.style === "neovim" ? !opts.ignoreIfExists || opts.overwrite === true : !exists || opts.overwrite === true || !opts.ignoreIfExists;
    if (write) {
      await fs.mkdir(path.dirname(abs), { recursive: true });
      await fs.writeFile(abs, "");
    }
  }
}
