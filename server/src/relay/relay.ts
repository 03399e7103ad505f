// relay/: wrap mode. Knows nothing of lockstep's features or of what diagnostics mean.
// lockstep in front of the user's own language server (the child). The editor
// sees one server. Requests go to the child untouched, except lockstep's own
// commands (to lockstep) and initialize, code actions and shutdown (to both,
// answers merged); notifications go to both, in the order they came; what the
// child and lockstep ask of the editor goes out under ids of the relay's own, so
// theirs never collide. The child's diagnostics go to lockstep, which publishes
// them merged with its own; which text each list speaks for is diagnostics/versions.ts's.
import type { Readable, Writable } from "node:stream";
import { Message, type NotificationMessage, type RequestMessage, type ResponseMessage } from "vscode-jsonrpc";
import { ChildServer, EXIT_GRACE_MS } from "./child-server.js";
import { concatActions, mergeCapabilities, mergeServerInfo, type ServerInfo } from "./capabilities.js";
import { STUCK_MS, TO_CHILD_BOUND, ToEditor, Valve } from "./flow.js";
import { readFrames, type Frame } from "../jsonrpc/framing.js";
import { memoryChannel, type MemoryChannel } from "./in-memory.js";
import type { ChildDiagnostics } from "../diagnostics/types.js";
import { SentVersions } from "../diagnostics/versions.js";
import type { OpenDocument, WrapLink, WrapStatus } from "./wrap-link.js";
import { HeldRequests } from "./held-requests.js";
import { missingFeatures, reasonLine } from "./wrap-status.js";

type Peer = "child" | "lockstep";
type Id = number | string;
type Json = Record<string, unknown>;

/** LSP's RequestFailed: the request was valid, the server that would answer it is not there. */
const REQUEST_FAILED = -32803;
/** How long the child has to answer initialize: servers answer at once and index afterwards, with progress. */
export const INITIALIZE_DEADLINE_MS = 30_000;
const INTERNAL = "lockstep-relay/";

interface EditorRequest {
  method: string;
  peers: Peer[];
  answers: Map<Peer, ResponseMessage>;
  combine?: (answers: Map<Peer, ResponseMessage>) => ResponseMessage;
}

/** A message and, when it came off a stream, its bytes: forwarded unchanged, they are written as they came. */
type Wire = Message | Frame;
const isFrame = (w: Wire): w is Frame => "raw" in w && Buffer.isBuffer(w.raw);
const messageOf = (w: Wire): Message => (isFrame(w) ? w.message : w);
const bytesOf = (w: Wire): Buffer | Message => (isFrame(w) ? w.raw : w);

export interface EditorSide {
  input: Readable;
  output: Writable;
  /** The editor's shutdown arrived: the end of its input is then a clean exit. */
  shutdownReceived(): void;
  /** The editor's stream cannot be read past (a broken header or body). */
  broken(why: string, inHeader: boolean): void;
}

export interface RelayOptions {
  editor: EditorSide;
  command: string;
  args: readonly string[];
  log: (what: string, value: unknown) => void;
  exit: (code: number) => void;
}

