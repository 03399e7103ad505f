// The conversation as a markdown file, for editors that cannot show the
// lockstep/stream notification (Helix drops custom notifications). The path is the
// user's (never a project file's); still, it is appended to only as a regular file that is
// not a symbolic link, and one given relative to the root stays in the root by real path.
import { constants } from "node:fs";
import { mkdir, open, realpath } from "node:fs/promises";
import path from "node:path";
import { isInside } from "../config/bounded-read.js";
import type { StreamEvent } from "./events.js";

export class Transcript {
  private chain: Promise<void> = Promise.resolve();
  /** Inside a thought: its lines are quoted, and the next other event starts on a line of its own. */
  private thinking = false;

  /** `within`: the folder the file must really be in (the root, for a relative setting). */
  constructor(
    readonly file: string,
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
    if (text === "") return;
    this.chain = this.chain
      .then(async () => {
        await mkdir(path.dirname(this.file), { recursive: true });
        if (this.within !== undefined && !isInside(await realpath(this.within), await realpath(path.dirname(this.file)))) {
          throw new Error(`its folder leads outside ${this.within} through a symbolic link; nothing was written`);
        }
        const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
        const handle = await open(this.file, flags, 0o600).catch((error: unknown) => {
          throw new Error((error as { code?: string }).code === "ELOOP" ? "it is a symbolic link; lockstep appends only to a regular file" : error instanceof Error ? error.message : String(error));
        });
        try {
          if (!(await handle.stat()).isFile()) throw new Error("it is not a regular file");
          await handle.appendFile(text, "utf8");
        } finally {
          await handle.close();
        }
      })
      .catch((error: unknown) => onError(`Could not write the transcript ${this.file}: ${error instanceof Error ? error.message : String(error)}`));
  }

  flushed(): Promise<void> {
    return this.chain;
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
