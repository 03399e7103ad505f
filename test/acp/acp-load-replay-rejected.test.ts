// session/load replays a change that never landed as it was first sent: the update that showed
// its diff (a large one cut as live) and the final update whose words replaced it. The store
// keeps the diff shown before the decision, since the file and the journal never held it.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { methods, type SessionNotification } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { cleanUpAfterEach, edit, tempDir } from "./replay-rig.js";
import { messageText, startEditor } from "./scripted-editor.js";

cleanUpAfterEach();

/** Each tool call's updates after its start, as the client keeps them: what each shows, and where. */
function calls(updates: SessionNotification[]): unknown[][] {
  const ids: string[] = [];
  const out: unknown[][] = [];
  for (const { update } of updates) {
    if (update.sessionUpdate === "tool_call") {
      ids.push(update.toolCallId);
      out.push([]);
    } else if (update.sessionUpdate === "tool_call_update")
      out[ids.indexOf(update.toolCallId)]!.push({
        status: update.status,
        title: update.title,
        content: update.content,
        locations: update.locations,
      });
  }
  return out;
}

/** Every file under a folder, recursively (the store's session files). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

describe("session/load replays a change that did not land", () => {
  it("its diff, then the words that replaced it, as live (a large one cut as live)", async () => {
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
      // a.ts allowed, b.ts rejected, big.ts left undecided (the client answers the request with an error).
      permission: (request) =>
        request.toolCall.title === "edit a.ts"
          ? "allow_once"
          : request.toolCall.title === "edit b.ts"
            ? "reject_once"
            : "error",
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

    // Live showed each diff before asking; only a.ts landed.
    expect(JSON.stringify(live[2])).toContain("m = 2");
    expect(JSON.stringify(live[3])).toContain("v700 = 7000;");
    expect(readFileSync(path.join(root, "b.ts"), "utf8")).toBe("export const m = 1;\n");

    const second = await startEditor({ root, stateDir, turns: [] });
    await second.conn.agent.request(methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] });
    await second.waitForUpdate((u) => messageText([u]).includes("Done."));
    const replayed = calls(second.updates);

    expect(replayed).toHaveLength(4);
    // The diff update and the final one, for the landed change and each that did not land: exactly as live.
    expect(replayed[1]).toEqual(live[1]);
    expect(replayed[2]).toEqual(live[2]);
    expect(replayed[3]).toEqual(live[3]);
    expect(JSON.stringify(replayed[2]!.at(-1))).toContain("Rejected, not applied");
    expect(JSON.stringify(replayed[3]).length).toBeLessThan(4_000);

    // The store holds the diff as it was sized, not the large file twice.
    const stored = filesUnder(stateDir).filter((f) => f.endsWith(".jsonl"));
    expect(stored.length).toBeGreaterThan(0);
    const shownLines = stored
      .flatMap((f) => readFileSync(f, "utf8").split("\n"))
      .filter((l) => l.startsWith('{"t":"shown"'));
    expect(shownLines).toHaveLength(3);
    for (const line of shownLines) expect(line.length).toBeLessThan(4_000);
  });
});
