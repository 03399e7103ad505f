// The terminal client's questions: a single key on a terminal (raw mode, no Enter
// needed), a line otherwise (a script can pipe its answers). Ctrl-C, Ctrl-D and the end
// of the input are answers too, told apart, so the caller can keep nothing it was not
// told to keep.
import { createInterface, type Interface } from "node:readline";

export type Answer = { key: string } | { end: "interrupt" | "eof" };

export class Prompter {
  private lines: AsyncIterator<string> | undefined;
  private reader: Interface | undefined;

  constructor(
    private readonly input: NodeJS.ReadStream,
    private readonly write: (s: string) => void,
  ) {}

  /** Whether answers come one key at a time (a terminal) or one line at a time. */
  get singleKey(): boolean {
    return this.input.isTTY === true && typeof this.input.setRawMode === "function";
  }

  /**
   * Asks `question` and waits for one of `keys` (lower case); Enter gives `onEnter` when there is one.
   * Another key on a terminal is ignored; another line says which keys there are and asks again.
   */
  async choose(question: string, keys: string[], onEnter?: string): Promise<Answer> {
    if (this.singleKey) {
      // Raw before the question shows: a key typed the moment it shows reaches us as typed. Still in line
      // mode, the terminal would take Ctrl-D for its end of line (read as a NUL) and Ctrl-C for a signal.
      this.input.setRawMode(true);
      this.write(question);
      return this.key(keys, onEnter);
    }
    this.write(question);
    for (;;) {
      this.lines ??= this.lineIterator();
      const next = await this.lines.next();
      if (next.done === true) {
        this.write("(end of input)\n");
        return { end: "eof" };
      }
      const answer = next.value.trim().toLowerCase();
      if (answer === "" && onEnter !== undefined) return { key: onEnter };
      const key = keys.find(
        (k) => answer === k || (answer.length > 1 && k.length === 1 && answer.startsWith(k)),
      );
      if (key !== undefined) return { key };
      this.write(`Answer ${keys.join(", ")}: `);
    }
  }

  /**
   * Asks `question` and waits for a line of text (a reason for a no). On a terminal Ctrl-C is
   * an interrupt and Ctrl-D on an empty line the end; Backspace edits.
   */
  async line(question: string): Promise<{ text: string } | { end: "interrupt" | "eof" }> {
    this.write(question);
    if (!this.singleKey) {
      this.lines ??= this.lineIterator();
      const next = await this.lines.next();
      return next.done === true ? { end: "eof" } : { text: next.value };
    }
    this.input.setRawMode(true);
    let text = "";
    return this.readRaw((chunk, finish) => {
      for (const ch of chunk) {
        if (ch === "\x03") return finish({ end: "interrupt" }, "^C");
        if (ch === "\x04" && text === "") return finish({ end: "eof" }, "^D");
        if (ch === "\r" || ch === "\n") return finish({ text }, "");
        if (ch === "\x7f" || ch === "\b") {
          if (text.length > 0) {
            text = [...text].slice(0, -1).join("");
            this.write("\b \b");
          }
        } else if (ch >= " ") {
          text += ch;
          this.write(ch);
        }
      }
    });
  }

  private key(keys: string[], onEnter: string | undefined): Promise<Answer> {
    return this.readRaw<Answer>((text, finish) => {
      if (text.includes("\x03")) return finish({ end: "interrupt" }, "^C");
      if (text.includes("\x04")) return finish({ end: "eof" }, "^D");
      if ((text === "\r" || text === "\n") && onEnter !== undefined) return finish({ key: onEnter }, onEnter);
      const key = keys.find((k) => k === text.toLowerCase());
      if (key !== undefined) finish({ key }, key);
    });
  }

  /**
   * Reads a terminal in raw mode (set by the caller, before its question) chunk by chunk until
   * `onChunk` finishes with an answer; then the terminal is left in line mode with the answer
   * echoed on its own line.
   */
  private readRaw<T>(
    onChunk: (chunk: string, finish: (answer: T, echo: string) => void) => void,
  ): Promise<T> {
    const input = this.input;
    return new Promise<T>((resolve) => {
      const finish = (answer: T, echo: string): void => {
        input.off("data", onData);
        input.setRawMode(false);
        input.pause();
        this.write(`${echo}\n`);
        resolve(answer);
      };
      const onData = (data: Buffer): void => {
        onChunk(data.toString("utf8"), finish);
      };
      input.resume();
      input.on("data", onData);
    });
  }

  private lineIterator(): AsyncIterator<string> {
    this.reader = createInterface({ input: this.input, terminal: false });
    return this.reader[Symbol.asyncIterator]();
  }

  /** Lets go of standard input, so the process can end. */
  close(): void {
    this.reader?.close();
    if (this.singleKey) this.input.pause();
  }
}
