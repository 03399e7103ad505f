// The wrapped server's life as the relay sees it: started with lockstep and ended with it,
// initialized, restarted after a crash (its initialize sent again under an id of the relay's
// own, the open documents reopened, the editor's requests held meanwhile and then sent), or
// gone for good with a reason and the features the editor lost. Knows nothing of routing: which
// request goes where, and how answers merge, is relay.ts's; this file only says whether a
// request for the child may go now, waits, or is answered at once.
import { Message, type NotificationMessage, type RequestMessage, type ResponseMessage } from "vscode-jsonrpc";
import { ChildServer } from "./child-server.js";
import type { Frame } from "../jsonrpc/framing.js";
import { HeldRequests } from "./held-requests.js";
import type { OpenDocument, WrapStatus } from "./wrap-link.js";
import { missingFeatures, reasonLine } from "./wrap-status.js";

type Id = number | string;
type Json = Record<string, unknown>;

/** LSP's RequestFailed: the request was valid, the server that would answer it is not there. */
const REQUEST_FAILED = -32803;
/** How long the child has to answer initialize: servers answer at once and index afterwards, with progress. */
export const INITIALIZE_DEADLINE_MS = 30_000;
const INTERNAL = "lockstep-relay/";

/** The answer to a request the wrapped server is not there to answer. */
export const requestFailed = (id: Id, message: string): ResponseMessage => ({
  jsonrpc: "2.0",
  id,
  error: { code: REQUEST_FAILED, message },
});

export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** What the child's life needs of the relay around it. */
export interface ChildLifeHooks {
  /** A message from the child that is not the answer to the relay's own request. */
  message(frame: Frame): void;
  log(what: string, value: unknown): void;
  tellUser(message: string): void;
  /** The child ended unasked: what waits on it is let go (before the user is told). */
  lost(): void;
  /** After `lost`, with the child named gone or restarting: what it was asked is answered now. */
  unanswered(): void;
  /** The open documents, each now counted as sent to the restarted child. */
  reopened(): OpenDocument[];
}

export class ChildLife {
  readonly name: string;
  readonly server: ChildServer;
  /**
   * The relay's own requests to the child (a restarted child's initialize), by id. An editor can send any id,
   * so these are told apart by being in flight, not by their look: one is in flight only while the editor's
   * requests are held, and the map is emptied when its child ends.
   */
  private readonly internal = new Map<Id, (response: ResponseMessage) => void>();
  private nextInternal = 1;
  /** Requests held while a restarted child initializes. */
  private readonly held = new HeldRequests<Buffer | Message>();
  /** Why the child is not there, when it is not and will not come back. */
  private gone: string | undefined;
  /** Why the child last ended and was restarted: the session says what happened. */
  private lastRestart: string | undefined;
  private initializeParams: Json | undefined;
  private initialized = false;
  /** What the child announced at its first initialize: what the editor loses if it goes. */
  private capabilities: Json | undefined;

  constructor(
    command: string,
    args: readonly string[],
    private readonly hooks: ChildLifeHooks,
  ) {
    this.name = command.split(/[\\/]/).pop() ?? command;
    this.server = new ChildServer(command, args, {
      message: (frame) => this.fromChild(frame),
      ended: (reason, expected) => this.ended(reason, expected),
    });
  }

  /** Starts the child, and makes sure nothing of it outlives lockstep. */
  start(): void {
    // Nothing outlives lockstep, however it ends: its exit (the end of input, the editor's exit, a broken
    // frame), the usual signals (turned into an exit, as the companion's handler does too), SIGKILL (the tether).
    process.on("exit", () => this.server.killNow());
    for (const [signal, code] of [
      ["SIGTERM", 143],
      ["SIGINT", 130],
      ["SIGHUP", 129],
    ] as const)
      process.once(signal, () => process.exit(code));
    this.server.start();
  }

  /** While a restarted child initializes: the editor's document changes wait for the reopen instead. */
  get holding(): boolean {
    return this.held.holding;
  }

  status(dropped: { dropped?: number }): WrapStatus {
    if (this.gone !== undefined) {
      const missing = missingFeatures(this.capabilities, this.initializeParams);
      return {
        server: this.name,
        state: "failed",
        restarts: this.server.restarts,
        reason: this.gone,
        missing,
        ...dropped,
      };
    }
    const state = this.held.holding || !this.server.running ? "restarting" : "running";
    return {
      server: this.name,
      state,
      restarts: this.server.restarts,
      ...(this.lastRestart !== undefined ? { reason: `restarted after ${this.lastRestart}` } : {}),
      ...dropped,
    };
  }

