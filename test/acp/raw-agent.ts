// `lockstep acp` spoken to raw, line by line, so a test can send what no SDK client
// would: lines past the cap, nesting past the bound, two messages in one write.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { BIN } from "./scripted-editor.js";

export interface RawMessage {
  id?: number | string | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export interface RawAgent {
  child: ChildProcessWithoutNullStreams;
  /** The agent's answer to our request `id`. */
  answerTo(id: number): Promise<RawMessage>;
  /** The first message from the agent that passes `test` (its requests and notifications too). */
  next(test: (m: RawMessage) => boolean): Promise<RawMessage>;
  /** Every message from the agent so far. */
  messages(): readonly RawMessage[];
  stderr(): string;
  exited: Promise<number | null>;
}

export function rawAgent(cwd: string, args: string[] = []): RawAgent {
  const child = spawn(process.execPath, [BIN, "acp", ...args], {
    cwd,
    env: { ...process.env, XDG_CONFIG_HOME: cwd, XDG_STATE_HOME: cwd },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const seen: RawMessage[] = [];
  const waiters: (() => void)[] = [];
  let pending = "";
  child.stdout.on("data", (d: Buffer) => {
    pending += d.toString();
    for (let nl = pending.indexOf("\n"); nl !== -1; nl = pending.indexOf("\n")) {
      seen.push(JSON.parse(pending.slice(0, nl)) as RawMessage);
      pending = pending.slice(nl + 1);
    }
    for (const w of waiters.splice(0)) w();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const next = async (test: (m: RawMessage) => boolean): Promise<RawMessage> => {
    for (;;) {
      const found = seen.find(test);
      if (found) return found;
      if (child.exitCode !== null)
        throw new Error(`lockstep acp exited (${child.exitCode}) first; stderr: ${stderr}`);
      await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), exited]);
    }
  };
  const answerTo = (id: number): Promise<RawMessage> => next((m) => m.id === id && m.method === undefined);
  return { child, answerTo, next, messages: () => seen, stderr: () => stderr, exited };
}
