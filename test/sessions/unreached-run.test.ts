// A run that never reached the model (the endpoint refused the key, or dropped the connection)
// leaves no session in the store: `lockstep.sessions` lists none and no file is left. The next
// run that does reach it makes the session as usual, resumable in a new server.
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startAgent, turn } from "../support/agent-scripts.js";
import type { FakeTurn } from "../support/fake-gemini.js";
import { stopAllServers } from "../support/lsp-client.js";

afterEach(stopAllServers);

function stateEnv(): { env: Record<string, string>; dir: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "lockstep-unreached-"));
  return { env: { XDG_STATE_HOME: dir }, dir };
}

/** Every session file under the state directory `dir`. */
function sessionFiles(dir: string): string[] {
  const base = path.join(dir, "lockstep");
  let projects: string[];
  try {
    projects = readdirSync(base);
  } catch {
    return [];
  }
  return projects.flatMap((p) => {
    try {
      return readdirSync(path.join(base, p)).filter((f) => f.endsWith(".jsonl"));
    } catch {
      return [];
    }
  });
}

const listed = async (
  rig: Awaited<ReturnType<typeof startAgent>>,
): Promise<{ id: string; turns: number }[]> => {
  const answer = await rig.client.command("sessions", {});
  expect(answer.ok).toBe(true);
  return answer.data?.["sessions"] as { id: string; turns: number }[];
};

describe("a run that never reached the model", () => {
  for (const [name, failure] of [
    ["a refused key (401)", { status: 401, message: "API key not valid" }],
    ["a dropped connection", { dropConnection: true }],
  ] as [string, FakeTurn][]) {
    it(`${name} leaves no session; the next run that reaches the model is stored`, async () => {
      const { env, dir } = stateEnv();
      // Every request fails (retries too) until the endpoint is mended.
      let mended = false;
      const rig = await startAgent({
        files: { "a.txt": "a\n" },
        env,
        script: () => (mended ? turn({ text: ["Hello."] }) : failure),
      });
      const failed = await rig.finished(await rig.ask("say hello"), 60_000);
      expect(failed.status).toBe("failed");
      expect(await listed(rig)).toEqual([]);
      expect(sessionFiles(dir)).toEqual([]);
      expect((await rig.client.command("session", {})).data?.["stored_session"]).toBeNull();

      mended = true;
      const done = await rig.finished(await rig.ask("say hello again"), 60_000);
      expect(done.status).toBe("done");
      const sessions = await listed(rig);
      expect(sessions).toHaveLength(1);
      expect(sessions[0]!.turns).toBeGreaterThanOrEqual(1);
      expect(sessionFiles(dir)).toHaveLength(1);
    }, 120_000);
  }
});
