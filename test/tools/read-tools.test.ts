import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { lines, makeWorkspace, sha256Of } from "../support/workspace-fixture.js";

const TREE = {
  "README.md": lines("# demo"),
  "src/app.ts": lines("import { greet } from './lib/greet.js';", "console.log(greet('world'));"),
  "src/config.ts": lines("export const port = 8080;"),
  "src/lib/greet.ts": lines("export const greet = (name: string) => `Hello, ${name}!`;"),
  "node_modules/left-pad/index.ts": lines("export default function leftPad() {}"),
  ".git/HEAD": lines("ref: refs/heads/main"),
};

type FileStateData = { file_path: string; version: number | null; sha256: string; content: string };

function files(data: Record<string, unknown> | undefined): FileStateData[] {
  return (data?.["files"] ?? []) as FileStateData[];
}

describe("read_file", () => {
  it.each<[name: string, content: string | Buffer]>([
    ["plain text", lines("alpha", "beta")],
    ["CRLF line endings", "alpha\r\nbeta\r\n"],
    ["no final newline", "alpha\nbeta"],
    ["an empty file", ""],
    ["multi-byte characters", lines("naïve → 日本語 🚀")],
    ["a byte order mark", "\uFEFFwith bom\n"],
  ])(
    "returns {file_path, version: null, sha256, content} for %s, hashed as the bytes are",
    async (_name, content) => {
      const ws = await makeWorkspace({ "notes/file.txt": content });
      const result = await ws.call("read_file", { file_path: "notes/file.txt" });

      const bytes = Buffer.from(content);
      expect(result).toEqual({
        ok: true,
        data: {
          file_path: "notes/file.txt",
          uri: pathToFileURL(ws.abs("notes/file.txt")).href,
          version: null,
          sha256: sha256Of(bytes),
          content: bytes.toString("utf8"),
          open: false,
        },
      });
    },
  );

  it.each<[asked: string, suggested: string]>([
    ["src/ap.ts", "src/app.ts"],
    ["src/App.ts", "src/app.ts"],
    ["srx/config.ts", "src/config.ts"],
    ["src/lib/gret.ts", "src/lib/greet.ts"],
  ])("answers the missing %s with not_found and `Did you mean %s`", async (asked, suggested) => {
    const ws = await makeWorkspace(TREE);
    const result = await ws.call("read_file", { file_path: asked });

    expect(result).toMatchObject({
      ok: false,
      error: { code: "not_found", message: expect.stringContaining("Did you mean") as string },
    });
    expect(result.ok || result.error.suggestions).toContain(`Did you mean ${suggested}?`);
  });

  it("answers a missing file with nothing like it with not_found and a next step", async () => {
    const ws = await makeWorkspace(TREE);
    const result = await ws.call("read_file", { file_path: "docs/zzzz.md" });
    expect(result).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(result.ok || result.error.suggestions.length).toBeGreaterThan(0);
  });

  it.each<[name: string, path: string, code: string]>([
    ["a directory", "src", "invalid_argument"],
    ["a path outside the root", "../elsewhere.txt", "permission_denied"],
    ["a binary file", "img/pixel.gif", "binary_file"],
    ["an empty path", "  ", "invalid_argument"],
  ])("refuses %s", async (_name, path, code) => {
    const ws = await makeWorkspace({
      ...TREE,
      "img/pixel.gif": Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00", "latin1"),
    });
    await ws.outside("elsewhere.txt", "outside\n");
    const result = await ws.call("read_file", { file_path: path });
    expect(result).toMatchObject({ ok: false, error: { code } });
  });
});

