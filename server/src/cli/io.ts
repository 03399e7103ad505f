// What every shell command writes to and reads from (`Io`: the process's streams, or
// a test's), and the two ways a command refuses before it does anything: a command
// line it cannot run (`UsageError`, exit 2 with the command's help) and input it will
// not take (`RefusedInput`, exit 1).

export interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /**
   * All of standard input. `what` names it in the hint a person at a terminal sees and in
   * the error when it is empty; `elsewhere` says how else it may be given.
   */
  stdin: (what: string, elsewhere?: string) => Promise<string>;
}

/** A command line the command cannot run: said with the option it names and the command's help (exit 2). */
export class UsageError extends Error {}

/** Input the command refuses (exit 1), as opposed to a malformed command line (exit 2). */
export class RefusedInput extends Error {}

/** Input beyond this is refused before it is all read: no model writes an 8 MB diff. */
const MAX_STDIN_BYTES = 8 * 1024 * 1024;

async function readStdin(what: string, elsewhere = ""): Promise<string> {
  // A person at a terminal would otherwise see nothing happen.
  if (process.stdin.isTTY) {
    process.stderr.write(`Paste ${what}, then press Ctrl-D on a new line (Ctrl-C cancels).\n`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_STDIN_BYTES) {
      process.stdin.destroy();
      throw new RefusedInput(
        `Standard input is too large (over ${MAX_STDIN_BYTES / 1024 / 1024} MB); it was not read and nothing was changed. ` +
          "Send a smaller diff (split the change).",
      );
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") throw new UsageError(`standard input was empty: give ${what} on stdin${elsewhere}`);
  return text;
}

/** The process's own streams. */
export const processIo: Io = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  stdin: readStdin,
};
