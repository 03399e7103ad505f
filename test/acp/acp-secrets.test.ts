// Credentials typed into a prompt (or echoed back by the model) are not kept:
// the session file and the debug log hold [redacted] where the token was. Before,
// `sk-proj-…` and `ghp_…` in a prompt were written three times into the session
// file (only the key variables' own values were redacted).
import { mkdtempSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { methods } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { closeAll, startEditor } from "./scripted-editor.js";

afterEach(closeAll);

const OPENAI = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z".repeat(3);
const GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0".repeat(2);
const AWS = "AKIA" + "QWERTYUIOPASDFGH";
const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";

describe("lockstep acp keeps no credential typed in a prompt", () => {
  it(
    "writes [redacted] for OpenAI, GitHub, AWS and JWT tokens in the session file and the debug log",
    { timeout: 60_000 },
    async () => {
      const stateDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-acp-state-")));
      const editor = await startEditor({
        stateDir,
        args: ["--debug"],
        turns: [{ text: [`Noted your key ${OPENAI}.`] }],
      });
      const sessionId = await editor.newSession();
      const prompt = `use ${OPENAI} and\n${GITHUB} with ${AWS}; Authorization: Bearer ${JWT}`;
      const answer = await editor.conn.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: prompt }],
      });
      expect(answer.stopReason).toBe("end_turn");
      await editor.close();

      const project = readdirSync(path.join(stateDir, "lockstep"))[0]!;
      const folder = path.join(stateDir, "lockstep", project);
      const stored = readdirSync(folder)
        .filter((f) => f.endsWith(".jsonl"))
        .map((f) => readFileSync(path.join(folder, f), "utf8"))
        .join("");
      expect(stored).toContain("[redacted]");
      for (const token of [OPENAI, GITHUB, AWS, JWT, "Ab3dEf6hIj9kLm2nOp5q", "a1B2c3D4e5F6g7H8i9J0"]) {
        expect(stored).not.toContain(token);
        expect(editor.stderr()).not.toContain(token);
      }
    },
  );
});
