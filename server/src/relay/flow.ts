// Bounded buffers between the editor and the wrapped server. A side that does
// not read makes the side that writes to it wait (its stream paused until the
// reader's buffer drains), so neither a flooding child nor an editor that stops
// reading can grow lockstep's memory without bound. Past the bound the child's
// chatter (log messages, progress reports, telemetry) is dropped and counted;
// responses, requests and every other message are always delivered.
import type { Readable, Writable } from "node:stream";
import type { Message } from "vscode-jsonrpc";
import { writeFrame } from "../jsonrpc/framing.js";

/**
 * How much may wait for the editor before the child's chatter is dropped and the child paused. A few
 * large answers (a completion list, semantic tokens) fit; an editor that reads nothing for seconds
 * while the child floods does not grow lockstep past it.
 */
export const TO_EDITOR_BOUND = 4 * 1024 * 1024;
/**
 * How much may wait for the child before the editor's input is paused: generous, since pausing the
 * editor's input holds lockstep's own requests too, and a busy child may not read for seconds while
 * the editor sends whole texts (didOpen, full-sync didChange).
 */
export const TO_CHILD_BOUND = 16 * 1024 * 1024;
/**
 * How long the editor's input may stay paused for a child that does not read: past it the child is taken
 * for stuck and restarted, so that lockstep reads the editor again (its own requests, its exit).
 */
export const STUCK_MS = 20_000;

/**
 * What may be dropped when the editor does not read: the child's log, telemetry, and progress reports.
 * Progress `begin` and `end` are kept (a dropped `end` leaves a spinner for ever), and so are partial results,
 * which are `$/progress` too but carry answers.
 */
export function droppable(message: Message): boolean {
  const m = message as { method?: unknown; id?: unknown; params?: { value?: { kind?: unknown } } };
  if (m.id !== undefined) return false;
  if (m.method === "window/logMessage" || m.method === "telemetry/event") return true;
  return m.method === "$/progress" && m.params?.value?.kind === "report";
}

/** Pauses one stream until another drains; released early when either goes away. */
export class Valve {
  private paused: Readable | undefined;
  private release: (() => void) | undefined;

  get holding(): boolean {
    return this.paused !== undefined;
  }

  /** Stops reading `source` until `sink` drains; `stuck` runs if it has not after `stuckMs`. */
  hold(
    source: Readable | undefined,
    sink: Writable | undefined,
    stuck?: () => void,
    stuckMs = STUCK_MS,
  ): void {
    if (this.paused || !source || !sink) return;
    this.paused = source;
    source.pause();
    const open = (): void => this.open();
    sink.once("drain", open);
    sink.once("close", open);
    const timer = stuck ? setTimeout(stuck, stuckMs) : undefined;
    this.release = () => {
      clearTimeout(timer);
      sink.removeListener("drain", open);
      sink.removeListener("close", open);
    };
  }

  /** Reads again (the sink drained, or went away: nothing left to wait for). */
  open(): void {
    const source = this.paused;
    this.release?.();
    this.paused = undefined;
    this.release = undefined;
    if (source && !source.destroyed) source.resume();
  }
}

/** The relay's writes to the editor: bounded, the child's chatter dropped and the child paused past the bound. */
export class ToEditor {
  /** The child's messages dropped since the start. */
  dropped = 0;
  private unreported = 0;
  private readonly valve = new Valve();

  constructor(
    private readonly output: Writable,
    /** The child's output, to pause. */
    private readonly childOutput: () => Readable | undefined,
    /** Says, once the editor reads again, how many were dropped while it did not. */
    private readonly report: (dropped: number, total: number) => void,
  ) {}

  /** Writes one frame; `fromChild`: the child's message, which may be dropped or make the child wait. */
  write(body: Buffer | Message, message: Message, fromChild: boolean): void {
    if (!this.output.writable) return;
    const over = this.output.writableLength > TO_EDITOR_BOUND;
    if (over && fromChild && droppable(message)) {
      this.dropped++;
      if (this.unreported++ === 0) {
        this.output.once("drain", () => {
          const count = this.unreported;
          this.unreported = 0;
          this.report(count, this.dropped);
        });
      }
      return;
    }
    writeFrame(this.output, body);
    // A message that must go was queued past the bound: the child waits until the editor has read.
    if (over && fromChild) this.valve.hold(this.childOutput(), this.output);
  }

  /** The child ended: the stream that was paused is gone with it. */
  childGone(): void {
    this.valve.open();
  }
}
