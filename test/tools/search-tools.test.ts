// search_files and find_files through the registry, on real files: ignore rules,
// binary files, bad and catastrophic patterns, paths outside the root, huge lines.
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { searchTree } from "../../server/src/workspace/walk/search-tree.js";
import { compileSearch } from "../../server/src/workspace/walk/line-search.js";
import { scopeOf } from "../../server/src/workspace/walk.js";
import { lines, makeWorkspace } from "../support/workspace-fixture.js";

const TREE = {
  ".gitignore": lines("dist/", "*.log", "!keep.log"),
  "src/app.ts": lines("import { parseConfig } from './config.js';", "parseConfig('x');"),
  "src/config.ts": lines("export function parseConfig(text: string) {", "  return JSON.parse(text);", "}"),
  "src/nested/.gitignore": lines("generated.ts"),
  "src/nested/generated.ts": lines("export function parseConfig() {}"),
  "src/nested/.ignore": lines("!generated.ts", "local.ts"),
  "src/nested/local.ts": lines("parseConfig"),
  "dist/app.js": lines("parseConfig"),
  "debug.log": lines("parseConfig failed"),
  "keep.log": lines("parseConfig kept"),
  "node_modules/lib/index.js": lines("function parseConfig() {}"),
  ".git/config": lines("parseConfig"),
  "image.png": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, ...Buffer.from("parseConfig")]),
  "README.md": lines("# Demo", "Call ParseConfig."),
};

type Match = { file_path: string; line: number; text: string };
const matches = (data: Record<string, unknown> | undefined): Match[] => (data?.["matches"] ?? []) as Match[];
const files = (result: { data?: Record<string, unknown> }): string[] =>
  matches(result.data).map((m) => m.file_path);

