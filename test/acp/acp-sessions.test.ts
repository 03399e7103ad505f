// Stored sessions over ACP: after the process that ran a session was killed, a
// new one lists it (session/list), replays it (session/load) as the updates that
// showed it, and continues the conversation under the same id.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { methods } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { closeAll, edit, messageText, startEditor } from "./scripted-editor.js";

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

describe("lockstep acp keeps sessions across processes", () => {
  it("lists and loads a session after its process was killed, and continues it", async () => {
    const root = tempDir("lockstep-acp-project-");
    const stateDir = tempDir("lockstep-acp-state-");
    writeFileSync(path.join(root, "a.ts"), "export const n = 1;\n");
    const first = await startEditor({
      root,
      stateDir,
      args: ["--approval", "auto"],
      turns: [
        { text: ["Reading a.ts."], calls: [{ name: "read_file", args: { file_path: "a.ts" } }] },
        {
          calls: [edit("a.ts", "n = 1", "n = 2")],
        },
        { text: ["Changed n to 2."] },
      ],
    });
    const sessionId = await first.newSession();
    await first.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "set n to 2" }],
    });
    await first.waitForUpdate((u) => messageText([u]).includes("Changed n to 2."));
    const killed = new Promise((resolve) => first.child.once("exit", resolve));
    first.child.kill("SIGKILL");
    await killed;

    const second = await startEditor({
      root,
      stateDir,
      turns: [{ text: ["Continuing where we left off."] }],
    });
    const listed = await second.conn.agent.request(methods.agent.session.list, { cwd: root });
    expect(listed.sessions).toEqual([expect.objectContaining({ sessionId, cwd: root, title: "set n to 2" })]);

    const loaded = await second.conn.agent.request(methods.agent.session.load, {
      sessionId,
      cwd: root,
      mcpServers: [],
    });
    expect(loaded.configOptions?.map((o) => o.id)).toContain("approval");
    await second.waitForUpdate((u) => messageText([u]).includes("Changed n to 2."));
    const replayed = second.updates.filter((u) => u.sessionId === sessionId).map((u) => u.update);
    expect(replayed[0]).toEqual({
      sessionUpdate: "user_message_chunk",
      content: { type: "text", text: "set n to 2" },
    });
    expect(
      replayed.filter((u) => u.sessionUpdate === "tool_call").map((u) => (u as { kind: string }).kind),
    ).toEqual(["read", "edit"]);
    expect(
      replayed
        .filter((u) => u.sessionUpdate === "tool_call_update" && u.status !== undefined)
        .map((u) => (u as { status: string }).status),
    ).toEqual(["completed", "completed"]);
    // Titles as first sent ("read_file a.ts", not "read_file"); a read shows what it read, not "Done.".
    const titles = (updates: typeof replayed): unknown[] =>
      updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => (u as { title: string }).title);
    expect(titles(replayed)).toEqual(titles(first.updates.map((u) => u.update)));
    const readEnd = replayed.find((u) => u.sessionUpdate === "tool_call_update")!;
    expect(readEnd).toMatchObject({ content: [], locations: [{ path: path.join(root, "a.ts") }] });

    // The stored history is this session's now, written to the same file from here on.
    const seen = second.updates.length;
    await second.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "/session" }],
    });
    const status = await second.waitForUpdate(
      (u) => second.updates.indexOf(u) >= seen && messageText([u]).includes("history_messages"),
    );
    const facts = JSON.parse(messageText([status]).replace(/^```json\n|\n```$/g, "")) as {
      history_messages: number;
      stored: { id: string } | null;
    };
    expect(facts.history_messages).toBeGreaterThanOrEqual(5);
    expect(facts.stored?.id).toBe(sessionId);

    // The conversation goes on under the same id.
    const answer = await second.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "and now?" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    await second.waitForUpdate((u) => messageText([u]).includes("Continuing where we left off."));
    const again = await second.conn.agent.request(methods.agent.session.list, { cwd: root });
    expect(again.sessions).toHaveLength(1);
  });

  it("names an unknown stored session, and a session already open", async () => {
    const editor = await startEditor({ turns: [{ text: ["hi"] }] });
    await expect(
      editor.conn.agent.request(methods.agent.session.load, {
        sessionId: "20200101-000000-abcdef",
        cwd: editor.root,
        mcpServers: [],
      }),
    ).rejects.toThrow(/session\/list/);
    await expect(
      editor.conn.agent.request(methods.agent.session.resume, {
        sessionId: "20200101-000000-abcdef",
        cwd: editor.root,
      }),
    ).rejects.toThrow(/session\/list/);
    const open = await editor.newSession();
    await expect(
      editor.conn.agent.request(methods.agent.session.load, {
        sessionId: open,
        cwd: editor.root,
        mcpServers: [],
      }),
    ).rejects.toThrow(/already open/);
  });
});
