// An edit's diff over ACP, as a client with a default reader meets it: sent once per state the
// client has not seen (the permission request refers to the update already sent, the outcome
// does not repeat it), a 40 KB file's change in lines a 64 KB reader takes (a diff of the
// changed lines with context), and two fs/read_text_file per edit: the text the change is built
// on, and the re-read just before the write that checks its sha256.
import path from "node:path";
import { methods, type SessionNotification } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { closeAll, startEditor } from "./scripted-editor.js";

afterEach(closeAll);

/** The Python SDK's default StreamReader limit: a longer line fails the read. */
const PYTHON_READER_LIMIT = 64 * 1024;

const edit = (file: string, from: string, to: string) => ({
  name: "edit",
  args: { file_path: file, old_string: from, new_string: to, base_content_sha256: `{{sha256:${file}}}` },
});

const diffsIn = (value: unknown): number =>
  (JSON.stringify(value ?? null).match(/"type":"diff"/g) ?? []).length;

function bigFile(): string {
  const lines: string[] = [];
  for (let i = 0; lines.join("\n").length < 40_000; i++)
    lines.push(`export const value${i} = ${i}; // line ${i}`);
  return lines.join("\n") + "\n";
}

describe("lockstep acp sends an edit's diff once, in lines a default reader takes", () => {
  it("one diff per edit in ask mode (the permission request refers to it), two reads, frames under 64 KB", async () => {
    const big = bigFile();
    const editor = await startEditor({
      files: { "big.ts": big, "a.ts": "a = 1\n" },
      turns: [
        { calls: [{ name: "read_many_files", args: { file_paths: ["big.ts", "a.ts"] } }] },
        { calls: [edit("big.ts", "export const value500 = 500;", "export const value500 = 5000;")] },
        { calls: [edit("a.ts", "a = 1", "a = 2")] },
        { text: ["ok"] },
      ],
      permission: () => "allow_once",
    });
    let readsBeforeEdits = -1;
    editor.onRead = () => {
      if (
        readsBeforeEdits < 0 &&
        editor.updates.some((u) => u.update.sessionUpdate === "tool_call" && u.update.kind === "edit")
      )
        readsBeforeEdits = editor.reads.length - 1;
    };
    const sessionId = await editor.newSession();
    const answer = await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "change both" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    expect(editor.writes.map((w) => path.basename(w.path))).toEqual(["big.ts", "a.ts"]);
    expect(editor.writes[0]!.content).toBe(big.replace("value500 = 500;", "value500 = 5000;"));

    // Each edit's diff goes out once: in the update before the question; not in the question, not in the outcome.
    const withDiffs = (u: SessionNotification) => diffsIn((u.update as { content?: unknown }).content) > 0;
    const diffUpdates = editor.updates.filter(withDiffs);
    expect(diffUpdates).toHaveLength(2);
    expect(editor.permissions.map((p) => diffsIn(p.toolCall.content))).toEqual([0, 0]);
    // The question still names its call, title and kind: the client shows the diff it already has.
    expect(editor.permissions[0]!.toolCall).toMatchObject({ kind: "edit", title: "edit big.ts" });
    expect(editor.permissions[0]!.toolCall.toolCallId).toBe(
      (diffUpdates[0]!.update as { toolCallId: string }).toolCallId,
    );

    // The 40 KB file's diff is the changed lines with context, and no line lockstep wrote reaches 64 KB.
    const bigDiff = JSON.stringify(diffUpdates[0]!.update);
    expect(bigDiff).toContain("value500 = 5000;");
    expect(bigDiff.length).toBeLessThan(4_000);
    expect(Math.max(...editor.lineLengths)).toBeLessThan(PYTHON_READER_LIMIT);

    // Reads: the text the change is built on, and the re-read before the write; per edit.
    const readsOf = (name: string) =>
      editor.reads.slice(readsBeforeEdits).filter((r) => path.basename(r) === name).length;
    for (const name of ["big.ts", "a.ts"]) expect(readsOf(name), name).toBeLessThanOrEqual(2);
  });

  it("a whole 40 KB file written in auto mode: named with its location instead of a diff, every frame under 64 KB", async () => {
    const big = bigFile();
    const editor = await startEditor({
      files: {},
      turns: [
        { calls: [{ name: "write_file", args: { file_path: "new.ts", content: big } }] },
        { text: ["written"] },
      ],
      args: ["--approval", "auto"],
    });
    const sessionId = await editor.newSession();
    const answer = await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "write it" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    expect(editor.writes.map((w) => [path.basename(w.path), w.content])).toEqual([["new.ts", big]]);
    // Its changed lines are the whole file: too large for a diff a default reader takes, so it is
    // named with its location, once; the outcome does not repeat it.
    expect(editor.updates.filter((u) => diffsIn((u.update as { content?: unknown }).content) > 0)).toEqual(
      [],
    );
    const named = editor.updates.filter((u) => /too large to show here/.test(JSON.stringify(u.update)));
    expect(named).toHaveLength(1);
    expect(named[0]!.update).toMatchObject({ locations: [{ path: path.join(editor.root, "new.ts") }] });
    expect(Math.max(...editor.lineLengths)).toBeLessThan(PYTHON_READER_LIMIT);
  });
  it("with nothing asked (approval auto) the write still reads the client's text first: typing since is not overwritten", async () => {
    const editor = await startEditor({
      files: { "a.ts": "a = 1\n" },
      args: ["--approval", "auto"],
      turns: [
        { calls: [{ name: "read_file", args: { file_path: "a.ts" } }] },
        { calls: [edit("a.ts", "a = 1", "a = 2")] },
        { text: ["ok"] },
      ],
    });
    const file = path.join(editor.root, "a.ts");
    // The user types just as lockstep reads the file for the write's check (its last read before the write).
    editor.onRead = () => {
      if (editor.updates.some((u) => u.update.sessionUpdate === "tool_call" && u.update.kind === "edit"))
        editor.buffers.set(file, "a = 1 // typed\n");
    };
    const sessionId = await editor.newSession();
    await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "change it" }],
    });
    expect(editor.writes).toEqual([]);
    expect(editor.buffers.get(file)).toBe("a = 1 // typed\n");
  });
});