describe("search_files", () => {
  it("finds lines by regular expression, 1-based, honouring nested .gitignore and .ignore, skipping binary files, node_modules and .git", async () => {
    const ws = await makeWorkspace(TREE);
    const result = await ws.call("search_files", { pattern: "function\\s+parseConfig" });
    expect(result).toMatchObject({ ok: true, data: { truncated: false } });
    // .ignore re-includes generated.ts (it overrides .gitignore in its directory).
    expect(matches(result.data)).toEqual([
      { file_path: "src/config.ts", line: 1, text: "export function parseConfig(text: string) {" },
      { file_path: "src/nested/generated.ts", line: 1, text: "export function parseConfig() {}" },
    ]);
    const all = await ws.call("search_files", { pattern: "parseconfig" });
    expect(new Set(files(all))).toEqual(
      new Set(["README.md", "keep.log", "src/app.ts", "src/config.ts", "src/nested/generated.ts"]),
    );
    // Three ignore files, README.md, keep.log, app.ts, config.ts, generated.ts, and the binary
    // image.png (looked at, no match reported in it).
    expect(all.data?.["files_searched"]).toBe(9);
  });

  it("is case-insensitive unless the pattern holds an upper-case letter or case_sensitive says so", async () => {
    const ws = await makeWorkspace(TREE);
    expect(files(await ws.call("search_files", { pattern: "ParseConfig" }))).toEqual(["README.md"]);
    expect(
      files(await ws.call("search_files", { pattern: "readme|parseconfig\\.", path: "README.md" })),
    ).toEqual(["README.md"]);
    expect(files(await ws.call("search_files", { pattern: "parseconfig", case_sensitive: true }))).toEqual(
      [],
    );
    expect(files(await ws.call("search_files", { pattern: "\\Sarse\\w+\\(", include: "*.md" }))).toEqual([]);
    expect(files(await ws.call("search_files", { pattern: "\\sParse\\w+" }))).toEqual(["README.md"]);
  });

  it("searches node_modules and .git only when the path names them; filters by include; narrows to a path", async () => {
    const ws = await makeWorkspace(TREE);
    expect(files(await ws.call("search_files", { pattern: "parseConfig", path: "node_modules" }))).toEqual([
      "node_modules/lib/index.js",
    ]);
    expect(files(await ws.call("search_files", { pattern: "parseConfig", path: ".git" }))).toEqual([
      ".git/config",
    ]);
    expect(files(await ws.call("search_files", { pattern: "parseConfig", include: "*.{ts,tsx}" }))).toEqual([
      "src/app.ts",
      "src/app.ts",
      "src/config.ts",
      "src/nested/generated.ts",
    ]);
    expect(files(await ws.call("search_files", { pattern: "parseConfig", path: "src/nested" }))).toEqual([
      "src/nested/generated.ts",
    ]);
    expect(files(await ws.call("search_files", { pattern: "parseConfig", path: "dist" }))).toEqual([
      "dist/app.js",
    ]);
  });

  it("stops at max_results (100 by default) and says truncated", async () => {
    const ws = await makeWorkspace({
      "many.txt": lines(...Array.from({ length: 150 }, (_, i) => `hit ${i}`)),
    });
    const byDefault = await ws.call("search_files", { pattern: "hit" });
    expect(matches(byDefault.data)).toHaveLength(100);
    expect(byDefault.data?.["truncated"]).toBe(true);
    const three = await ws.call("search_files", { pattern: "hit", max_results: 3 });
    expect(matches(three.data).map((m) => m.line)).toEqual([1, 2, 3]);
    const exact = await ws.call("search_files", { pattern: "hit", max_results: 150 });
    expect(exact.data?.["truncated"]).toBe(false);
  });

  it("cuts a huge line at 300 characters, around the match when it lies further in", async () => {
    const ws = await makeWorkspace({
      "min.js": "a".repeat(100_000) + "NEEDLE" + "b".repeat(100_000) + "\r\n",
    });
    const [match] = matches((await ws.call("search_files", { pattern: "NEEDLE" })).data);
    expect(match?.text).toHaveLength(300);
    expect(match?.text).toContain("NEEDLE");
    expect(match?.line).toBe(1);
  });

  it("skips a file over the 64 MB read limit without loading it", async () => {
    const ws = await makeWorkspace({ "small.txt": lines("needle") });
    await fs.writeFile(ws.abs("huge.txt"), "");
    await fs.truncate(ws.abs("huge.txt"), 65 * 1024 * 1024); // sparse: no disk used
    const result = await ws.call("search_files", { pattern: "needle|\\x00" });
    expect(result).toMatchObject({
      ok: true,
      data: { matches: [{ file_path: "small.txt" }], files_searched: 1 },
    });
  });

  it.each<[pattern: string, expected: RegExp]>([
    ["(unclosed", /Invalid regular expression "\(unclosed"/],
    ["(?i)foo", /Inline flags such as \(\?i\) are not JavaScript; use case_sensitive/],
    ["[z-a]", /Invalid regular expression/],
  ])("refuses the bad pattern %s with invalid_argument", async (pattern, expected) => {
    const ws = await makeWorkspace(TREE);
    const result = await ws.call("search_files", { pattern });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "invalid_argument", message: expect.stringMatching(expected) as string },
    });
  });

  it("stops a catastrophic pattern on the file it spins on, with a timeout that names it", async () => {
    const ws = await makeWorkspace({ "a.txt": lines("fine"), "b.txt": lines("a".repeat(40) + "!") });
    const compiled = compileSearch("^(a+)+$", undefined);
    const scope = await scopeOf(ws.ctx.workspace.sandbox, undefined);
    if (!compiled.ok || !scope.ok) throw new Error("setup");
    const result = await searchTree(ws.ctx.workspace, {
      pattern: compiled.value,
      scope: scope.value,
      maxResults: 10,
      signal: ws.ctx.signal,
      fileTimeLimitMs: 200,
    });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "timeout", message: expect.stringContaining("b.txt") as string },
    });
  });

  it("stops when cancelled", async () => {
    const controller = new AbortController();
    const ws = await makeWorkspace({ "a.txt": lines("a".repeat(40) + "!") }, { signal: controller.signal });
    const running = ws.call("search_files", { pattern: "^(a+)+$" });
    setTimeout(() => controller.abort(), 50);
    expect(await running).toMatchObject({ ok: false, error: { code: "cancelled" } });
  });

  it.each([["../"], ["/etc"], ["escape"]])(
    "refuses the path %s outside the root without searching it",
    async (where) => {
      const ws = await makeWorkspace(TREE);
      await fs.mkdir(path.join(ws.parent, "outside-dir"));
      await fs.writeFile(path.join(ws.parent, "outside-dir", "secret.ts"), "parseConfig\n");
      await fs.symlink(path.join(ws.parent, "outside-dir"), ws.abs("escape"));
      const result = await ws.call("search_files", { pattern: "parseConfig", path: where });
      expect(result).toMatchObject({ ok: false, error: { code: "permission_denied" } });
      expect(JSON.stringify(result)).not.toContain("secret");
    },
  );

  it("answers a missing path with not_found and the near names", async () => {
    const ws = await makeWorkspace(TREE);
    const result = await ws.call("search_files", { pattern: "x", path: "scr" });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "not_found", suggestions: expect.arrayContaining(["Did you mean src?"]) as string[] },
    });
  });
});