/** The answer to a request the wrapped server is not there to answer. */
const requestFailed = (id: Id, message: string): ResponseMessage => ({
  jsonrpc: "2.0",
  id,
  error: { code: REQUEST_FAILED, message },
});

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export class Relay implements WrapLink {
  /** lockstep's own server reads and writes this channel. */
  readonly lockstep: MemoryChannel;
  readonly childName: string;
  private readonly child: ChildServer;
  private readonly pending = new Map<Id, EditorRequest>();
  private readonly outgoing = new Map<number, { peer: Peer; id: Id }>();
  private nextOutgoing = 1;
  private nextInternal = 1;
  /**
   * The relay's own requests to the child (a restarted child's initialize), by id. An editor can send any id,
   * so these are told apart by being in flight, not by their look: one is in flight only while the editor's
   * requests are held, and the map is emptied when its child ends.
   */
  private readonly internal = new Map<Id, (response: ResponseMessage) => void>();
  /** Requests held while a restarted child initializes. */
  private readonly held = new HeldRequests<Wire>();
  /** Why the child is not there, when it is not and will not come back. */
  private gone: string | undefined;
  /** Why the child last ended and was restarted: the session says what happened. */
  private lastRestart: string | undefined;
  private initializeParams: Json | undefined;
  private childInitialized = false;
  /** What the child announced at its first initialize: what the editor loses if it goes. */
  private childCapabilities: Json | undefined;
  private shutdown = false;
  /** Which text of a document the child's lists speak for. */
  private readonly versions = new SentVersions();
  private readonly diagnosticListeners: ((published: ChildDiagnostics) => void)[] = [];
  private readonly goneListeners: (() => void)[] = [];
  private documents: () => OpenDocument[] = () => [];
  private readonly toEditorFlow: ToEditor;
  /** Holds the editor's input while the child does not read. */
  private readonly toChildFlow = new Valve();

  constructor(private readonly options: RelayOptions) {
    this.childName = options.command.split(/[\\/]/).pop() ?? options.command;
    this.lockstep = memoryChannel((m) => this.fromPeer("lockstep", m));
    this.toEditorFlow = new ToEditor(
      options.editor.output,
      () => this.child.output,
      (count, total) =>
        this.toEditor(
          note(
            `the editor read nothing for a while, so ${count} of ${this.childName}'s log and progress messages were dropped (${total} since the start).`,
          ),
        ),
    );
    this.child = new ChildServer(options.command, options.args, {
      message: (frame) => this.fromPeer("child", frame),
      ended: (reason, expected) => this.childEnded(reason, expected),
    });
    // A well-framed message that is not JSON-RPC is answered as JSON-RPC says, and the stream read on.
    readFrames(options.editor.input, (frame) => this.fromEditor(frame), options.editor.broken, {
      invalid: (code, message, id) =>
        this.toEditor({ jsonrpc: "2.0", id, error: { code, message } } as ResponseMessage),
      skipOversized: true,
    });
    // Nothing outlives lockstep, however it ends: its exit (the end of input, the editor's exit, a broken
    // frame), the usual signals (turned into an exit, as the companion's handler does too), SIGKILL (the tether).
    process.on("exit", () => this.child.killNow());
    for (const [signal, code] of [
      ["SIGTERM", 143],
      ["SIGINT", 130],
      ["SIGHUP", 129],
    ] as const)
      process.once(signal, () => process.exit(code));
    this.child.start();
  }

  status(): WrapStatus {
    if (this.gone !== undefined) {
      const missing = missingFeatures(this.childCapabilities, this.initializeParams);
      return {
        server: this.childName,
        state: "failed",
        restarts: this.child.restarts,
        reason: this.gone,
        missing,
        ...this.droppedCount(),
      };
    }
    const state = this.held.holding || !this.child.running ? "restarting" : "running";
    return {
      server: this.childName,
      state,
      restarts: this.child.restarts,
      ...(this.lastRestart !== undefined ? { reason: `restarted after ${this.lastRestart}` } : {}),
      ...this.droppedCount(),
    };
  }

  private droppedCount(): { dropped?: number } {
    return this.toEditorFlow.dropped > 0 ? { dropped: this.toEditorFlow.dropped } : {};
  }

  onDiagnostics(listener: (published: ChildDiagnostics) => void): void {
    this.diagnosticListeners.push(listener);
  }

  onChildGone(listener: () => void): void {
    this.goneListeners.push(listener);
  }

  openDocuments(provider: () => OpenDocument[]): void {
    this.documents = provider;
  }

  // Editor → servers.

  private fromEditor(frame: Frame): void {
    const message = frame.message;
    if (Message.isRequest(message)) this.editorRequest(message, frame);
    else if (Message.isResponse(message)) this.editorResponse(message);
    else if (Message.isNotification(message)) this.editorNotification(message, frame);
  }

  private editorRequest(request: RequestMessage, frame: Frame): void {
    switch (request.method) {
      case "initialize":
        return this.initialize(request);
      case "shutdown":
        this.shutdown = true;
        this.options.editor.shutdownReceived();
        return this.toPeers(frame, ["child", "lockstep"], () => ({
          jsonrpc: "2.0",
          id: request.id as Id,
          result: null,
        }));
      case "textDocument/codeAction":
        return this.toPeers(frame, ["child", "lockstep"], (answers) => ({
          jsonrpc: "2.0",
          id: request.id as Id,
          result: concatActions(answers.get("child")?.result, answers.get("lockstep")?.result),
        }));
      case "workspace/executeCommand": {
        const command = isObject(request.params) ? request.params["command"] : undefined;
        return this.toPeers(
          frame,
          typeof command === "string" && command.startsWith("lockstep.") ? ["lockstep"] : ["child"],
        );
      }
      default:
        return this.toPeers(frame, ["child"]);
    }
  }

  private initialize(request: RequestMessage): void {
    const params = isObject(request.params) ? request.params : {};
    const options = isObject(params["initializationOptions"]) ? params["initializationOptions"] : undefined;
    // initializationOptions.lockstep is lockstep's; the rest is the child's, as if lockstep were not there.
    const { lockstep: own, ...theirs } = options ?? {};
    this.initializeParams = { ...params, initializationOptions: options === undefined ? undefined : theirs };
    if (options === undefined) delete this.initializeParams["initializationOptions"];
    this.lockstep.deliver({
      ...request,
      params: { ...params, initializationOptions: own },
    } as RequestMessage);
    this.track(request, ["child", "lockstep"], (answers) => this.mergeInitialize(request.id as Id, answers));
    this.sendToChild({ ...request, params: this.initializeParams } as RequestMessage);
    // A child that never answers must not hold the editor's initialize, and lockstep's features, for ever.
    const id = request.id as Id;
    const timer = setTimeout(
      () =>
        this.pending.get(id)?.method === "initialize" &&
        this.answered("child", requestFailed(id, `no answer in ${INITIALIZE_DEADLINE_MS / 1000} s`)),
      INITIALIZE_DEADLINE_MS,
    );
    timer.unref();
  }

  private mergeInitialize(id: Id, answers: Map<Peer, ResponseMessage>): ResponseMessage {
    const own = answers.get("lockstep");
    const child = answers.get("child");
    const ownResult = isObject(own?.result) ? own.result : {};
    if (!isObject(child?.result)) {
      // A child that died on the way was named already, once. One that answered with an error is of no use
      // (LSP: no request before a successful initialize): it is told to exit, and killed if it does not.
      if (this.gone === undefined) {
        this.gone = reasonLine(
          `it did not initialize: ${child?.error?.message ?? "no answer"}`,
          this.child.stderrTail(),
        );
        this.tellUser(
          `the wrapped language server ${this.childName} ${this.gone}; lockstep's own features work without it.`,
        );
        this.child.send({ jsonrpc: "2.0", method: "exit" } as NotificationMessage);
        void this.child.stop();
      }
      return { jsonrpc: "2.0", id, result: ownResult };
    }
    this.childInitialized = true;
    this.childCapabilities = isObject(child.result["capabilities"]) ? child.result["capabilities"] : {};
    const caps = mergeCapabilities(
      isObject(child.result["capabilities"]) ? child.result["capabilities"] : {},
      isObject(ownResult["capabilities"]) ? ownResult["capabilities"] : {},
    );
    const serverInfo = mergeServerInfo(
      (child.result["serverInfo"] as ServerInfo | undefined) ?? { name: this.childName },
      (ownResult["serverInfo"] as ServerInfo | undefined) ?? { name: "lockstep" },
    );
    return { jsonrpc: "2.0", id, result: { ...child.result, capabilities: caps, serverInfo } };
  }

  private editorResponse(response: ResponseMessage): void {
    const route = typeof response.id === "number" ? this.outgoing.get(response.id) : undefined;
    if (!route) return;
    this.outgoing.delete(response.id as number);
    const back = { ...response, id: route.id } as ResponseMessage;
    if (route.peer === "lockstep") this.lockstep.deliver(back);
    else this.sendToChild(back);
  }

  private editorNotification(notification: NotificationMessage, frame: Frame): void {
    if (notification.method === "$/cancelRequest") {
      const id = isObject(notification.params) ? (notification.params["id"] as Id) : undefined;
      const request = id === undefined ? undefined : this.pending.get(id);
      for (const peer of request?.peers ?? []) this.toPeer(peer, frame);
      return;
    }
    if (notification.method === "exit") return void this.exit();
    this.versions.noteSent(notification.method, notification.params);
    // Documents go to both from the one stream, so lockstep's versions are the child's.
    this.lockstep.deliver(notification);
    // A restarting child gets the documents as they are once it is up, not the changes meanwhile.
    if (!this.held.holding || !notification.method.startsWith("textDocument/")) this.sendToChild(frame);
  }

  private async exit(): Promise<void> {
    this.sendToChild({ jsonrpc: "2.0", method: "exit" } as NotificationMessage);
    await this.child.stop();
    this.options.exit(this.shutdown ? 0 : 1);
  }

  // Routing with answers.

  private track(request: RequestMessage, peers: Peer[], combine?: EditorRequest["combine"]): void {
    this.pending.set(request.id!, {
      method: request.method,
      peers,
      answers: new Map(),
      ...(combine ? { combine } : {}),
    });
  }

  private toPeers(frame: Frame, peers: Peer[], combine?: EditorRequest["combine"]): void {
    const request = frame.message as RequestMessage;
    this.track(request, peers, combine);
    for (const peer of peers) this.toPeer(peer, frame);
    if (request.method === "shutdown") {
      // A child that does not answer shutdown does not hold the editor up.
      setTimeout(
        () => this.answered("child", { jsonrpc: "2.0", id: request.id!, result: null } as ResponseMessage),
        EXIT_GRACE_MS,
      ).unref();
    }
  }

  private toPeer(peer: Peer, wire: Wire): void {
    if (peer === "lockstep") this.lockstep.deliver(messageOf(wire));
    else this.sendToChild(wire);
  }

  private sendToChild(wire: Wire): void {
    const message = messageOf(wire);
    if (Message.isRequest(message)) {
      if (this.gone !== undefined) return this.answered("child", this.failure(message.id!));
      if (this.held.holding) {
        if (!this.held.hold(wire, isFrame(wire) ? wire.raw.length : JSON.stringify(wire).length))
          this.answered("child", this.busy(message.id!));
        return;
      }
    }
    this.child.send(bytesOf(wire));
    const input = this.child.input;
    if (input && input.writableLength > TO_CHILD_BOUND) {
      const stuck = `it stopped reading: more than ${TO_CHILD_BOUND / 1024 / 1024} MB sent to it waited ${STUCK_MS / 1000} s`;
      this.toChildFlow.hold(this.options.editor.input, input, () => this.child.abandon(stuck));
    }
  }

  private busy(id: Id): ResponseMessage {
    return requestFailed(
      id,
      `The wrapped language server ${this.childName} is restarting and ${this.held.count} requests already wait for it; ask again when it is up.`,
    );
  }

  private failure(id: Id): ResponseMessage {
    return requestFailed(
      id,
      `The wrapped language server ${this.childName} is not running (${this.gone ?? "restarting"}); lockstep's own commands still work.`,
    );
  }

  private answered(peer: Peer, wire: Wire): void {
    const response = messageOf(wire) as ResponseMessage;
    const id = response.id;
    if (id === null) return;
    const request = this.pending.get(id);
    if (!request || !request.peers.includes(peer) || request.answers.has(peer)) return;
    request.answers.set(peer, response);
    if (request.answers.size < request.peers.length) return;
    this.pending.delete(id);
    this.toEditor(
      request.combine ? request.combine(request.answers) : wire,
      request.peers.length === 1 ? peer : "lockstep",
    );
  }

  // Servers → editor.

  private fromPeer(peer: Peer, wire: Wire): void {
    const message = messageOf(wire);
    if (Message.isResponse(message)) {
      const resolve = peer === "child" && message.id !== null ? this.internal.get(message.id) : undefined;
      if (resolve) {
        this.internal.delete(message.id!);
        return resolve(message);
      }
      return this.answered(peer, wire);
    }
    if (Message.isRequest(message)) {
      const id = this.nextOutgoing++;
      this.outgoing.set(id, { peer, id: message.id! });
      return this.toEditor({ ...message, id } as RequestMessage, peer);
    }
    if (!Message.isNotification(message)) return;
    if (
      peer === "child" &&
      message.method === "textDocument/publishDiagnostics" &&
      this.diagnosticListeners.length > 0
    ) {
      const published = this.versions.received(message.params);
      if (published) for (const listener of this.diagnosticListeners) listener(published);
      return;
    }
    if (message.method === "$/cancelRequest" && isObject(message.params)) {
      const id = message.params["id"];
      const mine = [...this.outgoing].find(([, r]) => r.peer === peer && r.id === id)?.[0];
      if (mine === undefined) return;
      return this.toEditor({ ...message, params: { id: mine } } as NotificationMessage, peer);
    }
    this.toEditor(wire, peer);
  }

  /** `from` the child: its chatter may be dropped, and the child paused, while the editor does not read. */
  private toEditor(wire: Wire, from: Peer = "lockstep"): void {
    this.toEditorFlow.write(bytesOf(wire), messageOf(wire), from === "child");
  }

  private tellUser(message: string): void {
    this.toEditor({
      jsonrpc: "2.0",
      method: "window/showMessage",
      params: { type: 1, message: `lockstep: ${message}` },
    } as NotificationMessage);
  }

  // The child's life.

  private childEnded(reason: string, expected: boolean): void {
    this.options.log("child ended", { reason, expected });
    if (expected) return;
    const tail = this.child.stderrTail();
    for (const listener of this.goneListeners) listener();
    this.toEditorFlow.childGone();
    this.toChildFlow.open();
    const restart = this.childInitialized && this.child.mayRestart();
    this.tellUser(
      `the wrapped language server ${this.childName} stopped: ${reason}.${tail ? ` Its last words: ${tail}` : ""} ${restart ? "Restarting it." : "lockstep's own features keep working; restart the editor's server to try again."}`,
    );
    if (restart) {
      this.held.start();
      this.lastRestart = reasonLine(reason, tail);
    } else this.gone = reasonLine(this.childInitialized ? reason : `it did not initialize: ${reason}`, tail);
    // What the child was asked and will never answer is answered now.
    for (const [id, request] of [...this.pending])
      if (request.peers.includes("child"))
        this.answered(
          "child",
          request.method === "shutdown" ? { jsonrpc: "2.0", id, result: null } : this.failure(id),
        );
    for (const [id, route] of [...this.outgoing]) if (route.peer === "child") this.outgoing.delete(id);
    this.internal.clear();
    if (restart) this.restart();
  }

  private restart(): void {
    this.child.start();
    const id = `${INTERNAL}${this.nextInternal++}`;
    // A restarted child that never answers is a child that failed: the requests held for it must not wait for ever.
    const deadline = setTimeout(
      () =>
        this.internal.has(id) &&
        this.child.abandon(`it did not initialize again within ${INITIALIZE_DEADLINE_MS / 1000} s`),
      INITIALIZE_DEADLINE_MS,
    );
    deadline.unref();
    this.internal.set(id, (response) => {
      clearTimeout(deadline);
      // Killed, so that its end is reported once (and a next start, if one is left, does not run beside it).
      if (response.error)
        return this.child.abandon(`it did not initialize again (${response.error.message})`);
      this.child.send({ jsonrpc: "2.0", method: "initialized", params: {} } as NotificationMessage);
      for (const doc of this.documents()) {
        this.versions.reopened(doc.uri, doc.version);
        this.child.send({
          jsonrpc: "2.0",
          method: "textDocument/didOpen",
          params: { textDocument: doc },
        } as NotificationMessage);
      }
      for (const request of this.held.release()) this.child.send(bytesOf(request));
    });
    this.child.send({
      jsonrpc: "2.0",
      id,
      method: "initialize",
      params: this.initializeParams ?? {},
    } as RequestMessage);
  }
}

/** A line for the editor's log. */
const note = (message: string): NotificationMessage =>
  ({
    jsonrpc: "2.0",
    method: "window/logMessage",
    params: { type: 2, message: `lockstep: ${message}` },
  }) as NotificationMessage;
