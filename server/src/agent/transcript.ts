// The conversation as a markdown file, for editors that cannot show the
// lockstep/stream notification (Helix drops custom notifications).
import { appendFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { StreamEvent } from "./events.js";

/**
 * Each event is appended before `record` returns, synchronously, as Node writes stdout to
 * a file: nothing is left pending when the process ends, however it ends (the client's
 * exit, the end of its input, Ctrl-C, a failure). Queued asynchronous appends lost the
 * end of the final answer when the server exited right after it. An event is a few
 * hundred bytes at most, and a run sends a few thousand.
 */
export class Transcript {
  private folderMade = false;
  private failed = false;
  /** Inside a thought: its lines are quoted, and the next other event starts on a line of its own. */
  private thinking = false;

  /** `redact`: what a text becomes before it is written (the store's redaction: no key typed in a prompt is kept). */
  constructor(
    readonly file: string,
    private readonly redact: (text: string) => string = (text) => text,
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
      if (!this.folderMade) mkdirSync(path.dirname(this.file), { recursive: true });
      this.folderMade = true;
      appendFileSync(this.file, text, "utf8");
      this.failed = false;
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      if (!this.failed) onError(`Could not write the transcript ${this.file}: ${why}`);
      this.failed = true;
      this.folderMade = false; // the folder may have been removed: made again on the next event
    }
  }
}

function render(event: StreamEvent): string {
  switch (event.kind) {
    case "status":
      return event.status === "running" && event.prompt !== undefined ? `\n## You (job ${event.job_id})\n\n${event.prompt}\n\n## lockstep\n\n` : "";
    case "text":
      return event.text;
    case "thought":
      return "";
    case "tool_call":
      return `\n\n> ${event.tool}${event.file_path ? ` ${event.file_path}` : ""}\n`;
    case "tool_result":
      return `> ${event.ok ? "ok" : "failed"}: ${event.message.split("\n")[0]}\n\n`;
    case "done":
      return `\n\n*(${event.status}${event.message ? `: ${event.message}` : ""})*\n`;
  }
}
