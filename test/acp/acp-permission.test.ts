// Permission over ACP: "allow always" asked once per tool and session, a
// rejection reaching the model as `rejected`, approval "auto" asking nothing,
// and a cancel that stops the turn within a second with nothing written.
import { readFileSync } from "node:fs";
import path from "node:path";
import { methods } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAi, type FakeOpenAi } from "../support/fake-openai.js";
import { sha256Of } from "../support/workspace-fixture.js";
import { closeAll, contentText, startEditor } from "./scripted-editor.js";

let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await closeAll();
  await fake?.close();
  fake = undefined;
});

const edit = (file: string, from: string, to: string) => ({
  name: "edit",
  args: { file_path: file, old_string: from, new_string: to, base_content_sha256: `{{sha256:${file}}}` },
});

describe("lockstep acp asks before each change", () => {
  it("asks once when the user allows the tool always for this session", async () => {
    const editor = await startEditor({
      files: { "a.ts": "a = 1\n", "b.ts": "b = 1\n" },
      turns: [
        { calls: [{ name: "read_many_files", args: { file_paths: ["a.ts", "b.ts"] } }] },
        { calls: [edit("a.ts", "a = 1", "a = 2"), edit("b.ts", "b = 1", "b = 2")] },
        { text: ["Both changed."] },
      ],
      permission: () => "allow_always",
    });
    const sessionId = await editor.newSession();
    const answer = await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "bump both" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    expect(editor.permissions).toHaveLength(1);
    expect(editor.writes.map((w) => [path.basename(w.path), w.content])).toEqual([
      ["a.ts", "a = 2\n"],
      ["b.ts", "b = 2\n"],
    ]);
  });

  it("hands a rejection to the model as `rejected`, and writes nothing", async () => {
    const text = "const answer = 41;\n";
    fake = await startFakeOpenAi([
      {
        calls: [
          {
            name: "edit",
            args: {
              file_path: "a.ts",
              old_string: "41",
              new_string: "42",
              base_content_sha256: sha256Of(text),
            },
          },
        ],
      },
      { text: "Understood, I leave it." },
    ]);
    const editor = await startEditor({
      files: { "a.ts": text },
      env: {
        LOCKSTEP_PROVIDER: "openai",
        LOCKSTEP_BASE_URL: fake.url,
        LOCKSTEP_MODEL: "fake-model",
        OPENAI_API_KEY: "test-key",
      },
      permission: () => "reject_once",
    });
    const sessionId = await editor.newSession();
    const answer = await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "make it 42" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    expect(editor.permissions).toHaveLength(1);
    expect(editor.writes).toEqual([]);
    expect(readFileSync(path.join(editor.root, "a.ts"), "utf8")).toBe(text);
    // The model's second request carries the tool's answer: rejected.
    const second = JSON.stringify(fake.requests[1]);
    expect(second).toContain('\\"code\\":\\"rejected\\"');
    const failed = await editor.waitForUpdate(
      (u) => u.update.sessionUpdate === "tool_call_update" && u.update.status === "failed",
    );
    expect(contentText(failed)).toContain("Rejected, not applied");
  });

  it("asks nothing with approval auto (a session config option), and still shows the diff", async () => {
    const editor = await startEditor({
      files: { "a.ts": "a = 1\n" },
      turns: [
        { calls: [{ name: "read_file", args: { file_path: "a.ts" } }] },
        { calls: [edit("a.ts", "a = 1", "a = 2")] },
        { text: ["ok"] },
      ],
    });
    const sessionId = await editor.newSession();
    const set = await editor.conn.agent.request(methods.agent.session.setConfigOption, {
      sessionId,
      configId: "approval",
      value: "auto",
    });
    expect(set.configOptions.find((o) => o.id === "approval")).toMatchObject({ currentValue: "auto" });
    await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "bump" }],
    });
    expect(editor.permissions).toEqual([]);
    expect(editor.writes.map((w) => w.content)).toEqual(["a = 2\n"]);
    await editor.waitForUpdate(
      (u) =>
        u.update.sessionUpdate === "tool_call_update" &&
        (u.update.content ?? []).some((c) => c.type === "diff" && c.newText === "a = 2\n"),
    );
  });

  it("takes approval as a session mode too (clients that show modes)", async () => {
    const editor = await startEditor({
      files: { "a.ts": "a = 1\n" },
      turns: [
        { calls: [{ name: "read_file", args: { file_path: "a.ts" } }] },
        { calls: [edit("a.ts", "a = 1", "a = 2")] },
        { text: ["ok"] },
      ],
    });
    const created = await editor.conn.agent.request(methods.agent.session.new, {
      cwd: editor.root,
      mcpServers: [],
    });
    expect(created.modes).toMatchObject({
      currentModeId: "ask",
      availableModes: [{ id: "ask" }, { id: "auto" }],
    });
    await editor.conn.agent.request(methods.agent.session.setMode, {
      sessionId: created.sessionId,
      modeId: "auto",
    });
    await expect(
      editor.conn.agent.request(methods.agent.session.setMode, {
        sessionId: created.sessionId,
        modeId: "yolo",
      }),
    ).rejects.toThrow(/modes are ask and auto/);
    await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId: created.sessionId,
      prompt: [{ type: "text", text: "bump" }],
    });
    expect(editor.permissions).toEqual([]);
    expect(editor.writes.map((w) => w.content)).toEqual(["a = 2\n"]);
  });

  it("stops the turn within a second of session/cancel, with the change waiting for permission never written", async () => {
    let cancelled: () => void = () => undefined;
    const withdrawn = new Promise<string>((resolve) => (cancelled = () => resolve("cancelled")));
    const editor = await startEditor({
      files: { "a.ts": "a = 1\n" },
      turns: [
        { calls: [{ name: "read_file", args: { file_path: "a.ts" } }] },
        { calls: [edit("a.ts", "a = 1", "a = 2")] },
        { text: ["never said"] },
      ],
      // The user has not decided yet; when the client cancels it answers the pending request `cancelled`, as ACP says.
      permission: () => withdrawn,
    });
    const sessionId = await editor.newSession();
    const prompt = editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "bump" }],
    });
    await editor.waitForUpdate(
      (u) =>
        u.update.sessionUpdate === "tool_call_update" &&
        (u.update.content ?? []).some((c) => c.type === "diff"),
    );
    while (editor.permissions.length === 0) await new Promise((r) => setImmediate(r));
    const at = performance.now();
    await editor.conn.agent.notify(methods.agent.session.cancel, { sessionId });
    cancelled();
    const answer = await prompt;
    expect(performance.now() - at).toBeLessThan(1000);
    expect(answer.stopReason).toBe("cancelled");
    expect(editor.writes).toEqual([]);
    expect(readFileSync(path.join(editor.root, "a.ts"), "utf8")).toBe("a = 1\n");
  });

  it("stops a model that is still streaming within a second", async () => {
    const editor = await startEditor({
      turns: [{ text: ["one ", "two ", "three ", "four"] }],
      env: { LOCKSTEP_REPLAY_DELAY_MS: "1500" },
    });
    const sessionId = await editor.newSession();
    const prompt = editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "count" }],
    });
    await editor.waitForUpdate((u) => u.update.sessionUpdate === "agent_message_chunk");
    const at = performance.now();
    await editor.conn.agent.notify(methods.agent.session.cancel, { sessionId });
    const answer = await prompt;
    expect(performance.now() - at).toBeLessThan(1000);
    expect(answer.stopReason).toBe("cancelled");
  });
});
