// Reads see what the user sees: the open buffer (unsaved text, the editor's
// version), else the disk with version null.
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, launch, sha256, stateOf, type FileState } from "../support/lsp-client.js";

afterEach(cleanup);

const DISK = "export const answer = 41;\n";

describe.each(["helix", "neovim", "eglot"] as const)("read_file in %s", (style) => {
  it("returns the unsaved buffer and the editor's version, which moves when the user types", async () => {
    const client = await launch({ "src/a.ts": DISK }, { style });
    const unsaved = "export const answer = 42; // unsaved\n";
    await client.open("src/a.ts", unsaved);

    const first = await client.command("read_file", { file_path: "src/a.ts" });
    expect(first).toMatchObject({
      ok: true,
      data: { file_path: "src/a.ts", version: 1, content: unsaved, sha256: sha256(unsaved), open: true },
    });
    expect(first.data?.["uri"]).toBe(client.uri("src/a.ts"));

    await client.type("src/a.ts", "42", "43");
    const second = stateOf(await client.command("read_file", { file_path: "src/a.ts" }));
    const buffer = client.buffer("src/a.ts")!;
    expect(buffer.version).toBe(2);
    expect(second).toMatchObject({
      version: buffer.version,
      content: buffer.text,
      sha256: sha256(buffer.text),
    });
    expect(second.content).toContain("answer = 43");
  });

  it("counts positions in UTF-16 and keeps CRLF and lone CR line endings", async () => {
    const text = 'const smile = "😀";\r\nconst e = "é";\rnext line\r\n';
    const client = await launch({ "u.ts": text }, { style });
    await client.open("u.ts");
    await client.type("u.ts", "next", "the 🎉 next");
    await client.type("u.ts", "é", "è");
    const state = stateOf(await client.command("read_file", { file_path: "u.ts" }));
    expect(state.content).toBe('const smile = "😀";\r\nconst e = "è";\rthe 🎉 next line\r\n');
    expect(state.sha256).toBe(sha256(state.content));
    expect(state.version).toBe(3);
  });
});

describe("reading closed files", () => {
  it("reads a file that is not open from disk, with version null", async () => {
    const client = await launch({ "b.txt": "on disk\n" }, { style: "helix" });
    const read = await client.command("read_file", { file_path: "b.txt" });
    expect(read).toEqual({
      ok: true,
      data: {
        file_path: "b.txt",
        uri: client.uri("b.txt"),
        version: null,
        sha256: sha256("on disk\n"),
        content: "on disk\n",
        open: false,
      },
    });
  });

  it("read_many_files returns open buffers and closed files alike, each versioned and hashed", async () => {
    const client = await launch(
      { "a.ts": "a on disk\n", "b.ts": "b on disk\n", "lib/c.ts": "c on disk\n" },
      { style: "neovim" },
    );
    await client.open("a.ts", "a unsaved\n");
    const read = await client.command("read_many_files", {
      file_paths: ["a.ts", "lib/*.ts", "b.ts", "missing.ts"],
    });
    expect(read.ok).toBe(true);
    const files = read.data?.["files"] as FileState[];
    expect(
      files.map((f) => [f.file_path, f.content, f.version, f.open, f.sha256 === sha256(f.content)]),
    ).toEqual([
      ["a.ts", "a unsaved\n", 1, true, true],
      ["lib/c.ts", "c on disk\n", null, false, true],
      ["b.ts", "b on disk\n", null, false, true],
    ]);
    expect(read.data?.["errors"]).toEqual([
      expect.objectContaining({ file_path: "missing.ts", code: "not_found" }),
    ]);
  });

  it("sees a buffer's text again from disk once it is closed", async () => {
    const client = await launch({ "a.txt": "disk\n" }, { style: "eglot" });
    await client.open("a.txt", "unsaved\n");
    client.close("a.txt");
    expect(stateOf(await client.command("read_file", { file_path: "a.txt" }))).toMatchObject({
      content: "disk\n",
      version: null,
      open: false,
    });
  });
});
