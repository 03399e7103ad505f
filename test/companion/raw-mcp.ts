// `lockstep mcp --disk` spawned as an agent runs it and spoken to raw on stdio, one JSON-RPC line
// at a time (no SDK client: the tests send what an SDK would never send). Shared by the stdio
// tests of bad input.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

const BIN = path.resolve(import.meta.dirname, "../../bin/lockstep.js");

export interface Answer {
  id: number | string | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export interface RawMcp {
  child: ChildProcess;
  /** What the process wrote on stderr so far. */
  stderr(): string;
  /** Writes a line as it is: the test's newline included. */
  write(text: string): void;
  /** Writes one message as a line. */
  send(message: unknown): void;
  /** The n-th answer (from 1), once it came; the process ending first fails the test with its stderr. */
  nth(n: number): Promise<Answer>;
  /** The answer to request `id`, once it came; likewise. */
  answerTo(id: number): Promise<Answer>;
  /** Sends initialize (id 1), waits for its answer, then notifications/initialized. */
  initialize(): Promise<Answer>;
  /** The exit code, once it ended. */
  exited: Promise<number | null>;
}

export const line = (message: unknown): string => JSON.stringify(message) + "\n";

export function startRawMcp(root: string): RawMcp {
  const child = spawn(process.execPath, [BIN, "mcp", "--disk"], {
    cwd: root,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const answers: Answer[] = [];
  let pending = "";
  const waiters: (() => void)[] = [];
  child.stdout.on("data", (d: Buffer) => {
    pending += d.toString();
    for (let nl = pending.indexOf("\n"); nl !== -1; nl = pending.indexOf("\n")) {
      answers.push(JSON.parse(pending.slice(0, nl)) as Answer);
      pending = pending.slice(nl + 1);
    }
    for (const w of waiters.splice(0)) w();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const waitFor = async (found: () => Answer | undefined, what: string): Promise<Answer> => {
    for (let answer = found(); ; answer = found()) {
      if (answer) return answer;
      if (child.exitCode !== null)
        throw new Error(`lockstep mcp exited (${child.exitCode}) before ${what}; stderr: ${stderr}`);
      await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), exited]);
    }
  };
  const send = (message: unknown): void => void child.stdin.write(line(message));
  const mcp: RawMcp = {
    child,
    stderr: () => stderr,
    write: (text) => void child.stdin.write(text),
    send,
    nth: (n) => waitFor(() => answers[n - 1], `answer ${n}`),
    answerTo: (id) => waitFor(() => answers.find((a) => a.id === id), `answering ${id}`),
    async initialize() {
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "0" },
        },
      });
      const answer = await mcp.answerTo(1);
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      return answer;
    },
    exited,
  };
  return mcp;
}
