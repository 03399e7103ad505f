// `lockstep mcp` on stdio against lines that are not JSON-RPC: a line that is not JSON is answered
// with a JSON-RPC parse error (-32700, id null), JSON that is not a message with -32600 (by its id
// when it names one), each said on stderr, and the next line is read as usual. It used to pass
// them to the SDK as transport errors and answer nothing: the agent waited for ever.
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

describe("lockstep mcp and lines that are not JSON-RPC", () => {
  it(
    "answers -32700 to a line that is not JSON, -32600 to one that is not a message, and reads on",
    { timeout: 60_000 },
    async () => {
      const root = await createWorkspace({ "a.txt": "hello\n" });
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
      const nth = async (n: number): Promise<Answer> => {
        while (answers.length < n) {
          if (child.exitCode !== null)
            throw new Error(`lockstep mcp exited (${child.exitCode}); stderr: ${stderr}`);
          await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), exited]);
        }
        return answers[n - 1]!;
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
      expect((await nth(1)).result).toBeDefined();
      child.stdin.write(line({ jsonrpc: "2.0", method: "notifications/initialized" }));

      child.stdin.write("this is not json {\n");
      const parseError = await nth(2);
      expect(parseError).toMatchObject({ id: null, error: { code: -32700 } });
      expect(parseError.error?.message).toMatch(/not JSON .* one JSON-RPC message per line/);
      expect(stderr).toMatch(/a line that is not JSON/);

      child.stdin.write(line({ id: 7, hello: "world" }));
      expect(await nth(3)).toMatchObject({ id: 7, error: { code: -32600 } });
      child.stdin.write("42\n");
      expect(await nth(4)).toMatchObject({ id: null, error: { code: -32600 } });

      child.stdin.write(
        line({
          jsonrpc: "2.0",
          id: 8,
          method: "tools/call",
          params: { name: "read_file", arguments: { file_path: "a.txt" } },
        }),
      );
      const read = await nth(5);
      expect(read.id).toBe(8);
      expect(JSON.stringify(read.result)).toContain("hello");

      child.stdin.end();
      expect(await exited).toBe(0);
    },
  );
});
