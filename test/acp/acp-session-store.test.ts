// A session exists from session/new on: stored before any prompt, so it is listed and
// loadable after any exit (SIGKILL right after session/new); session/list without a cwd
// lists every project's sessions of the store, in pages.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { methods } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { closeAll, messageText, startEditor, type ScriptedEditor } from "./scripted-editor.js";

const dirs: string[] = [];
afterEach(async () => {
  await closeAll();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}

async function kill(editor: ScriptedEditor): Promise<void> {
  const killed = new Promise((resolve) => editor.child.once("exit", resolve));
  editor.child.kill("SIGKILL");
  await killed;
}

describe("lockstep acp stores a session when it is created", () => {
  it("lists, loads and continues a session that was never prompted, after SIGKILL right after session/new", async () => {
    const root = tempDir("lockstep-acp-project-");
    const stateDir = tempDir("lockstep-acp-state-");
    const first = await startEditor({ root, stateDir });
    const sessionId = await first.newSession();
    await kill(first);

    const second = await startEditor({ root, stateDir, turns: [{ text: ["Hello again."] }] });
    const listed = await second.conn.agent.request(methods.agent.session.list, { cwd: root });
    expect(listed.sessions).toEqual([expect.objectContaining({ sessionId, cwd: root })]);
    await second.conn.agent.request(methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] });
    const answer = await second.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "say hello" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    await second.waitForUpdate((u) => messageText([u]).includes("Hello again."));
    // The first prompt gives the stored session its title.
    const again = await second.conn.agent.request(methods.agent.session.list, { cwd: root });
    expect(again.sessions).toEqual([expect.objectContaining({ sessionId, title: "say hello" })]);
  });

  it("lists every project's sessions without a cwd, in pages", async () => {
    const stateDir = tempDir("lockstep-acp-state-");
    const projects = [tempDir("lockstep-acp-one-"), tempDir("lockstep-acp-two-")];
    const made: { sessionId: string; cwd: string }[] = [];
    for (const root of projects) {
      const editor = await startEditor({ root, stateDir });
      made.push({ sessionId: await editor.newSession(), cwd: root });
      await editor.close();
    }
    // Started elsewhere: its own directory has no sessions.
    const elsewhere = await startEditor({ root: tempDir("lockstep-acp-elsewhere-"), stateDir });
    const listed = await elsewhere.conn.agent.request(methods.agent.session.list, {});
    expect(
      listed.sessions
        .map((s) => ({ sessionId: s.sessionId, cwd: s.cwd }))
        .sort((a, b) => a.cwd.localeCompare(b.cwd)),
    ).toEqual(made.sort((a, b) => a.cwd.localeCompare(b.cwd)));
    expect(listed.nextCursor ?? null).toBeNull();
    await expect(
      elsewhere.conn.agent.request(methods.agent.session.list, { cursor: "bogus" }),
    ).rejects.toThrow(/cursor is not one lockstep gave/);
  });
});
