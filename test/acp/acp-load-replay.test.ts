// session/load replays a session's tool calls as they were first sent: the diff of each change
// that landed (a large one cut as live), each call's final status, title and words. A change
// that did not land (rejected) is replayed with its diff, then its outcome (acp-load-replay-rejected).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { methods, type SessionNotification } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { cleanUpAfterEach, edit, tempDir } from "./replay-rig.js";
import { messageText, startEditor } from "./scripted-editor.js";

cleanUpAfterEach();

/** Each tool call's updates as the client keeps them: the call's order, and what it shows. */
function calls(updates: SessionNotification[]): unknown[][] {
  const ids: string[] = [];
  const out: unknown[][] = [];
  for (const { update } of updates) {
    if (update.sessionUpdate !== "tool_call" && update.sessionUpdate !== "tool_call_update") continue;
    if (update.sessionUpdate === "tool_call") ids.push(update.toolCallId);
    const at = ids.indexOf(update.toolCallId);
    (out[at] ??= []).push({
      status: update.status,
      title: update.title,
      content: update.content,
    });
  }
  return out;
}

describe("session/load replays edits as first sent", () => {
  it("the same diffs, statuses, titles and outcomes as the live turn", async () => {
    const root = tempDir("lockstep-acp-project-");
    const stateDir = tempDir("lockstep-acp-state-");
    const big = Array.from({ length: 1500 }, (_, i) => `export const v${i} = ${i};`).join("\n") + "\n";
    writeFileSync(path.join(root, "a.ts"), "export const n = 1;\n");
    writeFileSync(path.join(root, "b.ts"), "export const m = 1;\n");
    writeFileSync(path.join(root, "big.ts"), big);
    const first = await startEditor({
      root,
      stateDir,
      turns: [
        { calls: [{ name: "read_many_files", args: { file_paths: ["a.ts", "b.ts", "big.ts"] } }] },
        { calls: [edit("a.ts", "n = 1", "n = 2")] },
        { calls: [edit("b.ts", "m = 1", "m = 2")] },
        { calls: [edit("big.ts", "v700 = 700;", "v700 = 7000;")] },
        { text: ["Done."] },
      ],
      permission: (request) => (request.toolCall.title === "edit b.ts" ? "reject_once" : "allow_once"),
    });
    const sessionId = await first.newSession();
    await first.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "change them" }],
    });
    await first.waitForUpdate((u) => messageText([u]).includes("Done."));
    const live = calls(first.updates);
    const killed = new Promise((resolve) => first.child.once("exit", resolve));
    first.child.kill("SIGKILL");
    await killed;

    const second = await startEditor({ root, stateDir, turns: [] });
    await second.conn.agent.request(methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] });
    await second.waitForUpdate((u) => messageText([u]).includes("Done."));
    const replayed = calls(second.updates);

    expect(replayed).toHaveLength(4);
    // The read, the landed edits (a.ts whole, big.ts cut to its changed lines): exactly as live.
    expect(replayed[0]!.slice(1)).toEqual(live[0]!.slice(1));
    expect(replayed[1]!.slice(1)).toEqual(live[1]!.slice(1));
    expect(replayed[3]!.slice(1)).toEqual(live[3]!.slice(1));
    expect(JSON.stringify(replayed[3])).toContain("v700 = 7000;");
    expect(JSON.stringify(replayed[3]).length).toBeLessThan(4_000);
    // The rejected edit: its diff, then its outcome in its place, as live.
    expect(replayed[2]!.slice(1)).toEqual(live[2]!.slice(1));
    expect(JSON.stringify(replayed[2]!.at(-1))).toContain("Rejected, not applied");
  });
});
