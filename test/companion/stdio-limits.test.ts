// `lockstep mcp` on stdio against a message too long to read: the process
// answers it with a JSON-RPC error naming the bound, says so on stderr, and
// reads on. It used to end with exit 0 and not a word at 10 MB (the SDK's read
// buffer closed the transport). Spawned as an agent runs it, spoken to raw.
import { spawn } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, createWorkspace } from "../support/lsp-client.js";

const BIN = path.resolve(import.meta.dirname, "../../bin/lockstep.js");
afterEach(cleanup);

interface Answer {
  id: number | string | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

const line = (message: unknown): string => JSON.stringify(message) + "\n";
const call = (id: number, name: string, args: Record<string, unknown>): string =>
  line({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

describe("lockstep mcp and long messages", () => {
  it(
    "answers a 12 MB message, refuses an 80 MB one with an error by its id, reads on, and ends with 0 only at the end of input",
    { timeout: 60_000 },
    async () => {
      const root = await createWorkspace({ "a.txt": "hello\n" });
      const child = spawn(process.execPath, [BIN, "mcp", "--disk"], {
        cwd: root,
        stdio: ["pipe", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const answers = new Map<string, Answer>();
      let pending = "";
      const waiters: (() => void)[] = [];
      child.stdout.on("data", (d: Buffer) => {
        pending += d.toString();
        for (let nl = pending.indexOf("\n"); nl !== -1; nl = pending.indexOf("\n")) {
          const answer = JSON.parse(pending.slice(0, nl)) as Answer;
          answers.set(String(answer.id), answer);
          pending = pending.slice(nl + 1);
        }
        for (const w of waiters.splice(0)) w();
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      const answerTo = async (id: number): Promise<Answer> => {
        while (!answers.has(String(id))) {
          if (child.exitCode !== null)
            throw new Error(
              `lockstep mcp exited (${child.exitCode}) before answering ${id}; stderr: ${stderr}`,
            );
          await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), exited]);
        }
        return answers.get(String(id))!;
      };

      child.stdin.write(
        line({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "raw", version: "0" },
          },
        }),
      );
      expect((await answerTo(1)).result).toBeDefined();
      child.stdin.write(line({ jsonrpc: "2.0", method: "notifications/initialized" }));

      child.stdin.write(call(2, "read_file", { file_path: "a.txt", padding: "x".repeat(12 * 1024 * 1024) }));
      const twelve = await answerTo(2);
      expect(twelve.result).toBeDefined(); // read and answered (the tool refuses the unknown argument, as it should)

      child.stdin.write(call(3, "read_file", { file_path: "a.txt", padding: "x".repeat(80 * 1024 * 1024) }));
      const forty = await answerTo(3);
      expect(forty.error?.code).toBe(-32600);
      expect(forty.error?.message).toMatch(/longer than 64 MB .* it was not read and nothing was done/);
      expect(stderr).toMatch(/longer than 64 MB.*\(request id 3\)/);

      child.stdin.write(call(4, "read_file", { file_path: "a.txt" }));
      const after = await answerTo(4);
      expect(JSON.stringify(after.result)).toContain("hello");

      // 10,000 levels of arrays in the arguments: refused by its id before any validation walks it.
      const deep = "[".repeat(10_000) + "]".repeat(10_000);
      child.stdin.write(
        `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_file","arguments":{"file_path":${deep}}}}\n`,
      );
      const tooDeep = await answerTo(5);
      expect(tooDeep.error?.message).toMatch(/nests deeper than 256 levels/);
      child.stdin.write(call(6, "read_file", { file_path: "a.txt" }));
      expect(JSON.stringify((await answerTo(6)).result)).toContain("hello");

      child.stdin.end();
      expect(await exited).toBe(0);
    },
  );
});