describe("read_many_files", () => {
  it.each<[patterns: string[], expected: string[]]>([
    [["src/*.ts"], ["src/app.ts", "src/config.ts"]],
    [["src/**/*.ts"], ["src/app.ts", "src/config.ts", "src/lib/greet.ts"]],
    [["**/*.ts"], ["src/app.ts", "src/config.ts", "src/lib/greet.ts"]],
    [["node_modules/**/*.ts"], ["node_modules/left-pad/index.ts"]],
    [["node_modules/left-pad/index.ts"], ["node_modules/left-pad/index.ts"]],
    [
      ["README.md", "src/*.ts"],
      ["README.md", "src/app.ts", "src/config.ts"],
    ],
    [
      ["src/app.ts", "src/*.ts"],
      ["src/app.ts", "src/config.ts"],
    ],
    [["src/{app,config}.ts"], ["src/app.ts", "src/config.ts"]],
  ])("reads %j as %j, each file versioned and hashed", async (patterns, expected) => {
    const ws = await makeWorkspace(TREE);
    const result = await ws.call("read_many_files", { file_paths: patterns });

    expect(result).toMatchObject({ ok: true, data: { errors: [] } });
    expect(files(result.data).map((f) => f.file_path)).toEqual(expected);
    for (const f of files(result.data)) {
      const onDisk = await ws.text(f.file_path);
      expect(f).toMatchObject({ version: null, content: onDisk, sha256: sha256Of(onDisk) });
    }
  });

  it("reports a missing path in errors while the other files are read", async () => {
    const ws = await makeWorkspace(TREE);
    const result = await ws.call("read_many_files", {
      file_paths: ["src/app.ts", "src/missing.ts", "README.md"],
    });

    expect(result.ok).toBe(true);
    expect(files(result.data).map((f) => f.file_path)).toEqual(["src/app.ts", "README.md"]);
    expect(result.data?.["errors"]).toEqual([
      {
        file_path: "src/missing.ts",
        code: "not_found",
        message: expect.stringMatching(/File not found: src\/missing\.ts/) as string,
      },
    ]);
  });

  it.each<[name: string, path: string, code: string]>([
    ["a pattern that matches nothing", "docs/**/*.md", "not_found"],
    ["a path outside the root", "../elsewhere.txt", "permission_denied"],
    ["a binary file", "img/pixel.gif", "binary_file"],
  ])("reports %s in errors and still reads the rest", async (_name, path, code) => {
    const ws = await makeWorkspace({ ...TREE, "img/pixel.gif": Buffer.from([0x47, 0x49, 0x46, 0x00]) });
    const result = await ws.call("read_many_files", { file_paths: [path, "src/config.ts"] });

    expect(files(result.data).map((f) => f.file_path)).toEqual(["src/config.ts"]);
    expect(result.data?.["errors"]).toEqual([expect.objectContaining({ file_path: path, code })]);
  });

  it.each<[name: string, pattern: (parent: string) => string]>([
    ["a relative pattern climbing out", () => "../*.txt"],
    ["an absolute pattern outside", (parent) => `${parent}/*.txt`],
    ["a pattern climbing out after a globstar", () => "**/../../*.txt"],
  ])("refuses %s without revealing what is outside the root", async (_name, pattern) => {
    const ws = await makeWorkspace(TREE);
    await ws.outside("payroll-2024.txt", "salary\n");
    const glob = pattern(ws.parent);
    const result = await ws.call("read_many_files", { file_paths: [glob] });

    expect(files(result.data)).toEqual([]);
    expect(JSON.stringify(result)).not.toContain("payroll");
    expect(result.data?.["errors"]).toEqual([
      expect.objectContaining({ file_path: glob, code: "permission_denied" }),
    ]);
  });

  it("refuses an empty list", async () => {
    const ws = await makeWorkspace(TREE);
    expect(await ws.call("read_many_files", { file_paths: [] })).toMatchObject({
      ok: false,
      error: { code: "invalid_argument" },
    });
  });
});

describe("list_files", () => {
  it.each<[path: string, entries: { name: string; type: string }[]]>([
    [
      ".",
      [
        { name: ".git", type: "directory" },
        { name: "node_modules", type: "directory" },
        { name: "src", type: "directory" },
        { name: "README.md", type: "file" },
      ],
    ],
    [
      "src",
      [
        { name: "lib", type: "directory" },
        { name: "app.ts", type: "file" },
        { name: "config.ts", type: "file" },
      ],
    ],
    ["src/lib/", [{ name: "greet.ts", type: "file" }]],
  ])("lists %s, directories first", async (path, entries) => {
    const ws = await makeWorkspace(TREE);
    expect(await ws.call("list_files", { path })).toMatchObject({ ok: true, data: { entries } });
  });

  it.each<[name: string, path: string, code: string, suggestion?: string]>([
    ["a missing directory", "srv", "not_found", "Did you mean src?"],
    ["a file", "README.md", "invalid_argument"],
    ["a directory outside the root", "..", "permission_denied"],
  ])("refuses %s", async (_name, path, code, suggestion) => {
    const ws = await makeWorkspace(TREE);
    const result = await ws.call("list_files", { path });
    expect(result).toMatchObject({ ok: false, error: { code } });
    if (suggestion) expect(result.ok || result.error.suggestions).toContain(suggestion);
  });
});

describe("the session records what the model has read", () => {
  it("adds each file read by read_file and read_many_files, and nothing that failed or was only listed", async () => {
    const ws = await makeWorkspace(TREE, { conversation: [] });
    await ws.call("read_file", { file_path: "README.md" });
    await ws.call("read_file", { file_path: "src/nope.ts" });
    await ws.call("read_many_files", { file_paths: ["src/lib/*.ts", "src/gone.ts"] });
    await ws.call("list_files", { path: "src" });
    await ws.call("read_file", { file_path: `${ws.root}/src/config.ts` });

    expect([...(ws.ctx.conversation?.filesInContext ?? [])].sort()).toEqual([
      "README.md",
      "src/config.ts",
      "src/lib/greet.ts",
    ]);
  });
});