  /** The child's part of the editor's initialize, kept for a restart. */
  initializing(params: Json): void {
    this.initializeParams = params;
  }

  /**
   * The child's answer to the editor's initialize: its result, or undefined when it failed; then it is named
   * gone, once, told to exit, and killed if it does not.
   */
  initializeAnswered(answer: ResponseMessage | undefined): Json | undefined {
    if (!isObject(answer?.result)) {
      // A child that died on the way was named already, once. One that answered with an error is of no use
      // (LSP: no request before a successful initialize).
      if (this.gone === undefined) {
        this.gone = reasonLine(
          `it did not initialize: ${answer?.error?.message ?? "no answer"}`,
          this.server.stderrTail(),
        );
        this.hooks.tellUser(
          `the wrapped language server ${this.name} ${this.gone}; lockstep's own features work without it.`,
        );
        this.server.send({ jsonrpc: "2.0", method: "exit" } as NotificationMessage);
        void this.server.stop();
      }
      return undefined;
    }
    this.initialized = true;
    this.capabilities = isObject(answer.result["capabilities"]) ? answer.result["capabilities"] : {};
    return answer.result;
  }

  /** A request for the child: "now" when it may go, "held" while a restart is under way, else its answer. */
  admit(id: Id, body: Buffer | Message, size: number): "now" | "held" | ResponseMessage {
    if (this.gone !== undefined) return this.failure(id);
    if (!this.held.holding) return "now";
    return this.held.hold(body, size) ? "held" : this.busy(id);
  }

  /** The answer to a request the child will not answer: it is gone, or ended and restarting. */
  failure(id: Id): ResponseMessage {
    return requestFailed(
      id,
      `The wrapped language server ${this.name} is not running (${this.gone ?? "restarting"}); lockstep's own commands still work.`,
    );
  }

  private busy(id: Id): ResponseMessage {
    return requestFailed(
      id,
      `The wrapped language server ${this.name} is restarting and ${this.held.count} requests already wait for it; ask again when it is up.`,
    );
  }

  private fromChild(frame: Frame): void {
    const message = frame.message;
    const id = Message.isResponse(message) ? message.id : null;
    const resolve = id !== null ? this.internal.get(id) : undefined;
    if (!resolve) return this.hooks.message(frame);
    this.internal.delete(id!);
    resolve(message as ResponseMessage);
  }

  private ended(reason: string, expected: boolean): void {
    this.hooks.log("child ended", { reason, expected });
    if (expected) return;
    const tail = this.server.stderrTail();
    this.hooks.lost();
    const restart = this.initialized && this.server.mayRestart();
    this.hooks.tellUser(
      `the wrapped language server ${this.name} stopped: ${reason}.${tail ? ` Its last words: ${tail}` : ""} ${restart ? "Restarting it." : "lockstep's own features keep working; restart the editor's server to try again."}`,
    );
    if (restart) {
      this.held.start();
      this.lastRestart = reasonLine(reason, tail);
    } else this.gone = reasonLine(this.initialized ? reason : `it did not initialize: ${reason}`, tail);
    this.hooks.unanswered();
    this.internal.clear();
    if (restart) this.restart();
  }

  private restart(): void {
    this.server.start();
    const id = `${INTERNAL}${this.nextInternal++}`;
    // A restarted child that never answers is a child that failed: the requests held for it must not wait for ever.
    const deadline = setTimeout(
      () =>
        this.internal.has(id) &&
        this.server.abandon(`it did not initialize again within ${INITIALIZE_DEADLINE_MS / 1000} s`),
      INITIALIZE_DEADLINE_MS,
    );
    deadline.unref();
    this.internal.set(id, (response) => {
      clearTimeout(deadline);
      // Killed, so that its end is reported once (and a next start, if one is left, does not run beside it).
      if (response.error)
        return this.server.abandon(`it did not initialize again (${response.error.message})`);
      this.server.send({ jsonrpc: "2.0", method: "initialized", params: {} } as NotificationMessage);
      for (const doc of this.hooks.reopened())
        this.server.send({
          jsonrpc: "2.0",
          method: "textDocument/didOpen",
          params: { textDocument: doc },
        } as NotificationMessage);
      for (const request of this.held.release()) this.server.send(request);
    });
    this.server.send({
      jsonrpc: "2.0",
      id,
      method: "initialize",
      params: this.initializeParams ?? {},
    } as RequestMessage);
  }
}
