// The wrapped language server as a process: spawned over stdio, its stderr's
// tail kept for the user, its death reported once, restarts counted.
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import type { Message } from "vscode-jsonrpc";
import { PARSE_ERROR, readFrames, writeFrame, type Frame } from "../jsonrpc/framing.js";
import { killTethered, spawnTethered, startFailure } from "./tether.js";

const TAIL_BYTES = 2000;
export const RESTART_LIMIT = 3;
export const RESTART_WINDOW_MS = 3 * 60_000;
/** After `exit`, how long the child has to go before it is killed. */
export const EXIT_GRACE_MS = 2000;

export interface ChildEvents {
  message(frame: Frame): void;
  /** The process ended (or never started); `expected` after our own `exit`. */
  ended(reason: string, expected: boolean): void;
}

export class ChildServer {
  private process: ChildProcessWithoutNullStreams | undefined;
  private tail = "";
  private stopping = false;
  /** Why we killed a child, when we did: reported instead of the signal. */
  private readonly abandoned = new WeakMap<ChildProcessWithoutNullStreams, string>();
  private readonly starts: number[] = [];

  constructor(
    readonly command: string,
    readonly args: readonly string[],
    private readonly events: ChildEvents,
  ) {}

  get running(): boolean {
    return this.process !== undefined;
  }

  /** What it writes (paused while the editor does not read), and what it reads. */
  get output(): Readable | undefined {
    return this.process?.stdout;
  }

  get input(): Writable | undefined {
    return this.process?.stdin;
  }

  /** The last lines the child wrote to stderr. */
  stderrTail(): string {
    return this.tail.trim().split("\n").slice(-8).join("\n");
  }

  /** How many times it was started again after the first start. */
  get restarts(): number {
    return Math.max(0, this.starts.length - 1);
  }

  /** Whether another start is allowed: at most RESTART_LIMIT restarts within RESTART_WINDOW_MS. */
  mayRestart(now = Date.now()): boolean {
    return this.starts.filter((t) => now - t < RESTART_WINDOW_MS).length <= RESTART_LIMIT;
  }

  start(): void {
    this.starts.push(Date.now());
    this.tail = "";
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawnTethered(this.command, this.args);
    } catch (error) {
      this.events.ended(
        `it could not be started (${error instanceof Error ? error.message : String(error)})`,
        false,
      );
      return;
    }
    this.process = child;
    // A child whose output cannot be read past is as good as dead.
    // An object that is no JSON-RPC message is passed over; a body that is not JSON is a child out of step.
    readFrames(
      child.stdout,
      (frame) => this.events.message(frame),
      (why) => this.abandon(`it sent what lockstep cannot read past: ${why}`, child),
      {
        invalid: (code, message) =>
          code === PARSE_ERROR
            ? this.abandon(`it sent a frame that is not JSON (${message})`, child)
            : undefined,
      },
    );
    child.stdin.on("error", () => undefined);
    child.stderr.on("data", (chunk: Buffer) => {
      this.tail = (this.tail + chunk.toString("utf8")).slice(-TAIL_BYTES);
    });
    let reported = false;
    const ended = (reason: string): void => {
      if (reported) return;
      reported = true;
      if (this.process === child) this.process = undefined;
      this.events.ended(reason, this.stopping);
    };
    child.on("error", (error) => ended(`it could not be started (${error.message})`));
    child.on("exit", (code, signal) => {
      const failed = startFailure(code, this.command);
      const why =
        this.abandoned.get(child) ??
        failed ??
        (signal ? `it was killed by ${signal}` : `it exited with code ${code}`);
      const finish = (): void => {
        // The shell's own complaint says no more than the reason does.
        if (failed) this.tail = "";
        ended(why);
      };
      // Its last words may still be on their way: stderr is read to its end first (briefly; a grandchild may hold it open).
      if (child.stderr.readableEnded) return finish();
      const timer = setTimeout(finish, 200);
      child.stderr.once("end", () => {
        clearTimeout(timer);
        finish();
      });
    });
  }

  /** Sends a message: its original bytes when it goes on unchanged, else the object. */
  send(body: Buffer | Message): void {
    if (this.process && this.process.stdin.writable) writeFrame(this.process.stdin, body);
  }

  /** Kills a child that cannot be used (a broken frame, a failed initialize); `reason` is what its end reports. */
  abandon(reason: string, child = this.process): void {
    if (!child || this.abandoned.has(child)) return;
    this.abandoned.set(child, reason);
    killTethered(child);
  }

  /** After our `exit` went to it: waits for the child to go, and kills it after the grace period. */
  stop(): Promise<void> {
    this.stopping = true;
    const child = this.process;
    if (!child) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => killTethered(child), EXIT_GRACE_MS);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** For process exit: nothing may outlive lockstep. */
  killNow(): void {
    this.stopping = true;
    if (this.process) killTethered(this.process);
  }
}
