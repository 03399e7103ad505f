// After a session/cancel, every later permission answer for that turn is a
// rejection: a client that sends the cancel and then answers allow_once (in that
// order, in one write) used to get the write landed in 9 of 15 trials, the turn
// `cancelled` and the tool call `completed`.
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sha256Of } from "../support/workspace-fixture.js";
import { rawAgent, type RawAgent } from "./raw-agent.js";

const TRIALS = 15;
const TEXT = "a = 1\n";
const agents: RawAgent[] = [];
afterEach(() => {
  for (const a of agents.splice(0)) a.child.kill();
});

const line = (message: unknown): string => JSON.stringify(message) + "\n";

describe("lockstep acp: cancel, then allow", () => {
  it(
    `writes nothing in ${TRIALS} of ${TRIALS} trials when the allow comes after the cancel`,
    { timeout: 60_000 },
    async () => {
      const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-acp-cancel-")));
      writeFileSync(path.join(root, "a.ts"), TEXT);
      const edit = {
        name: "edit",
        args: {
          file_path: "a.ts",
          old_string: "a = 1",
          new_string: "a = 2",
          base_content_sha256: sha256Of(TEXT),
        },
      };
      const script = path.join(root, ".script.json");
      writeFileSync(
        script,
        JSON.stringify({ turns: Array.from({ length: TRIALS }, () => ({ calls: [edit] })) }),
      );
      const agent = rawAgent(root, ["--replay", script]);
      agents.push(agent);
      agent.child.stdin.write(
        line({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: 1, clientCapabilities: {} },
        }),
      );
      await agent.answerTo(1);
      agent.child.stdin.write(
        line({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: root, mcpServers: [] } }),
      );
      const sessionId = String((await agent.answerTo(2)).result?.["sessionId"]);

      const answered = new Set<unknown>();
      for (let i = 0; i < TRIALS; i++) {
        const id = 10 + i;
        agent.child.stdin.write(
          line({
            jsonrpc: "2.0",
            id,
            method: "session/prompt",
            params: { sessionId, prompt: [{ type: "text", text: `try ${i}` }] },
          }),
        );
        // A turn that asks nothing (the file changed under an earlier trial's write) ends the test here.
        const asked = await agent.next(
          (m) =>
            (m.method === "session/request_permission" && !answered.has(m.id)) ||
            (m.id === id && m.method === undefined),
        );
        expect(
          asked.method,
          `trial ${i}: no permission asked; a.ts is now ${JSON.stringify(readFileSync(path.join(root, "a.ts"), "utf8"))}`,
        ).toBe("session/request_permission");
        answered.add(asked.id);
        // The cancel first, then the answer, in one write.
        agent.child.stdin.write(
          line({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } }) +
            line({
              jsonrpc: "2.0",
              id: asked.id,
              result: { outcome: { outcome: "selected", optionId: "allow_once" } },
            }),
        );
        expect((await agent.answerTo(id)).result?.["stopReason"]).toBe("cancelled");
      }
      expect(answered.size).toBe(TRIALS);
      expect(readFileSync(path.join(root, "a.ts"), "utf8")).toBe(TEXT);
      const statuses = agent
        .messages()
        .filter((m) => m.method === "session/update")
        .map((m) => m.params?.["update"] as { sessionUpdate: string; status?: string });
      expect(
        statuses.filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed"),
      ).toEqual([]);
    },
  );
});
