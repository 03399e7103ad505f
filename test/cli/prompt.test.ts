// The terminal client's single-key questions: the terminal is raw before the
// question shows, so a key typed the moment it shows (Ctrl-D included) is read
// as typed; in line mode the terminal would turn Ctrl-D into an end of line.
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { Prompter } from "../../server/src/cli/prompt.js";

/** A terminal's standard input as Prompter uses it, recording what happens in order. */
function terminal(events: string[]): NodeJS.ReadStream {
  const input = new EventEmitter() as EventEmitter & {
    isTTY: boolean;
    setRawMode: (raw: boolean) => void;
    resume: () => void;
    pause: () => void;
  };
  input.isTTY = true;
  input.setRawMode = (raw) => void events.push(`raw ${String(raw)}`);
  input.resume = () => void events.push("resume");
  input.pause = () => void events.push("pause");
  return input as unknown as NodeJS.ReadStream;
}

describe("Prompter on a terminal", () => {
  it("is raw before the question is written, and back to line mode after the answer", async () => {
    const events: string[] = [];
    const input = terminal(events);
    const prompter = new Prompter(input, (s) => void events.push(`write ${JSON.stringify(s)}`));
    const answer = prompter.choose("Keep? [y]es / [u]ndo: ", ["y", "u"]);
    expect(events).toEqual(["raw true", 'write "Keep? [y]es / [u]ndo: "', "resume"]);
    input.emit("data", Buffer.from("\x04"));
    expect(await answer).toEqual({ end: "eof" });
    expect(events.slice(3)).toEqual(["raw false", "pause", 'write "^D\\n"']);
  });

  it("takes a listed key, and ignores another", async () => {
    const input = terminal([]);
    const prompter = new Prompter(input, () => undefined);
    const answer = prompter.choose("? [y]es / [n]o: ", ["y", "n"]);
    input.emit("data", Buffer.from("x"));
    input.emit("data", Buffer.from("N"));
    expect(await answer).toEqual({ key: "n" });
  });
});
