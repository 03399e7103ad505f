// A client's MCP server that floods lines which are not JSON-RPC: lockstep drops it
// after a bound, names why in the session's status, and answers other requests
// meanwhile. It used to hold the agent: session/list took a median of 1,048 ms
// while session/new waited on such a server (until its 15 s connect timeout).
import path from "node:path";
import { performance } from "node:perf_hooks";
import { methods } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { closeAll, startEditor } from "./scripted-editor.js";

afterEach(closeAll);

const FLOOD = path.resolve("test/acp/fixtures/flood-mcp-server.mjs");

describe("lockstep acp and a client's MCP server that floods junk", () => {
  it(
    "drops the server by name, well before the connect timeout, and session/list stays quick meanwhile",
    { timeout: 60_000 },
    async () => {
      const editor = await startEditor({ turns: [] });
      // A quiet baseline first: the same request with nothing else going on.
      const timeList = async (): Promise<number> => {
        const start = performance.now();
        await editor.conn.agent.request(methods.agent.session.list, { cwd: editor.root });
        return performance.now() - start;
      };
      // The MCP SDK is loaded on the first server; a server that fails at once loads it outside the measure.
      await editor.conn.agent.request(methods.agent.session.new, {
        cwd: editor.root,
        mcpServers: [{ name: "none", command: path.join(editor.root, "no-such-binary"), args: [], env: [] }],
      });
      const quiet: number[] = [];
      for (let i = 0; i < 5; i++) quiet.push(await timeList());

      const started = performance.now();
      const created = editor.conn.agent.request(methods.agent.session.new, {
        cwd: editor.root,
        mcpServers: [{ name: "flood", command: process.execPath, args: [FLOOD], env: [] }],
      });
      let settled = false;
      void created.then(
        () => (settled = true),
        () => (settled = true),
      );
      const during: number[] = [];
      while (!settled && during.length < 500) during.push(await timeList());
      const session = await created;
      const took = performance.now() - started;

      const max = Math.max(...during, 0);
      const quietMax = Math.max(...quiet);
      console.log(
        `session/list quiet max ${quietMax.toFixed(0)} ms; during the flood: ${during.length} lists, median ${[...during].sort((a, b) => a - b)[Math.floor(during.length / 2)]?.toFixed(0)} ms, max ${max.toFixed(0)} ms; session/new ${took.toFixed(0)} ms`,
      );
      const status = (
        session._meta as { lockstep: { mcp_servers: { name: string; status: string; error?: string }[] } }
      ).lockstep.mcp_servers;
      expect(status).toEqual([
        expect.objectContaining({
          name: "flood",
          status: "failed",
          error: expect.stringMatching(
            /flood was dropped: it sent 100 lines that are not JSON-RPC/,
          ) as string,
        }),
      ]);
      // The 15 s connect timeout never came into it.
      expect(took).toBeLessThan(10_000);
      // Generous for a loaded 2-core machine: each list within 300 ms, or within 10 times the quiet one.
      expect(max).toBeLessThan(Math.max(300, 10 * quietMax));
    },
  );
});