describe("read_file with offset and limit", () => {
  const numbered = (n: number, eol = "\n") =>
    Array.from({ length: n }, (_, i) => `line ${i + 1}${eol}`).join("");

  it("returns the lines asked for, with start_line, end_line, total_lines, truncated and the whole file's sha256", async () => {
    const ws = await makeWorkspace({ "big.txt": numbered(10, "\r\n") });
    const result = await ws.call("read_file", { file_path: "big.txt", offset: 4, limit: 3 });
    expect(result).toMatchObject({
      ok: true,
      data: {
        file_path: "big.txt",
        content: "line 4\r\nline 5\r\nline 6\r\n",
        start_line: 4,
        end_line: 6,
        total_lines: 10,
        truncated: true,
        sha256: sha256Of(numbered(10, "\r\n")),
      },
    });
    expect(result.data?.["note"]).toMatch(/offset 7 and limit 3/);
  });

  it("reads to the end from an offset, and gives the whole state (no range fields) when the range is the whole file", async () => {
    const ws = await makeWorkspace({ "f.txt": "a\nb\nc" });
    expect((await ws.call("read_file", { file_path: "f.txt", offset: 2 })).data).toMatchObject({
      content: "b\nc",
      start_line: 2,
      end_line: 3,
      total_lines: 3,
    });
    const whole = await ws.call("read_file", { file_path: "f.txt", offset: 1, limit: 50 });
    expect(whole.data).not.toHaveProperty("truncated");
    expect(whole.data?.["content"]).toBe("a\nb\nc");
  });

  it("gives a file over 2,000 lines as its first 2,000, with a note on how to read on", async () => {
    const ws = await makeWorkspace({ "long.txt": numbered(2500) });
    const result = await ws.call("read_file", { file_path: "long.txt" });
    expect(result.data).toMatchObject({
      start_line: 1,
      end_line: 2000,
      total_lines: 2500,
      truncated: true,
      sha256: sha256Of(numbered(2500)),
    });
    expect(String(result.data?.["content"]).endsWith("line 2000\n")).toBe(true);
    expect(result.data?.["note"]).toMatch(/offset 2001/);
  });

  it("refuses an offset past the end, and a zero or negative offset or limit, naming the field", async () => {
    const ws = await makeWorkspace({ "f.txt": "a\nb\n" });
    expect(await ws.call("read_file", { file_path: "f.txt", offset: 5 })).toMatchObject({
      ok: false,
      error: { code: "invalid_argument", message: expect.stringContaining("has 2 lines") as string },
    });
    expect(await ws.call("read_file", { file_path: "f.txt", offset: 0 })).toMatchObject({
      ok: false,
      error: { code: "invalid_argument", message: expect.stringContaining("`offset`") as string },
    });
    expect(await ws.call("read_file", { file_path: "f.txt", limit: -1 })).toMatchObject({
      ok: false,
      error: { code: "invalid_argument", message: expect.stringContaining("`limit`") as string },
    });
  });

  it("a safe_patch built on a partial read applies: hunks are placed by content, the lock is the whole file's sha256", async () => {
    const ws = await makeWorkspace({ "long.txt": numbered(3000) });
    const part = await ws.call("read_file", { file_path: "long.txt", offset: 2500, limit: 5 });
    const diff = "@@ -2501,3 +2501,3 @@\n line 2501\n-line 2502\n+line 2502 changed\n line 2503\n";
    const patched = await ws.call("safe_patch", {
      file_path: "long.txt",
      unified_diff: diff,
      base_content_sha256: part.data?.["sha256"],
    });
    expect(patched).toMatchObject({ ok: true });
    expect(await ws.text("long.txt")).toContain("line 2502 changed\nline 2503\n");
  });
});

describe("read_many_files over many files", () => {
  it("returns them in the order asked, each once, with concurrency inside", async () => {
    const tree = Object.fromEntries(
      Array.from({ length: 100 }, (_, i) => [`f/${String(i).padStart(3, "0")}.txt`, `file ${i}\n`]),
    );
    const ws = await makeWorkspace(tree);
    const asked = [...Object.keys(tree)].reverse();
    const result = await ws.call("read_many_files", { file_paths: [...asked, asked[0]!] });
    expect(files(result.data).map((f) => f.file_path)).toEqual(asked);
    expect(result.data?.["errors"]).toEqual([]);
  });
});

describe("read_many_files with a glob over the file limit", () => {
  it("says so in one error with the count, and reads the first 1,000", async () => {
    const tree = Object.fromEntries(
      Array.from({ length: 1005 }, (_, i) => [`many/f${String(i).padStart(4, "0")}.txt`, "x\n"]),
    );
    const ws = await makeWorkspace(tree);
    const result = await ws.call("read_many_files", { file_paths: ["many/*.txt"] });
    expect(files(result.data)).toHaveLength(1000);
    expect(result.data?.["errors"]).toEqual([
      {
        file_path: "many/*.txt",
        code: "invalid_argument",
        message: expect.stringContaining("matches 1005 files, over the limit of 1000") as string,
      },
    ]);
  });
});
