// `lockstep acp` under messages too large or too deep, read through the bounds
// every stdio door shares: each is answered with an error naming the bound, and
// the agent serves on. A 48 MB line used to end the agent with exit 0 and nothing
// on stderr; a stored session with 10,000-deep tool arguments ended it at
// session/load; deep live tool arguments ended the turn as an internal error.
import { mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { methods } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { rawAgent } from "./raw-agent.js";
import { closeAll, startEditor } from "./scripted-editor.js";

afterEach(closeAll);

const MB = 1024 * 1024;
const deepArray = (levels: number): string => "[".repeat(levels) + "]".repeat(levels);

const line = (message: unknown): string => JSON.stringify(message) + "\n";

describe("lockstep acp under large and deep messages", () => {
  it(
    "serves a 40 MB prompt, refuses an 80 MB line and a 10,000-deep one by their ids, and reads on",
    { timeout: 120_000 },
    async () => {
      const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-acp-limits-")));
      const agent = rawAgent(root);
      try {
        agent.child.stdin.write(
          line({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: 1, clientCapabilities: {} },
          }),
        );
        expect((await agent.answerTo(1)).result).toBeDefined();
        agent.child.stdin.write(
          line({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: root, mcpServers: [] } }),
        );
        const sessionId = String((await agent.answerTo(2)).result?.["sessionId"]);

        // 40 MB, under the cap: read and answered (with no model configured, the prompt is refused by name).
        const resource = {
          type: "resource",
          resource: { uri: `file://${root}/big.txt`, text: "x".repeat(40 * MB) },
        };
        agent.child.stdin.write(
          line({
            jsonrpc: "2.0",
            id: 3,
            method: "session/prompt",
            params: { sessionId, prompt: [{ type: "text", text: "hi" }, resource] },
          }),
        );
        const forty = await agent.answerTo(3);
        expect(forty.error?.message ?? "").not.toMatch(/longer than/);

        agent.child.stdin.write(
          line({ jsonrpc: "2.0", id: 4, method: "session/list", params: { padding: "x".repeat(80 * MB) } }),
        );
        const eighty = await agent.answerTo(4);
        expect(eighty.error?.code).toBe(-32600);
        expect(eighty.error?.message).toMatch(/longer than 64 MB.*nothing was done/);
        expect(agent.stderr()).toMatch(/longer than 64 MB.*\(request id 4\)/);

        agent.child.stdin.write(
          `{"jsonrpc":"2.0","id":5,"method":"session/list","params":{"cwd":${deepArray(10_000)}}}\n`,
        );
        expect((await agent.answerTo(5)).error?.message).toMatch(/nests deeper than 256 levels/);

        agent.child.stdin.write(
          line({ jsonrpc: "2.0", id: 6, method: "session/list", params: { cwd: root } }),
        );
        expect((await agent.answerTo(6)).result?.["sessions"]).toHaveLength(1);

        // The editor closing stdin is the one quiet end.
        agent.child.stdin.end();
        expect(await agent.exited).toBe(0);
      } finally {
        agent.child.kill();
      }
    },
  );

  it(
    "answers deep live tool arguments with a named error, and refuses to load a stored session holding them",
    { timeout: 60_000 },
    async () => {
      const stateDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-acp-state-")));
      const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-acp-project-")));
      const editor = await startEditor({
        stateDir,
        root,
        files: { "a.ts": "export const n = 1;\n" },
        args: ["--approval", "auto"],
        // A replay script's arguments given as text are parsed in the agent (JSON.stringify of the value here would overflow).
        turns: [
          { calls: [{ name: "read_file", args: `{"file_path":${deepArray(10_000)}}` }] },
          { calls: [{ name: "read_file", args: { file_path: "a.ts" } }] },
          { text: ["Read it."] },
        ],
      });
      const sessionId = await editor.newSession();
      const answer = await editor.conn.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "read a.ts" }],
      });
      expect(answer.stopReason).toBe("end_turn");
      const results = editor.updates
        .map((u) => u.update)
        .filter((u) => u.sessionUpdate === "tool_call_update");
      expect(JSON.stringify(results)).toMatch(/nest deeper than 256 levels/);
      expect(JSON.stringify(results)).not.toMatch(/internal_error|Internal Error/);

      // The stored file as an attacker leaves it: the first call's arguments 10,000 deep.
      const dir = path.join(stateDir, "lockstep");
      const project = readdirSync(dir)[0]!;
      const file = path.join(
        dir,
        project,
        readdirSync(path.join(dir, project)).find((f) => f.endsWith(".jsonl"))!,
      );
      writeFileSync(
        file,
        readFileSync(file, "utf8").replace('{"file_path":"a.ts"}', `{"file_path":${deepArray(10_000)}}`),
      );
      await editor.close();

      const second = await startEditor({ stateDir, root, turns: [{ text: ["ok"] }] });
      await expect(
        second.conn.agent.request(methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] }),
      ).rejects.toThrow(/nests deeper than 256 levels/);
      expect(second.child.exitCode).toBeNull();
      expect(
        (await second.conn.agent.request(methods.agent.session.list, { cwd: root })).sessions.length,
      ).toBe(1);
    },
  );
});
