// Where reads and writes go for each kind of ACP client: one without fs
// capabilities (the disk, with its locks), one that reads but cannot write (disk
// writes over disk text only: a buffer's unsaved text never reaches the disk).
import { readFileSync } from "node:fs";
import path from "node:path";
import { methods } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { closeAll, contentText, startEditor } from "./scripted-editor.js";

afterEach(closeAll);

const edit = (file: string, from: string, to: string) => ({
  name: "edit",
  args: { file_path: file, old_string: from, new_string: to, base_content_sha256: `{{sha256:${file}}}` },
});
const run = (file: string) => [
  { calls: [{ name: "read_file", args: { file_path: file } }] },
  { calls: [edit(file, "x = 1", "x = 2")] },
  { text: ["ok"] },
];

describe("lockstep acp and the client's file capabilities", () => {
  it("uses the disk when the client offers no fs methods", async () => {
    const editor = await startEditor({
      fs: { read: false, write: false },
      files: { "a.ts": "x = 1\n" },
      turns: run("a.ts"),
    });
    const sessionId = await editor.newSession();
    await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "bump" }],
    });
    expect(editor.reads).toEqual([]);
    expect(editor.writes).toEqual([]);
    expect(readFileSync(path.join(editor.root, "a.ts"), "utf8")).toBe("x = 2\n");
  });

  it("with a read-only client, writes the disk when the buffer is the disk's text", async () => {
    const editor = await startEditor({
      fs: { read: true, write: false },
      files: { "a.ts": "x = 1\n" },
      turns: run("a.ts"),
    });
    const sessionId = await editor.newSession();
    await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "bump" }],
    });
    expect(editor.reads.length).toBeGreaterThan(0);
    expect(editor.writes).toEqual([]);
    expect(readFileSync(path.join(editor.root, "a.ts"), "utf8")).toBe("x = 2\n");
  });

  it("with a read-only client, never writes a buffer's unsaved text to disk", async () => {
    const editor = await startEditor({
      fs: { read: true, write: false },
      files: { "a.ts": "x = 1\n" },
      turns: run("a.ts"),
    });
    const file = path.join(editor.root, "a.ts");
    editor.buffers.set(file, "// unsaved\nx = 1\n");
    const sessionId = await editor.newSession();
    await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "bump" }],
    });
    expect(readFileSync(file, "utf8")).toBe("x = 1\n");
    const failed = await editor.waitForUpdate(
      (u) => u.update.sessionUpdate === "tool_call_update" && u.update.status === "failed",
    );
    expect(contentText(failed)).toMatch(/unsaved changes.*save the file/);
  });
});
