// The ledger with an in-process editor: what a read returns after a delivery the
// editor has not reported, and when that delivered text stops being the truth.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Sandbox } from "../../server/src/workspace/sandbox.js";
import type { EditorLink, FileEdit } from "../../server/src/workspace/editor-link.js";
import { Workspace } from "../../server/src/workspace/workspace.js";

/** An editor with no open buffers that accepts every edit and never reports back (eglot in batch). */
function silentEditor(): EditorLink & { edits: FileEdit[] } {
  const edits: FileEdit[] = [];
  return {
    edits,
    document: () => undefined,
    applyEdit: async (edit) => (edits.push(edit), { applied: true }),
    canApplyEdit: true,
    createFiles: true,
  };
}

async function setup(options: { closedFileEdits?: "editor" | "disk" } = {}) {
  const root = mkdtempSync(path.join(tmpdir(), "lockstep-ws-"));
  writeFileSync(path.join(root, "a.txt"), "one\ntwo\n");
  const editor = silentEditor();
  let closed = options.closedFileEdits ?? "editor";
  const ws = new Workspace(await Sandbox.create([root]), {
    editor,
    get closedFileEdits() {
      return closed;
    },
  });
  const resolved = await ws.resolve("a.txt", "write");
  if (!resolved.ok) throw new Error(resolved.error.message);
  const read = async () => {
    const r = await ws.read(resolved.value);
    if (!r.ok) throw new Error(r.error.message);
    return r.value;
  };
  return { root, ws, editor, file: resolved.value, read, toDisk: () => (closed = "disk") };
}

const signal = new AbortController().signal;

describe("Workspace delivery to a closed file", () => {
  it("reads back the delivered text, version null, while the disk holds its base", async () => {
    const { ws, file, read, editor } = await setup();
    const before = await read();
    const delivered = await ws.deliver(file, before, "one\nTWO\n", signal);
    expect(delivered.ok && delivered.value.via).toBe("editor");
    expect(editor.edits).toHaveLength(1);
    expect(await read()).toMatchObject({ content: "one\nTWO\n", version: null, open: false });
  });

  it("lets a change made on disk afterwards win", async () => {
    const { ws, file, read, root } = await setup();
    await ws.deliver(file, await read(), "one\nTWO\n", signal);
    writeFileSync(path.join(root, "a.txt"), "zero\none\ntwo\n");
    expect((await read()).content).toBe("zero\none\ntwo\n");
  });

  it("forgets the delivered text once a disk write lands, so reads show what was written", async () => {
    const { ws, file, read, root, toDisk } = await setup();
    await ws.deliver(file, await read(), "one\nTWO\n", signal);
    toDisk();
    const current = await read();
    const written = await ws.deliver(file, current, current.content + "three\n", signal);
    expect(written.ok && written.value.via).toBe("disk");
    expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("one\nTWO\nthree\n");
    expect((await read()).content).toBe("one\nTWO\nthree\n");
  });
});
