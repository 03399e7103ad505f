// run_command over ACP: a tool call of kind `execute`, the question as a permission request
// naming the command (run once / always allow its prefix / reject), "always" remembered by
// prefix for the session, and the output in the tool call's content.
import { methods } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { closeAll, contentText, startEditor } from "./scripted-editor.js";

afterEach(closeAll);

const run = (command: string) => ({ calls: [{ name: "run_command", args: { command } }] });

describe("lockstep acp runs commands with the client's permission", () => {
  it("asks with the command, remembers an always by prefix, and shows the output on an execute tool call", async () => {
    const editor = await startEditor({
      files: { "a.ts": "a = 1\n" },
      turns: [run("echo first"), run("echo first again"), run("echo second && ls"), { text: ["ok"] }],
      permission: (request) =>
        JSON.stringify(request.toolCall).includes("second") ? "reject_once" : "allow_always",
    });
    const sessionId = await editor.newSession();
    const answer = await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "run" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    expect(editor.permissions).toHaveLength(2);
    expect(editor.permissions[0]!.options.map((o) => o.name)).toEqual([
      "Run once",
      "Always allow `echo first` this session",
      "Reject",
    ]);
    expect(JSON.stringify(editor.permissions[0]!.toolCall.content)).toContain("echo first");
    // The question names its call as the call does: title and kind.
    expect(editor.permissions[0]!.toolCall).toMatchObject({
      title: "run_command echo first",
      kind: "execute",
    });
    await editor.waitForUpdate(
      (u) => u.update.sessionUpdate === "tool_call" && u.update.kind === "execute",
      5000,
    );
    const done = await editor.waitForUpdate(
      (u) =>
        u.update.sessionUpdate === "tool_call_update" &&
        u.update.status === "completed" &&
        contentText(u).includes("first again"),
      5000,
    );
    expect(contentText(done)).toContain("first again");
    await editor.waitForUpdate(
      (u) =>
        u.update.sessionUpdate === "tool_call_update" &&
        u.update.status === "failed" &&
        /rejected/i.test(contentText(u)),
      5000,
    );
  });
});
