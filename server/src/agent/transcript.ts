// The conversation as a markdown file, for editors that cannot show the
// lockstep/stream notification (Helix drops custom notifications). The path is the
// user's (never a project file's); still, it is appended to only as a regular file that is
// not a symbolic link, and one given relative to the root stays in the root by real path.
import { closeSync, constants, fstatSync, mkdirSync, openSync, realpathSync, writeSync } from "node:fs";
import path from "node:path";
import { isInside } from "../config/bounded-read.js";
import { errnoCode } from "../shared/errno.js";
import type { StreamEvent } from "./events.js";

const APPEND =
  constants.O_WRONLY |
  constants.O_APPEND |
  constants.O_CREAT |
  (constants.O_NOFOLLOW ?? 0) |
  (constants.O_NONBLOCK ?? 0);

/**
 * Each event is appended before `record` returns, synchronously, as Node writes stdout to
 * a file: nothing is left pending when the process ends, however it ends (the client's
 * exit, the end of its input, Ctrl-C, a failure). Queued asynchronous appends lost the
 * end of the final answer when the server exited right after it. An event is a few
 * hundred bytes at most, and a run sends a few thousand.
 */
export class Transcript {
  private failed = false;
  /** Inside a thought: its lines are quoted, and the next other event starts on a line of its own. */
  private thinking = false;

  /**
   * `redact`: what a text becomes before it is written (the store's redaction: no key typed in
   * a prompt is kept). `within`: the folder the file must really be in (the root, for a
   * relative setting).
   */
  constructor(
    readonly file: string,
    private readonly redact: (text: string) => string = (text) => text,
    private readonly within?: string,
  ) {}

  /** Appends in order; a failing write is reported once through `onError` and never stops the run. */
  record(event: StreamEvent, onError: (message: string) => void): void {
    let text = render(event);
    if (event.kind === "thought") {
      // A thought streams in pieces: quoted line by line, as the model's thinking beside the answer.
      text = (this.thinking ? "" : "\n> *thinking:* ") + event.text.replace(/\n/g, "\n> ");
      this.thinking = true;
    } else if (this.thinking) {
      text = "\n\n" + text;
      this.thinking = false;
    }
    text = this.redact(text);
    if (text === "") return;
    try {
      this.append(text);
      this.failed = false;
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      if (!this.failed) onError(`Could not write the transcript ${this.file}: ${why}`);
      this.failed = true;
    }
  }

  private append(text: string): void {
    mkdirSync(path.dirname(this.file), { recursive: true });
    if (
      this.within !== undefined &&
      !isInside(realpathSync(this.within), realpathSync(path.dirname(this.file)))
    ) {
      throw new Error(`its folder leads outside ${this.within} through a symbolic link; nothing was written`);
    }
    let fd: number;
    try {
      fd = openSync(this.file, APPEND, 0o600);
    } catch (error) {
      if (errnoCode(error) === "ELOOP")
        throw new Error("it is a symbolic link; lockstep appends only to a regular file");
      throw error;
    }
    try {
      if (!fstatSync(fd).isFile()) throw new Error("it is not a regular file");
      writeSync(fd, text, null, "utf8");
    } finally {
      closeSync(fd);
    }
  }
}

function render(event: StreamEvent): string {
  switch (event.kind) {
    case "status":
      return event.status === "running" && event.prompt !== undefined
        ? `\n## You (job ${event.job_id})\n\n${event.prompt}\n\n## lockstep\n\n`
        : "";
    case "text":
      return event.text;
    case "thought":
      return "";
    case "tool_call":
      return `\n\n> ${event.tool}${event.file_path ? ` ${event.file_path}` : ""}\n`;
    case "output":
      return event.text;
    case "tool_result":
      return `> ${event.ok ? "ok" : "failed"}: ${event.message.split("\n")[0]}\n\n`;
    case "done":
      return `\n\n*(${event.status}${event.message ? `: ${event.message}` : ""})*\n`;
  }
}