describe("find_files", () => {
  it.each<[pattern: string, path: string | undefined, expected: string[]]>([
    ["**/*.ts", undefined, ["src/app.ts", "src/config.ts", "src/nested/generated.ts"]],
    ["src/*.ts", undefined, ["src/app.ts", "src/config.ts"]],
    ["*.ts", "src", ["src/app.ts", "src/config.ts"]],
    ["*.{md,log}", undefined, ["README.md", "keep.log"]],
    ["node_modules/**/*.js", undefined, ["node_modules/lib/index.js"]],
    ["**/*.nomatch", undefined, []],
  ])("lists %s (path %s) with the same ignore rules", async (pattern, where, expected) => {
    const ws = await makeWorkspace(TREE);
    const result = await ws.call("find_files", where === undefined ? { pattern } : { pattern, path: where });
    expect(result).toEqual({ ok: true, data: { files: expected, truncated: false } });
  });

  it.each(["../**", "..{,}/**", "/etc/*", "escape/*"])(
    "refuses %s before walking, naming only the pattern",
    async (pattern) => {
      const ws = await makeWorkspace(TREE);
      await fs.mkdir(path.join(ws.parent, "outside-dir"));
      await fs.symlink(path.join(ws.parent, "outside-dir"), ws.abs("escape"));
      const result = await ws.call("find_files", { pattern });
      expect(result).toMatchObject({ ok: false, error: { code: "permission_denied" } });
      expect(JSON.stringify(result)).not.toContain("outside-dir");
    },
  );
});

describe("every root, not only the first", () => {
  it("searches and finds in each workspace folder; names in the second are absolute and read back", async () => {
    const { invokeTool } = await import("../../server/src/tools/registry.js");
    const { Sandbox } = await import("../../server/src/workspace/sandbox.js");
    const { Workspace } = await import("../../server/src/workspace/workspace.js");
    const { tempDir, writeTree } = await import("../support/workspace-fixture.js");
    const one = await fs.realpath(tempDir());
    const two = await fs.realpath(tempDir());
    await writeTree(one, { "a.ts": lines("const shared = 1;") });
    await writeTree(two, {
      "lib/b.ts": lines("const shared = 2;"),
      ".gitignore": lines("skip/"),
      "skip/c.ts": lines("shared"),
    });
    const ctx = {
      workspace: new Workspace(await Sandbox.create([one, two])),
      signal: new AbortController().signal,
      approve: async () => "apply" as const,
    };
    const search = await invokeTool("search_files", { pattern: "shared" }, ctx);
    expect(files(search)).toEqual(["a.ts", path.join(two, "lib", "b.ts")]);
    const found = await invokeTool("find_files", { pattern: "**/*.ts" }, ctx);
    expect(found.data?.["files"]).toEqual(["a.ts", path.join(two, "lib", "b.ts")]);
    const read = await invokeTool("read_file", { file_path: path.join(two, "lib", "b.ts") }, ctx);
    expect(read).toMatchObject({ ok: true, data: { content: "const shared = 2;\n" } });
  });
});

describe("globs that are not valid classes", () => {
  it.each(["[z-a].ts", "*.[b-a]"])(
    "take %s as text instead of failing, in find_files and in search_files' include",
    async (pattern) => {
      const ws = await makeWorkspace({ "a.ts": lines("x") });
      expect(await ws.call("find_files", { pattern })).toEqual({
        ok: true,
        data: { files: [], truncated: false },
      });
      expect(await ws.call("search_files", { pattern: "x", include: pattern })).toMatchObject({
        ok: true,
        data: { matches: [] },
      });
    },
  );
});
