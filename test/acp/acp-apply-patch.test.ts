// A change across files over ACP: apply_patch asks one session/request_permission
// for the whole call, its tool call carrying a diff per file; allowed, every file
// lands; rejected, none does. `lockstep acp` as a process, a scripted editor.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { methods, type ToolCallContent } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAi, type FakeOpenAi } from "../support/fake-openai.js";
import {
  A_PY as A,
  B_PY as B,
  C_PY as C,
  THREE_FILE_ENVELOPE as ENVELOPE,
  threeFileTurns,
} from "../support/three-file-change.js";
import { closeAll, startEditor, type ScriptedEditor } from "./scripted-editor.js";

let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await closeAll();
  await fake?.close();
  fake = undefined;
});

async function run(answer: string): Promise<ScriptedEditor> {
  const editor = await startEditor({
    files: { "a.py": A, "b.py": B },
    turns: threeFileTurns("ok"),
    permission: () => answer,
  });
  const sessionId = await editor.newSession();
  const done = await editor.conn.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "change three files" }],
  });
  expect(done.stopReason).toBe("end_turn");
  return editor;
}

/** The content of the update that showed a call's diffs. */
const diffsOfCall = (editor: ScriptedEditor, id: string): ToolCallContent[] =>
  editor.updates
    .map((u) => u.update)
    .filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === id)
    .map((u) => (u as { content?: ToolCallContent[] }).content ?? [])
    .find((c) => c.some((x) => x.type === "diff")) ?? [];

const disk = (editor: ScriptedEditor, rel: string): string =>
  readFileSync(path.join(editor.root, rel), "utf8");

describe("apply_patch across files over ACP", () => {
  it("asks once with a diff per file; allowed, every file lands", async () => {
    const editor = await run("allow_once");
    expect(editor.permissions).toHaveLength(1);
    // The diffs go out once, in the update before the question; the question refers to that call.
    expect(editor.permissions[0]!.toolCall.content ?? []).toEqual([]);
    const diffs = diffsOfCall(editor, editor.permissions[0]!.toolCall.toolCallId).filter(
      (c): c is Extract<ToolCallContent, { type: "diff" }> => c.type === "diff",
    );
    expect(diffs.map((d) => [path.relative(editor.root, d.path), d.oldText, d.newText])).toEqual([
      ["a.py", A, A.replace("return 1", "return 2")],
      ["b.py", B, "B = 2\n"],
      ["c.py", null, C],
    ]);
    expect(editor.permissions[0]!.toolCall.locations?.map((l) => path.relative(editor.root, l.path))).toEqual(
      ["a.py", "b.py", "c.py"],
    );
    // The editor offers its buffers: every file is written there.
    expect(editor.writes.map((w) => [path.relative(editor.root, w.path), w.content]).sort()).toEqual([
      ["a.py", A.replace("return 1", "return 2")],
      ["b.py", "B = 2\n"],
      ["c.py", C],
    ]);
  });

  it("rejected, no file changes", async () => {
    const editor = await run("reject_once");
    expect(editor.permissions).toHaveLength(1);
    expect(editor.writes).toEqual([]);
    expect(disk(editor, "a.py")).toBe(A);
    expect(disk(editor, "b.py")).toBe(B);
    expect(existsSync(path.join(editor.root, "c.py"))).toBe(false);
  });

  it("a model without tools answering with an envelope: one request, titled with every file", async () => {
    fake = await startFakeOpenAi([{ text: `Here it is.\n\n${ENVELOPE}\n` }, { text: "Done." }]);
    const editor = await startEditor({
      files: { "a.py": A, "b.py": B },
      env: {
        LOCKSTEP_PROVIDER: "openai",
        LOCKSTEP_BASE_URL: fake.url,
        LOCKSTEP_MODEL: "fake-model",
        OPENAI_API_KEY: "test-key",
        LOCKSTEP_TOOLS: "false",
      },
      permission: () => "allow_once",
    });
    const sessionId = await editor.newSession();
    await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "change @a.py and @b.py" }],
    });
    expect(editor.permissions).toHaveLength(1);
    expect(
      diffsOfCall(editor, editor.permissions[0]!.toolCall.toolCallId).filter((c) => c.type === "diff"),
    ).toHaveLength(3);
    const started = await editor.waitForUpdate(
      (u) =>
        u.update.sessionUpdate === "tool_call" &&
        u.update.toolCallId === editor.permissions[0]!.toolCall.toolCallId,
    );
    expect(started.update).toMatchObject({ title: "apply_patch a.py, b.py, c.py" });
    expect(editor.writes.map((w) => path.relative(editor.root, w.path)).sort()).toEqual([
      "a.py",
      "b.py",
      "c.py",
    ]);
  });
});
