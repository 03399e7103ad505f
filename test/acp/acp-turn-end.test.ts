// Every update of a turn goes out before the turn's answer, whatever ends it: a cancel while a
// permission, a read, a write, a model stream or an MCP call is open. What the client still owes
// (a late permission answer, a read or write answered after the cancel) adds nothing afterwards.
import { existsSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { methods, type McpServer, type SessionNotification } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { closeAll, contentText, startEditor, type ScriptedEditor } from "./scripted-editor.js";

afterEach(closeAll);

const edit = (file: string, from: string, to: string) => ({
  name: "edit",
  args: { file_path: file, old_string: from, new_string: to, base_content_sha256: `{{sha256:${file}}}` },
});

/** A promise and its resolver: an answer the client holds back. */
function held(): { promise: Promise<void>; release: () => void } {
  let release = (): void => undefined;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

/**
 * Cancels the prompt once `ready` says so, then lets the client answer what it held, then sends
 * `/session` (answered after anything the agent still had queued) and returns the updates that
 * came after the cancelled answer, with the answer.
 */
async function cancelThenLate(
  editor: ScriptedEditor,
  sessionId: string,
  ready: () => Promise<void>,
  release: () => void,
): Promise<{ stopReason: string; late: unknown[]; before: SessionNotification[] }> {
  const prompt = editor.conn.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "go" }],
  });
  await ready();
  await editor.conn.agent.notify(methods.agent.session.cancel, { sessionId });
  const answer = await prompt;
  release();
  // Nothing to wait on for "nothing more is sent": the released call is given a moment, then the next prompt's answer.
  await sleep(300);
  await editor.conn.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "/session" }],
  });
  // In the order lockstep wrote them: what came after the cancelled answer, but the /session reply.
  const answered = editor.wire.findIndex(
    (m) => (m["result"] as { stopReason?: string } | undefined)?.stopReason === "cancelled",
  );
  const late = editor.wire
    .slice(answered + 1)
    .filter((m) => m["method"] === "session/update" && JSON.stringify(m).includes('"tool_call'));
  const before = editor.wire
    .slice(0, answered)
    .filter((m) => m["method"] === "session/update")
    .map((m) => m["params"] as SessionNotification);
  return { stopReason: answer.stopReason, late, before };
}

async function waitFor(test: () => boolean): Promise<void> {
  while (!test()) await sleep(10);
}

const ended = (u: SessionNotification): boolean =>
  u.update.sessionUpdate === "tool_call_update" &&
  (u.update.status === "completed" || u.update.status === "failed");

describe("lockstep acp sends a turn's updates before its answer", () => {
  it("cancel while a permission is open: the call ends before `cancelled`, the late answer adds nothing", async () => {
    const answer = held();
    const editor = await startEditor({
      files: { "a.ts": "a = 1\n" },
      turns: [
        { calls: [{ name: "read_file", args: { file_path: "a.ts" } }] },
        { calls: [edit("a.ts", "a = 1", "a = 2")] },
        { text: ["never said"] },
      ],
      permission: async () => (await answer.promise, "cancelled"),
    });
    const sessionId = await editor.newSession();
    const out = await cancelThenLate(
      editor,
      sessionId,
      () => waitFor(() => editor.permissions.length > 0),
      answer.release,
    );
    expect(out.stopReason).toBe("cancelled");
    expect(JSON.stringify(out.late)).toBe("[]");
    const last = out.before.filter(ended).at(-1);
    expect(last?.update).toMatchObject({ status: "failed" });
    expect(contentText(last!)).toContain("Cancelled");
    expect(editor.writes).toEqual([]);
  });

  it("cancel while an fs/read_text_file is unanswered", async () => {
    const read = held();
    let reading = false;
    const editor = await startEditor({
      files: { "a.ts": "a = 1\n" },
      turns: [{ calls: [{ name: "read_file", args: { file_path: "a.ts" } }] }, { text: ["never said"] }],
      beforeRead: async () => {
        reading = true;
        await read.promise;
      },
    });
    const sessionId = await editor.newSession();
    const out = await cancelThenLate(editor, sessionId, () => waitFor(() => reading), read.release);
    expect(out.stopReason).toBe("cancelled");
    expect(JSON.stringify(out.late)).toBe("[]");
    expect(out.before.filter(ended)).toHaveLength(1);
  });

  it("cancel while an fs/write_text_file is unanswered", async () => {
    const write = held();
    let writing = false;
    const editor = await startEditor({
      files: { "a.ts": "a = 1\n" },
      turns: [
        { calls: [{ name: "read_file", args: { file_path: "a.ts" } }] },
        { calls: [edit("a.ts", "a = 1", "a = 2")] },
        { text: ["never said"] },
      ],
      beforeWrite: async () => {
        writing = true;
        await write.promise;
      },
    });
    const sessionId = await editor.newSession();
    const out = await cancelThenLate(editor, sessionId, () => waitFor(() => writing), write.release);
    expect(out.stopReason).toBe("cancelled");
    expect(JSON.stringify(out.late)).toBe("[]");
    expect(out.before.filter(ended)).toHaveLength(2);
  });

  it("cancel while the model streams", async () => {
    const editor = await startEditor({
      turns: [{ text: ["one ", "two ", "three ", "four"] }],
      env: { LOCKSTEP_REPLAY_DELAY_MS: "400" },
    });
    const sessionId = await editor.newSession();
    const prompt = editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "count" }],
    });
    await editor.waitForUpdate((u) => u.update.sessionUpdate === "agent_message_chunk");
    await editor.conn.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    const at = editor.updates.length;
    await sleep(1000);
    await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "/session" }],
    });
    expect(
      editor.updates
        .slice(at)
        .map((u) =>
          u.update.sessionUpdate === "agent_message_chunk" && u.update.content.type === "text"
            ? u.update.content.text
            : "",
        )
        .join(""),
    ).not.toMatch(/two|three|four/);
  });

  it("cancel while a client's MCP server's tool runs", async () => {
    const editor = await startEditor({
      turns: [{ calls: [{ name: "mcp__loud__shout", args: { text: "hello" } }] }, { text: ["never said"] }],
    });
    const log = path.join(editor.root, "shout.log");
    const mcpServers: McpServer[] = [
      {
        name: "loud",
        command: process.execPath,
        args: [path.resolve("test/acp/fixtures/shout-mcp-server.mjs")],
        env: [
          { name: "SHOUT_LOG", value: log },
          { name: "SHOUT_DELAY_MS", value: "1500" },
        ],
      },
    ];
    const { sessionId } = await editor.conn.agent.request(methods.agent.session.new, {
      cwd: editor.root,
      mcpServers,
    });
    await editor.conn.agent.request(methods.agent.session.setConfigOption, {
      sessionId,
      configId: "approval",
      value: "auto",
    });
    // A client's MCP tool is asked about even under auto (the editor allows it at once): the cancel
    // comes after the answer, while the server holds the call 1.5 s; the log shows the call ran.
    const running = async (): Promise<void> => {
      await editor.waitForUpdate((u) => u.update.sessionUpdate === "tool_call");
      await waitFor(() => editor.permissions.length > 0);
      await sleep(300);
    };
    const out = await cancelThenLate(editor, sessionId, running, () => undefined);
    await waitFor(() => existsSync(log));
    await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "/session" }],
    });
    expect(out.stopReason).toBe("cancelled");
    expect(out.late).toEqual([]);
    expect(out.before.filter(ended)).toHaveLength(1);
    expect(contentText(out.before.filter(ended)[0]!)).toContain("Cancelled");
  });
});
