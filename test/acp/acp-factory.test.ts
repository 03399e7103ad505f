// lockstep driven by acp-factory, a second ACP client from npm that nobody here wrote: it
// holds the buffers (its onFileRead and onFileWrite), answers permissions through its callback,
// and streams the turn's updates. One full turn: the model reads a file whose buffer has
// unsaved text, changes it on that text, the user is asked (title and kind named), and the
// write lands in the buffer, not on disk.
//
// The updates are taken as acp-factory's client handler queues them (its Pushable), not from
// `session.prompt()`'s iterator: that iterator races the prompt's answer against a pending read
// of the queue, and when the answer wins, the update that read was waiting for is dropped (seen
// once in CI: the turn's last text, which lockstep had written before the answer).
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AgentFactory, type ExtendedSessionUpdate, Pushable } from "acp-factory";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BIN, edit } from "./scripted-editor.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const DISK = "export const retries = 3;\n";
const UNSAVED = "// typed, not saved\nexport const retries = 3;\n";

describe("lockstep acp under acp-factory", () => {
  it("a turn over an unsaved buffer: read, asked with title and kind, written to the buffer", async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-acpf-")));
    const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-acpf-home-")));
    dirs.push(root, home);
    const file = path.join(root, "a.ts");
    writeFileSync(file, DISK);
    const script = path.join(home, "script.json");
    writeFileSync(
      script,
      JSON.stringify({
        turns: [
          { text: ["Reading a.ts."], calls: [{ name: "read_file", args: { file_path: "a.ts" } }] },
          {
            calls: [edit("a.ts", "retries = 3", "retries = 5")],
          },
          { text: ["Set retries to 5."] },
        ],
      }),
    );
    const buffers = new Map([[file, UNSAVED]]);
    const asked: { title?: string | null; kind?: string | null }[] = [];
    AgentFactory.register("lockstep-under-test", {
      command: process.execPath,
      args: [BIN, "acp", "--replay", script],
      env: { HOME: home, XDG_CONFIG_HOME: home, XDG_STATE_HOME: home },
    });
    const agent = await AgentFactory.spawn("lockstep-under-test", {
      permissionMode: "callback",
      onPermissionRequest: async (request) => {
        asked.push({ title: request.toolCall.title, kind: request.toolCall.kind });
        return { outcome: { outcome: "selected", optionId: "allow_once" } };
      },
      onFileRead: async (p) => buffers.get(p) ?? readFileSync(p, "utf8"),
      onFileWrite: async (p, content) => void buffers.set(p, content),
    });
    try {
      const session = await agent.createSession(root);
      const updates: ExtendedSessionUpdate[] = [];
      const push = Pushable.prototype.push;
      vi.spyOn(Pushable.prototype, "push").mockImplementation(function (
        this: Pushable<ExtendedSessionUpdate>,
        update: ExtendedSessionUpdate,
      ) {
        updates.push(update);
        push.call(this, update);
      });
      for await (const update of session.prompt("set retries to 5")) void update;
      // An update read before the answer is queued within that read's microtasks: one turn of
      // the event loop lets the last of them land.
      await new Promise((resolve) => setImmediate(resolve));

      const text = updates
        .map((u) =>
          u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : "",
        )
        .join("");
      expect(text).toContain("Set retries to 5.");
      expect(
        updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => (u as { kind?: string }).kind),
      ).toEqual(["read", "edit"]);
      // The diff is over the unsaved text, shown once.
      const diffs = updates.flatMap((u) =>
        u.sessionUpdate === "tool_call_update" ? (u.content ?? []).filter((c) => c.type === "diff") : [],
      );
      expect(diffs).toEqual([
        expect.objectContaining({ path: file, oldText: UNSAVED, newText: UNSAVED.replace("3", "5") }),
      ]);
      expect(asked).toEqual([{ title: "edit a.ts", kind: "edit" }]);
      // The write went to the buffer; the disk keeps what the user saved.
      expect(buffers.get(file)).toBe(UNSAVED.replace("retries = 3", "retries = 5"));
      expect(readFileSync(file, "utf8")).toBe(DISK);
      expect(
        updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed"),
      ).toHaveLength(2);
    } finally {
      vi.restoreAllMocks();
      await agent.close();
    }
  });
});
