// A command run on a terminal, as a person runs it: node-pty gives it a pseudo-terminal
// for stdin and stdout (isTTY, raw mode, Ctrl-D at the start of a line is the end of input).
import pty from "node-pty";

export interface PtyRun {
  /** Everything the command wrote so far, colours and all. */
  raw(): string;
  /** The same without colours and with plain newlines, for reading. */
  text(): string;
  /** Resolves when the text contains `what`; fails after `timeoutMs` naming what it saw. */
  waitFor(what: string | RegExp, timeoutMs?: number): Promise<void>;
  write(data: string): void;
  exited: Promise<number>;
}

// eslint-disable-next-line no-control-regex
export const plain = (s: string): string => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replace(/\r\n/g, "\n");

export function onTerminal(
  file: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): PtyRun {
  const child = pty.spawn(file, args, {
    name: "xterm",
    cols: 200,
    rows: 50,
    cwd: options.cwd,
    env: options.env as Record<string, string>,
  });
  let out = "";
  const waiters: (() => void)[] = [];
  child.onData((d) => {
    out += d;
    for (const w of waiters.splice(0)) w();
  });
  const exited = new Promise<number>((resolve) => child.onExit((e) => resolve(e.exitCode)));
  const has = (what: string | RegExp): boolean =>
    typeof what === "string" ? plain(out).includes(what) : what.test(plain(out));
  return {
    raw: () => out,
    text: () => plain(out),
    write: (data) => child.write(data),
    exited,
    waitFor: (what, timeoutMs = 60_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`the terminal never showed ${String(what)}; it showed:\n${plain(out)}`)),
          timeoutMs,
        );
        const check = (): void => {
          if (has(what)) {
            clearTimeout(timer);
            resolve();
          } else waiters.push(check);
        };
        void exited.then(() =>
          setTimeout(() => {
            if (!has(what)) {
              clearTimeout(timer);
              reject(
                new Error(`the command ended without showing ${String(what)}; it showed:\n${plain(out)}`),
              );
            }
          }, 200),
        );
        check();
      }),
  };
}
