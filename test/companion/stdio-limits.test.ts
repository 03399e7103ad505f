// `lockstep mcp` on stdio against a message too long to read: the process
// answers it with a JSON-RPC error naming the bound, says so on stderr, and
// reads on. It used to end with exit 0 and not a word at 10 MB (the SDK's read
// buffer closed the transport). Spawned as an agent runs it, spoken to raw.
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, createWorkspace } from "../support/lsp-client.js";
import { line, startRawMcp } from "./raw-mcp.js";

afterEach(cleanup);

const call = (id: number, name: string, args: Record<string, unknown>): string =>
  line({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

describe("lockstep mcp and long messages", () => {
  it(
    "answers a 12 MB message, refuses an 80 MB one with an error by its id, reads on, and ends with 0 only at the end of input",
    { timeout: 60_000 },
    async () => {
      const root = await createWorkspace({ "a.txt": "hello\n" });
      const mcp = startRawMcp(root);
      const { answerTo } = mcp;
      expect((await mcp.initialize()).result).toBeDefined();

      mcp.write(call(2, "read_file", { file_path: "a.txt", padding: "x".repeat(12 * 1024 * 1024) }));
      const twelve = await answerTo(2);
      expect(twelve.result).toBeDefined(); // read and answered (the tool refuses the unknown argument, as it should)

      mcp.write(call(3, "read_file", { file_path: "a.txt", padding: "x".repeat(80 * 1024 * 1024) }));
      const forty = await answerTo(3);
      expect(forty.error?.code).toBe(-32600);
      expect(forty.error?.message).toMatch(/longer than 64 MB .* it was not read and nothing was done/);
      expect(mcp.stderr()).toMatch(/longer than 64 MB.*\(request id 3\)/);

      mcp.write(call(4, "read_file", { file_path: "a.txt" }));
      const after = await answerTo(4);
      expect(JSON.stringify(after.result)).toContain("hello");

      // 10,000 levels of arrays in the arguments: refused by its id before any validation walks it.
      const deep = "[".repeat(10_000) + "]".repeat(10_000);
      mcp.write(
        `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_file","arguments":{"file_path":${deep}}}}\n`,
      );
      const tooDeep = await answerTo(5);
      expect(tooDeep.error?.message).toMatch(/nests deeper than 256 levels/);
      mcp.write(call(6, "read_file", { file_path: "a.txt" }));
      expect(JSON.stringify((await answerTo(6)).result)).toContain("hello");

      mcp.child.stdin!.end();
      expect(await mcp.exited).toBe(0);
    },
  );
});
