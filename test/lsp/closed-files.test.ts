// Changes to files that are not open: a reviewable WorkspaceEdit with version
// null by default; an atomic disk write when configured or when the client
// cannot apply edits. New files: CreateFile where the client can, else disk.
import { promises as fs } from "node:fs";
import { createPatch } from "diff";
import { afterEach, describe, expect, it } from "vitest";
import type { CreateFile, TextDocumentEdit } from "vscode-languageserver-protocol";
import { cleanup, launch, sha256, stateOf, type TestClient } from "../support/lsp-client.js";

afterEach(cleanup);

const FILE = "lib/util.py";
const BEFORE = [
  "import os",
  "",
  "def root():",
  "    return os.getcwd()",
  "",
  "def name():",
  "    return 'util'",
  "",
].join("\n");
const AFTER = BEFORE.replace("return 'util'", "return 'utility'");

function patch(
  client: TestClient,
  before = BEFORE,
  after = AFTER,
): Promise<ReturnType<TestClient["command"]> extends Promise<infer E> ? E : never> {
  return client.command("safe_patch", {
    file_path: FILE,
    unified_diff: createPatch(FILE, before, after),
    base_content_sha256: sha256(before),
  });
}

describe.each(["helix", "neovim", "eglot"] as const)("a file that is not open, in %s", (style) => {
  it("goes to the editor as a WorkspaceEdit with version null; the disk stays as it was", async () => {
    const client = await launch({ [FILE]: BEFORE }, { style });
    const result = await patch(client);

    expect(result).toMatchObject({
      ok: true,
      data: { applied: true, latest_file_state: { content: AFTER, version: null } },
    });
    expect(client.applyEditRequests).toHaveLength(1);
    const [change] = client.applyEditRequests[0]!.params.edit.documentChanges ?? [];
    expect((change as TextDocumentEdit).textDocument).toEqual({ uri: client.uri(FILE), version: null });
    // The editor loaded the file into a buffer it did not show, and changed it there; nobody saved it.
    expect(client.buffer(FILE)).toMatchObject({ text: AFTER, hidden: true, attached: style !== "neovim" });
    expect(await fs.readFile(client.path(FILE), "utf8")).toBe(BEFORE);
    // The next read is the text the editor holds, not the disk's.
    expect(stateOf(await client.command("read_file", { file_path: FILE }))).toMatchObject({
      content: AFTER,
      sha256: sha256(AFTER),
    });
  });
});

describe("closed files go to disk", () => {
  it("with closedFileEdits: disk, written atomically (a new inode, the mode kept, no temporary left)", async () => {
    const client = await launch(
      { [FILE]: BEFORE },
      { style: "helix", initializationOptions: { closedFileEdits: "disk" } },
    );
    await fs.chmod(client.path(FILE), 0o640);
    const inode = (await fs.stat(client.path(FILE))).ino;

    const result = await patch(client);
    expect(result).toMatchObject({
      ok: true,
      data: { applied: true, latest_file_state: { content: AFTER, version: null } },
    });
    expect(client.applyEditRequests).toHaveLength(0);
    expect(await fs.readFile(client.path(FILE), "utf8")).toBe(AFTER);
    const stat = await fs.stat(client.path(FILE));
    expect(stat.ino).not.toBe(inode);
    expect(stat.mode & 0o777).toBe(0o640);
    expect(await fs.readdir(client.path("lib"))).toEqual(["util.py"]);
  });

  it("when the client cannot apply edits", async () => {
    const client = await launch({ [FILE]: BEFORE }, { style: "no-apply-edit" });
    const result = await patch(client);
    expect(result).toMatchObject({ ok: true, data: { applied: true } });
    expect(client.requests.filter((r) => r.method === "workspace/applyEdit")).toHaveLength(0);
    expect(await fs.readFile(client.path(FILE), "utf8")).toBe(AFTER);
  });

  it("but an open buffer still gets a WorkspaceEdit with closedFileEdits: disk", async () => {
    const client = await launch(
      { [FILE]: BEFORE },
      { style: "helix", initializationOptions: { closedFileEdits: "disk" } },
    );
    await client.open(FILE);
    expect((await patch(client)).ok).toBe(true);
    expect(client.applyEditRequests).toHaveLength(1);
    expect(client.buffer(FILE)!.text).toBe(AFTER);
    expect(await fs.readFile(client.path(FILE), "utf8")).toBe(BEFORE);
  });
});

describe("a new file from write_file", () => {
  const NEW = "pkg/new_module.py";
  const CONTENT = "def hello():\n    return 'hello'\n";

  it("helix: CreateFile, then the text inserted into the new buffer", async () => {
    const client = await launch({}, { style: "helix" });
    const result = await client.command("write_file", { file_path: NEW, content: CONTENT });
    expect(result).toMatchObject({
      ok: true,
      data: { applied: true, latest_file_state: { content: CONTENT, sha256: sha256(CONTENT) } },
    });

    const changes = client.applyEditRequests[0]!.params.edit.documentChanges ?? [];
    expect(changes.map((c) => ("kind" in c ? c.kind : "edit"))).toEqual(["create", "edit"]);
    expect((changes[0] as CreateFile).uri).toBe(client.uri(NEW));
    expect((changes[1] as TextDocumentEdit).textDocument.version).toBeNull();
    expect(client.buffer(NEW)!.text).toBe(CONTENT);
    // Helix creates the file empty; the text waits in the unsaved buffer.
    expect(await fs.readFile(client.path(NEW), "utf8")).toBe("");
    expect(stateOf(await client.command("read_file", { file_path: NEW }))).toMatchObject({
      content: CONTENT,
    });
  });

  it("eglot (no resource operations): written to disk", async () => {
    const client = await launch({}, { style: "eglot" });
    const result = await client.command("write_file", { file_path: NEW, content: CONTENT });
    expect(result).toMatchObject({ ok: true, data: { applied: true } });
    expect(client.applyEditRequests).toHaveLength(0);
    expect(await fs.readFile(client.path(NEW), "utf8")).toBe(CONTENT);
  });
});
