// Globs expand below the root and nowhere else: patterns that could leave it are
// refused before any walk, a walk never follows a link, and no name outside the
// root is ever reported (not even in an error).
import { promises as fs, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { Sandbox } from "../../server/src/workspace/sandbox.js";
import { expandGlob } from "../../server/src/workspace/walk.js";

let root: string;
let outside: string;
let sandbox: Sandbox;
const signal = new AbortController().signal;

beforeAll(async () => {
  const base = realpathSync(await fs.mkdtemp(path.join(os.tmpdir(), "lockstep-walk-")));
  root = path.join(base, "root");
  outside = path.join(base, "secret-dir");
  await fs.mkdir(path.join(root, "src", "deep"), { recursive: true });
  await fs.mkdir(outside);
  await fs.writeFile(path.join(root, "src", "a.ts"), "a");
  await fs.writeFile(path.join(root, "src", "deep", "b.ts"), "b");
  await fs.writeFile(path.join(outside, "outside-name.ts"), "secret");
  await fs.symlink(outside, path.join(root, "escape"));
  await fs.symlink("/", path.join(root, "rootlink"));
  await fs.symlink(path.join(outside, "outside-name.ts"), path.join(root, "src", "link.ts"));
  sandbox = await Sandbox.create([root]);
});

async function expand(pattern: string) {
  return expandGlob(sandbox, pattern, { limit: 1000, signal });
}

describe("expandGlob", () => {
  it("expands patterns below the root, braces included", async () => {
    const r = await expand("src/**/*.{ts,js}");
    expect(r.ok && r.value.files).toEqual(["src/a.ts", "src/deep/b.ts"]);
  });

  it.each(["..{,}/**", "../**", "src/../../**", ".{.,}/**", "/etc/*", "file:///etc/*", "~/*"])(
    "refuses %s before walking, naming only the pattern",
    async (pattern) => {
      const r = await expand(pattern);
      expect(!r.ok && r.error.code).toBe("permission_denied");
      expect(!r.ok && r.error.message).not.toContain("secret");
    },
  );

  it.each(["escape/*", "rootlink/etc/*", "rootlink/**/*.nomatch"])(
    "refuses %s: its walk would start outside through a link",
    async (pattern) => {
      const r = await expand(pattern);
      expect(!r.ok && r.error.code).toBe("permission_denied");
    },
  );

  it("never follows a link while walking, and drops a file link that points outside", async () => {
    const r = await expand("**/*.ts");
    expect(r.ok && r.value.files).toEqual(["src/a.ts", "src/deep/b.ts"]);
  });

  it("says how many matched when a pattern matches more than the limit", async () => {
    const r = await expandGlob(sandbox, "src/**/*.ts", { limit: 1, signal });
    expect(r.ok && r.value).toMatchObject({ files: ["src/a.ts"], total: 2 });
  });

  it("property: no reported name is outside the root, for any pattern built of these pieces", async () => {
    const piece = fc.constantFrom(
      "*",
      "**",
      "src",
      "deep",
      "escape",
      "rootlink",
      "etc",
      "..",
      ".",
      "{,}",
      "{.,}",
      "{a,b}",
      "*.ts",
      "..{,}",
      "",
      "[",
      "(",
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 4 }), async (pieces) => {
        const r = await expand(pieces.join("/"));
        if (!r.ok) {
          expect(r.error.message).not.toContain(outside);
          expect(r.error.message).not.toContain("outside-name");
          return;
        }
        for (const file of r.value.files) {
          const real = await fs.realpath(path.join(root, file));
          expect(real.startsWith(root + path.sep)).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe("the walker beyond the first root", () => {
  it("expands a relative pattern in every root; names in other roots are absolute, so they resolve back", async () => {
    const base = realpathSync(await fs.mkdtemp(path.join(os.tmpdir(), "lockstep-roots-")));
    await fs.mkdir(path.join(base, "one", "src"), { recursive: true });
    await fs.mkdir(path.join(base, "two", "src"), { recursive: true });
    await fs.writeFile(path.join(base, "one", "src", "a.ts"), "a");
    await fs.writeFile(path.join(base, "two", "src", "b.ts"), "b");
    const two = await Sandbox.create([path.join(base, "one"), path.join(base, "two")]);
    const r = await expandGlob(two, "src/*.ts", { limit: 10, signal });
    expect(r.ok && r.value.files).toEqual(["src/a.ts", path.join(base, "two", "src", "b.ts")]);
    const absolute = await expandGlob(two, `${path.join(base, "two")}/**/*.ts`, { limit: 10, signal });
    expect(absolute.ok && absolute.value.files).toEqual([path.join(base, "two", "src", "b.ts")]);
    const resolved = await two.resolve(path.join(base, "two", "src", "b.ts"), "read");
    expect(resolved.ok && resolved.value.root).toBe(path.join(base, "two"));
  });
});

describe("compiled globs", () => {
  it.each<[glob: string, yes: string[], no: string[]]>([
    ["**/*.ts", ["a.ts", "x/y/a.ts"], ["a.tsx", "a.ts/b"]],
    ["src/**", ["src/a", "src/x/y"], ["src", "lib/a"]],
    ["*.{ts,tsx}", ["a.ts", "a.tsx"], ["x/a.ts", "a.js"]],
    ["a?c[0-9].[!j]s", ["abc1.ts"], ["abc1.js", "a/c1.ts"]],
    ["x/**/y/*.md", ["x/y/a.md", "x/1/2/y/a.md"], ["x/y/z/a.md"]],
    ["[unclosed", ["[unclosed"], ["u"]],
    ["{src/a,lib}/*.ts", ["src/a/x.ts", "lib/y.ts"], ["src/b/x.ts", "lib/z/y.ts"]],
    ["*.{t{s,sx},js}", ["a.ts", "a.tsx", "a.js"], ["a.t", "a.jsx"]],
    ["[^a-c]*.md", ["d.md", "zz.md"], ["a.md", "c1.md", "/x.md"]],
    ["***x", ["x", "a/bx"], ["xa"]],
    ["a*b*c", ["abc", "aXbYc", "abbc"], ["acb", "a/bc"]],
  ])("%s matches %j, not %j", async (glob, yes, no) => {
    const { compileGlob } = await import("../../server/src/workspace/walk/glob.js");
    const { prefix, match } = compileGlob(glob);
    const test = (name: string) =>
      prefix === "" ? match(name) : name.startsWith(`${prefix}/`) && match(name.slice(prefix.length + 1));
    for (const name of yes) expect({ name, match: test(name) }).toEqual({ name, match: true });
    for (const name of no) expect({ name, match: test(name) }).toEqual({ name, match: false });
  });
});

describe("every walk stays inside the root", () => {
  it("property: find_files and search_files report no name outside the root, with links to / and to a sibling", async () => {
    const { invokeTool } = await import("../../server/src/tools/registry.js");
    const { Workspace } = await import("../../server/src/workspace/workspace.js");
    const ctx = { workspace: new Workspace(sandbox), signal, approve: async () => "apply" as const };
    const piece = fc.constantFrom(
      "*",
      "**",
      "src",
      "escape",
      "rootlink",
      "etc",
      "..",
      "{,}",
      "..{,}",
      "*.nomatch",
      "*.ts",
      "[.]",
      "",
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(undefined, "escape", "rootlink", "src", "."),
        async (pieces, where) => {
          const pattern = pieces.join("/") || "*";
          const found = await invokeTool(
            "find_files",
            where === undefined ? { pattern } : { pattern, path: where },
            ctx,
          );
          const searched = await invokeTool(
            "search_files",
            where === undefined ? { pattern: "a|b|secret" } : { pattern: "a|b|secret", path: where },
            ctx,
          );
          for (const result of [found, searched]) {
            expect(JSON.stringify(result)).not.toContain("outside-name");
            expect(JSON.stringify(result)).not.toContain(outside);
            const names = result.ok
              ? ((result.data["files"] as string[] | undefined) ??
                (result.data["matches"] as { file_path: string }[]).map((m) => m.file_path))
              : [];
            for (const name of names)
              expect((await fs.realpath(path.join(root, name))).startsWith(root + path.sep)).toBe(true);
          }
        },
      ),
      { numRuns: 80 },
    );
  });
});

describe("glob compilation never throws", () => {
  it("property: any text compiles as a pattern and as an include filter", async () => {
    const { compileGlob, includeFilter } = await import("../../server/src/workspace/walk/glob.js");
    const text = fc.string({
      unit: fc.constantFrom(
        "*",
        "?",
        "[",
        "]",
        "{",
        "}",
        ",",
        "!",
        "^",
        "-",
        "a",
        "z",
        "/",
        ".",
        "\\",
        "(",
        ")",
        "+",
        "|",
        "$",
      ),
    });
    fc.assert(
      fc.property(text, (pattern) => {
        compileGlob(pattern).match("a/b.ts");
        includeFilter(pattern)("a/b.ts");
      }),
      { numRuns: 2000 },
    );
  });
});
