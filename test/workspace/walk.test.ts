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

  it.each(["..{,}/**", "../**", "src/../../**", ".{.,}/**", "/etc/*", "file:///etc/*", "~/*"])("refuses %s before walking, naming only the pattern", async (pattern) => {
    const r = await expand(pattern);
    expect(!r.ok && r.error.code).toBe("permission_denied");
    expect(!r.ok && r.error.message).not.toContain("secret");
  });

  it.each(["escape/*", "rootlink/etc/*", "rootlink/**/*.nomatch"])("refuses %s: its walk would start outside through a link", async (pattern) => {
    const r = await expand(pattern);
    expect(!r.ok && r.error.code).toBe("permission_denied");
  });

  it("never follows a link while walking, and drops a file link that points outside", async () => {
    const r = await expand("**/*.ts");
    expect(r.ok && r.value.files).toEqual(["src/a.ts", "src/deep/b.ts"]);
  });

  it("says how many matched when a pattern matches more than the limit", async () => {
    const r = await expandGlob(sandbox, "src/**/*.ts", { limit: 1, signal });
    expect(r.ok && r.value).toEqual({ files: ["src/a.ts"], total: 2 });
  });

  it("property: no reported name is outside the root, for any pattern built of these pieces", async () => {
    const piece = fc.constantFrom("*", "**", "src", "deep", "escape", "rootlink", "etc", "..", ".", "{,}", "{.,}", "{a,b}", "*.ts", "..{,}", "", "[", "(");
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
