// What the terminal client shows of a run: the model's words as they stream, each tool
// call and its result in a line, the end, and each file the run changed or deleted as a
// coloured diff. Colour only on a terminal without NO_COLOR, as for the tool commands.
import { createPatch } from "diff";
import type { StreamEvent } from "../agent/events.js";
import { painter, styleFor } from "./human-output.js";
import { oneLine, terminalSafe } from "./terminal-text.js";

export const paint = painter(styleFor(process.stdout));

/** One event of the run, as the terminal shows it. */
export function eventView(event: StreamEvent): string {
  const { dim, green, red } = paint;
  switch (event.kind) {
    case "text":
      // The model's words, file names and messages are the outside's: no escape sequence of
      // theirs reaches the terminal.
      return terminalSafe(event.text);
    case "thought":
      return dim(terminalSafe(event.text));
    case "tool_call":
      return dim(`\n→ ${oneLine(event.tool)}${event.file_path ? ` ${oneLine(event.file_path)}` : ""}\n`);
    case "tool_result": {
      const first = oneLine(event.message.split("\n")[0] ?? "");
      return event.ok ? dim(`  ✓ ${first}\n`) : red(`  ✗ ${first}\n`);
    }
    case "status":
      return event.message ? dim(`${terminalSafe(event.message)}…\n\n`) : "";
    case "done": {
      const failed = `✘ ${event.status}${event.message ? `: ${terminalSafe(event.message)}` : ""}`;
      return `\n\n${event.status === "done" ? green("✔ done") : red(failed)}\n`;
    }
  }
}

/** A file the run changed: its name and the change, two lines of context. */
export function changeView(file: string, before: string, after: string): string {
  const { bold, dim, green, red } = paint;
  const diff = createPatch(file, before, after, "", "", { context: 2 })
    .split("\n")
    .slice(2)
    .map((l) => (l.startsWith("+") ? green(l) : l.startsWith("-") ? red(l) : l.startsWith("@@") ? dim(l) : l))
    .join("\n");
  return `\n${bold(`✎ ${file}`)}\n${diff}\n`;
}

/** A file the run deleted (a revert of a file it created). */
export function deletionView(file: string): string {
  return `\n${paint.bold(`✗ ${file}`)} deleted\n`;
}
