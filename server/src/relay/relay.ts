// relay/: wrap mode. Knows nothing of lockstep's features or of what diagnostics mean.
// lockstep in front of the user's own language server (the child). The editor
// sees one server. Requests go to the child untouched, except lockstep's own
// commands (to lockstep) and initialize, code actions and shutdown (to both,
// answers merged); notifications go to both, in the order they came; what the
// child and lockstep ask of the editor goes out under ids of the relay's own, so
// theirs never collide. The child's diagnostics go to lockstep, which publishes
// them merged with its own; which text each list speaks for is diagnostics/versions.ts's.
// The child's life (start, restart, held requests, gone) is child-life.ts's; this file routes.
import type { Readable, Writable } from "node:stream";
import { Message, type NotificationMessage, type RequestMessage, type ResponseMessage } from "vscode-jsonrpc";
import { EXIT_GRACE_MS } from "./child-server.js";
import { ChildLife, INITIALIZE_DEADLINE_MS, isObject, requestFailed } from "./child-life.js";
import { concatActions, mergeCapabilities, mergeServerInfo, type ServerInfo } from "./capabilities.js";
import { STUCK_MS, TO_CHILD_BOUND, ToEditor, Valve } from "./flow.js";
import { readFrames, type Frame } from "../jsonrpc/framing.js";
import { memoryChannel, type MemoryChannel } from "./in-memory.js";
import type { ChildDiagnostics } from "../diagnostics/types.js";
import { SentVersions } from "../diagnostics/versions.js";
import type { OpenDocument, WrapLink, WrapStatus } from "./wrap-link.js";

type Peer = "child" | "lockstep";
type Id = number | string;

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

export class Relay implements WrapLink {
  /** lockstep's own server reads and writes this channel. */
  readonly lockstep: MemoryChannel;
  readonly childName: string;
  private readonly child: ChildLife;
  private readonly pending = new Map<Id, EditorRequest>();
  private readonly outgoing = new Map<number, { peer: Peer; id: Id }>();
  private nextOutgoing = 1;
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
    this.child = new ChildLife(options.command, options.args, {
      message: (frame) => this.fromPeer("child", frame),
      log: options.log,
      tellUser: (message) => this.tellUser(message),
      lost: () => {
        for (const listener of this.goneListeners) listener();
        this.toEditorFlow.childGone();
        this.toChildFlow.open();
      },
      unanswered: () => this.forgetChild(),
      reopened: () => {
        const documents = this.documents();
        for (const doc of documents) this.versions.reopened(doc.uri, doc.version);
        return documents;
      },
    });
    this.childName = this.child.name;
    this.lockstep = memoryChannel((m) => this.fromPeer("lockstep", m));
    this.toEditorFlow = new ToEditor(
      options.editor.output,
      () => this.child.server.output,
      (count, total) =>
        this.toEditor(
          note(
            `the editor read nothing for a while, so ${count} of ${this.childName}'s log and progress messages were dropped (${total} since the start).`,
          ),
        ),
    );
    // A well-framed message that is not JSON-RPC is answered as JSON-RPC says, and the stream read on.
    readFrames(options.editor.input, (frame) => this.fromEditor(frame), options.editor.broken, {
      invalid: (code, message, id) =>
        this.toEditor({ jsonrpc: "2.0", id, error: { code, message } } as ResponseMessage),
      skipOversized: true,
    });
    this.child.start();
  }

  status(): WrapStatus {
    return this.child.status(this.toEditorFlow.dropped > 0 ? { dropped: this.toEditorFlow.dropped } : {});
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
    const childParams: Record<string, unknown> = {
      ...params,
      initializationOptions: options === undefined ? undefined : theirs,
    };
    if (options === undefined) delete childParams["initializationOptions"];
    this.child.initializing(childParams);
    this.lockstep.deliver({
      ...request,
      params: { ...params, initializationOptions: own },
    } as RequestMessage);
    this.track(request, ["child", "lockstep"], (answers) => this.mergeInitialize(request.id as Id, answers));
    this.sendToChild({ ...request, params: childParams } as RequestMessage);
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
    const ownResult = isObject(own?.result) ? own.result : {};
    const child = this.child.initializeAnswered(answers.get("child"));
    if (child === undefined) return { jsonrpc: "2.0", id, result: ownResult };
    const caps = mergeCapabilities(
      isObject(child["capabilities"]) ? child["capabilities"] : {},
      isObject(ownResult["capabilities"]) ? ownResult["capabilities"] : {},
    );
    const serverInfo = mergeServerInfo(
      (child["serverInfo"] as ServerInfo | undefined) ?? { name: this.childName },
      (ownResult["serverInfo"] as ServerInfo | undefined) ?? { name: "lockstep" },
    );
    return { jsonrpc: "2.0", id, result: { ...child, capabilities: caps, serverInfo } };
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
    if (!this.child.holding || !notification.method.startsWith("textDocument/")) this.sendToChild(frame);
  }

  private async exit(): Promise<void> {
    this.sendToChild({ jsonrpc: "2.0", method: "exit" } as NotificationMessage);
    await this.child.server.stop();
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
      const size = isFrame(wire) ? wire.raw.length : JSON.stringify(wire).length;
      const admitted = this.child.admit(message.id!, bytesOf(wire), size);
      if (admitted === "held") return;
      if (admitted !== "now") return this.answered("child", admitted);
    }
    this.child.server.send(bytesOf(wire));
    const input = this.child.server.input;
    if (input && input.writableLength > TO_CHILD_BOUND) {
      const stuck = `it stopped reading: more than ${TO_CHILD_BOUND / 1024 / 1024} MB sent to it waited ${STUCK_MS / 1000} s`;
      this.toChildFlow.hold(this.options.editor.input, input, () => this.child.server.abandon(stuck));
    }
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
    if (Message.isResponse(message)) return this.answered(peer, wire);
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

  /** The child ended unasked, and is named gone or restarting: what it was asked and will never answer is answered now. */
  private forgetChild(): void {
    for (const [id, request] of [...this.pending])
      if (request.peers.includes("child"))
        this.answered(
          "child",
          request.method === "shutdown" ? { jsonrpc: "2.0", id, result: null } : this.child.failure(id),
        );
    for (const [id, route] of [...this.outgoing]) if (route.peer === "child") this.outgoing.delete(id);
  }
}

/** A line for the editor's log. */
const note = (message: string): NotificationMessage =>
  ({
    jsonrpc: "2.0",
    method: "window/logMessage",
    params: { type: 2, message: `lockstep: ${message}` },
  }) as NotificationMessage;
