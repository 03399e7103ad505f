// One writer per stored session: ACP's session/resume by a prefix and then by the
// full id used to open two live sessions on one file (closing one removed the lock
// while the other wrote). The prefix is resolved to the full id first, and the lock
// is taken atomically on that id, in this process as in another.
import { mkdtempSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { methods } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { closeAll, startEditor } from "./scripted-editor.js";

afterEach(closeAll);

const tempDir = (prefix: string): string => realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));

describe("lockstep acp and one writer per session file", () => {
  it(
    "resumes by prefix under the full id, and refuses the full id (here and in a second process) while it is open",
    { timeout: 60_000 },
    async () => {
      const root = tempDir("lockstep-acp-project-");
      const stateDir = tempDir("lockstep-acp-state-");
      const first = await startEditor({ root, stateDir, turns: [{ text: ["hello"] }] });
      const sessionId = await first.newSession();
      await first.conn.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "hi" }],
      });
      await first.close();

      const editor = await startEditor({ root, stateDir, turns: [{ text: ["again"] }] });
      const prefix = sessionId.slice(0, 15);
      await editor.conn.agent.request(methods.agent.session.resume, { sessionId: prefix, cwd: root });
      await expect(
        editor.conn.agent.request(methods.agent.session.resume, { sessionId, cwd: root }),
      ).rejects.toThrow(/already open in this lockstep process/);
      // The session answers to its full id.
      const answer = await editor.conn.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "more" }],
      });
      expect(answer.stopReason).toBe("end_turn");

      const other = await startEditor({ root, stateDir, turns: [] });
      await expect(
        other.conn.agent.request(methods.agent.session.resume, { sessionId: prefix, cwd: root }),
      ).rejects.toThrow(/live in another lockstep process \(pid \d+\)/);

      // Closed, it is free again.
      await editor.conn.agent.request(methods.agent.session.close, { sessionId });
      await other.conn.agent.request(methods.agent.session.resume, { sessionId, cwd: root });
    },
  );
});
