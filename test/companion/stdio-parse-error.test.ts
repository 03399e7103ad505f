// `lockstep mcp` on stdio against lines that are not JSON-RPC: a line that is not JSON is answered
// with a JSON-RPC parse error (-32700, id null), JSON that is not a message with -32600 (by its id
// when it names one), each said on stderr, and the next line is read as usual. It used to pass
// them to the SDK as transport errors and answer nothing: the agent waited for ever.
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, createWorkspace } from "../support/lsp-client.js";
import { startRawMcp } from "./raw-mcp.js";

afterEach(cleanup);

describe("lockstep mcp and lines that are not JSON-RPC", () => {
  it(
    "answers -32700 to a line that is not JSON, -32600 to one that is not a message, and reads on",
    { timeout: 60_000 },
    async () => {
      const root = await createWorkspace({ "a.txt": "hello\n" });
      const mcp = startRawMcp(root);
      const { nth } = mcp;
      expect((await mcp.initialize()).result).toBeDefined();
      expect(await nth(1)).toMatchObject({ id: 1 });

      mcp.write("this is not json {\n");
      const parseError = await nth(2);
      expect(parseError).toMatchObject({ id: null, error: { code: -32700 } });
      expect(parseError.error?.message).toMatch(/not JSON .* one JSON-RPC message per line/);
      expect(mcp.stderr()).toMatch(/a line that is not JSON/);

      mcp.send({ id: 7, hello: "world" });
      expect(await nth(3)).toMatchObject({ id: 7, error: { code: -32600 } });
      mcp.write("42\n");
      expect(await nth(4)).toMatchObject({ id: null, error: { code: -32600 } });

      mcp.send({
        jsonrpc: "2.0",
        id: 8,
        method: "tools/call",
        params: { name: "read_file", arguments: { file_path: "a.txt" } },
      });
      const read = await nth(5);
      expect(read.id).toBe(8);
      expect(JSON.stringify(read.result)).toContain("hello");

      mcp.child.stdin!.end();
      expect(await mcp.exited).toBe(0);
    },
  );
});
