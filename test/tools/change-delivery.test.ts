// A change across open files delivered to an editor that refuses one file's edit:
// the files already changed are put back with versioned edits, and the answer says so.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { invokeTool } from "../../server/src/tools/registry.js";
import { Sandbox } from "../../server/src/workspace/sandbox.js";
import type { EditorLink, FileEdit } from "../../server/src/workspace/editor-link.js";
import { Workspace } from "../../server/src/workspace/workspace.js";
import { makeWorkspace } from "../support/workspace-fixture.js";

/** An editor holding open buffers that applies versioned edits, and refuses every edit to `refuse`. */
function editor(
  root: string,
  buffers: Record<string, string>,
  refuse: string,
): { link: EditorLink; docs: Map<string, { version: number; text: string }>; edits: FileEdit[] } {
  const docs = new Map(
    Object.entries(buffers).map(([rel, text]) => [
      pathToFileURL(path.join(root, rel)).href,
      { version: 1, text },
    ]),
  );
  const edits: FileEdit[] = [];
  const link: EditorLink = {
    canApplyEdit: true,
    createFiles: true,
    document: (uri) => docs.get(uri),
    applyEdit: async (edit) => {
      edits.push(edit);
      const doc = docs.get(edit.uri);
      if (!doc || edit.uri.endsWith(refuse) || (edit.version !== null && edit.version !== doc.version))
        return { applied: false, reason: "refused" };
      let text = doc.text;
      for (const e of [...edit.edits].sort((a, b) => b.start - a.start))
        text = text.slice(0, e.start) + e.newText + text.slice(e.end);
      docs.set(edit.uri, { version: doc.version + 1, text });
      return { applied: true };
    },
  };
  return { link, docs, edits };
}

describe("apply_patch delivered to an editor", () => {
  it("puts back the files already changed when the editor refuses a later one", async () => {
    const ws = await makeWorkspace({ "a.txt": "a\n", "b.txt": "b\n" });
    const fake = editor(ws.root, { "a.txt": "a\n", "b.txt": "b\n" }, "b.txt");
    const ctx = {
      ...ws.ctx,
      workspace: new Workspace(await Sandbox.create([ws.root]), { editor: fake.link }),
    };
    const out = await invokeTool(
      "apply_patch",
      {
        input:
          "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B\n*** End Patch\n",
      },
      ctx,
    );
    expect(out.ok).toBe(false);
    expect(!out.ok && out.error.message).toContain("The 1 file already changed was put back.");
    expect(fake.docs.get(pathToFileURL(ws.abs("a.txt")).href)!.text).toBe("a\n");
    // Each edit names the buffer version it was computed on: the change, the refused one, the undo.
    expect(fake.edits.map((e) => [path.basename(new URL(e.uri).pathname), e.version])).toEqual([
      ["a.txt", 1],
      ["b.txt", 1],
      ["a.txt", 2],
    ]);
  });
});
