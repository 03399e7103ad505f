// `lockstep acp` as a spawned process, the SDK's client side as the editor: a
// multi-tool turn streamed, a stale write refused and retried against the new
// buffer, permission asked (always allow once, reject reaching the model).
import { readFileSync } from "node:fs";
import path from "node:path";
import { methods, type SessionNotification } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { closeAll, contentText, edit, messageText, startEditor } from "./scripted-editor.js";

afterEach(closeAll);

const A = "export const value = 1;\nexport const other = 2;\n";

const kindOf = (u: SessionNotification): string =>
  u.update.sessionUpdate === "tool_call" ? String(u.update.kind) : "";

describe("lockstep acp with an editor that offers its buffers", () => {
  it("streams a multi-tool turn; a write on a buffer that changed is refused as stale and retried on the new buffer", async () => {
    const editor = await startEditor({
      files: { "a.ts": A },
      turns: [
        {
          text: ["Reading ", "a.ts."],
          calls: [
            { name: "read_file", args: { file_path: "a.ts" } },
            { name: "search_files", args: { pattern: "other" } },
          ],
        },
        {
          calls: [edit("a.ts", "value = 1", "value = 2")],
        },
        {
          calls: [edit("a.ts", "value = 1", "value = 2")],
        },
        { text: ["Done."] },
      ],
    });
    const file = path.join(editor.root, "a.ts");
    // The user types in the buffer once the agent has read it and set out to edit it.
    let typed = false;
    editor.onRead = (p) => {
      if (p === file && !typed && editor.updates.some((u) => kindOf(u) === "edit")) {
        typed = true;
        editor.buffers.set(file, "// typed meanwhile\n" + A);
      }
    };
    const sessionId = await editor.newSession();
    const answer = await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "set value to 2" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    // The SDK's client may hand over the answer before the notifications that preceded it on the wire.
    await editor.waitForUpdate(
      (u) =>
        u.update.sessionUpdate === "agent_message_chunk" &&
        u.update.content.type === "text" &&
        u.update.content.text.endsWith("Done."),
    );

    const updates = editor.updates.filter((u) => u.sessionId === sessionId);
    expect(messageText(updates)).toContain("Reading a.ts.");
    expect(messageText(updates)).toContain("Done.");
    expect(updates.filter((u) => u.update.sessionUpdate === "tool_call").map(kindOf)).toEqual([
      "read",
      "search",
      "edit",
      "edit",
    ]);
    const calls = updates
      .filter((u) => u.update.sessionUpdate === "tool_call")
      .map((u) => (u.update as { toolCallId: string }).toolCallId);
    const ends = updates.filter(
      (u) =>
        u.update.sessionUpdate === "tool_call_update" &&
        (u.update as { status?: string }).status !== undefined &&
        (u.update as { status?: string }).status !== "pending",
    );
    const endOf = (id: string) =>
      ends.find(
        (u) =>
          (u.update as { toolCallId: string }).toolCallId === id &&
          ["completed", "failed"].includes(String((u.update as { status?: string }).status)),
      )!.update as {
        status: string;
        content: {
          type: string;
          content?: { text: string };
          path?: string;
          oldText?: string;
          newText?: string;
        }[];
        locations?: { path: string }[];
      };
    expect(endOf(calls[0]!).status).toBe("completed");
    expect(endOf(calls[0]!).locations?.[0]?.path).toBe(file);
    const stale = endOf(calls[2]!);
    expect(stale.status).toBe("failed");
    expect(stale.content.at(-1)?.content?.text).toMatch(/^Stale, not applied: State Mismatch/);
    const retried = endOf(calls[3]!) as { status: string; content?: unknown; title?: string };
    expect(retried.status).toBe("completed");
    // Landed: the diff already shown stays in view (no content sent again); the title says it was a retry.
    expect(retried.content).toBeUndefined();
    expect(retried.title).toMatch(/after a stale attempt was refused/);
    const shown = updates.find(
      (u) =>
        u.update.sessionUpdate === "tool_call_update" &&
        (u.update as { toolCallId: string }).toolCallId === calls[3] &&
        (u.update.content ?? []).some((c) => c.type === "diff"),
    )!.update as { content: { type: string }[] };
    const diff = shown.content.find((c) => c.type === "diff")!;
    expect(diff).toMatchObject({
      path: file,
      oldText: "// typed meanwhile\n" + A,
      newText: "// typed meanwhile\n" + A.replace("value = 1", "value = 2"),
    });

    // The diff was shown before the change landed: its update precedes the permission request's answer and the write.
    const diffAt = updates.findIndex(
      (u) =>
        u.update.sessionUpdate === "tool_call_update" &&
        (u.update as { toolCallId: string }).toolCallId === calls[3] &&
        (u.update.content ?? []).some((c) => c.type === "diff"),
    );
    expect(diffAt).toBeGreaterThan(-1);
    // The stale attempt is found before its question or after it (by the read that follows the answer).
    const asked = editor.permissions.at(-1)!;
    // The question refers to that update (its call, title and kind), without the diff again.
    expect(asked.toolCall).toMatchObject({ toolCallId: calls[3], kind: "edit" });
    expect(asked.toolCall.content ?? []).toEqual([]);
    expect(asked.options.map((o) => o.kind)).toEqual([
      "allow_once",
      "allow_always",
      "reject_once",
      "reject_always",
    ]);

    // The write went to the editor's buffer, over the text the user typed; the disk is untouched.
    expect(editor.writes).toEqual([
      { path: file, content: "// typed meanwhile\n" + A.replace("value = 1", "value = 2") },
    ]);
    expect(readFileSync(file, "utf8")).toBe(A);
  });

  it("reads through the client again after the approval, and refuses when the buffer moved while the user decided", async () => {
    const editor = await startEditor({
      files: { "a.ts": A },
      turns: [
        { calls: [{ name: "read_file", args: { file_path: "a.ts" } }] },
        {
          calls: [edit("a.ts", "value = 1", "value = 2")],
        },
        {
          calls: [edit("a.ts", "value = 1", "value = 2")],
        },
        { text: ["Done."] },
      ],
    });
    const file = path.join(editor.root, "a.ts");
    // The user types while deciding: the read after the yes (the one the write is checked against) sees it.
    let readsAfterYes = 0;
    editor.onRead = (p) => {
      if (p !== file || editor.permissions.length !== 1) return;
      if (++readsAfterYes === 1) editor.buffers.set(file, A + "// typed at the last moment\n");
    };
    const sessionId = await editor.newSession();
    await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "set value to 2" }],
    });
    await editor.waitForUpdate((u) => messageText([u]).endsWith("Done."));
    const ends = editor.updates.filter(
      (u) =>
        u.update.sessionUpdate === "tool_call_update" &&
        (u.update.status === "completed" || u.update.status === "failed"),
    );
    expect(ends.map((u) => (u.update as { status: string }).status)).toEqual([
      "completed",
      "failed",
      "completed",
    ]);
    expect(contentText(ends[1]!)).toMatch(
      /Stale, not applied: State Mismatch: a\.ts changed while the change was waiting for approval/,
    );
    // One write only, on the text the user typed last: nothing of theirs was overwritten.
    expect(editor.writes).toEqual([
      { path: file, content: (A + "// typed at the last moment\n").replace("value = 1", "value = 2") },
    ]);
  });
});
