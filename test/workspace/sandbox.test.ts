import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Sandbox } from "../../server/src/workspace/sandbox.js";
import type { Access } from "../../server/src/workspace/sandbox.js";
import { closestNames, editDistance } from "../../server/src/workspace/suggest.js";

// The fixture, as the file system will hold it. `base` contains the workspace
// `root` and, beside it, directories the sandbox must never let a path reach.
const FILES: Record<string, string> = {
  "root/src/index.ts": "export {};\n",
  "root/src/util/helpers.ts": "export const x = 1;\n",
  "root/src/with space.ts": "// spaced\n",
  "root/README.md": "# readme\n",
  "root/nested/.keep": "",
  "root-other/secret.txt": "sibling secret\n",
  "outside/secret.txt": "outside secret\n",
};
const LINKS: Record<string, string> = {
  "root/link-in.ts": "src/index.ts", // inside → inside: allowed
  "root/dir-in": "src", // directory inside → inside: allowed
  "root/link-out.txt": "../outside/secret.txt", // file leaving the root
  "root/dir-out": "../outside", // parent directory leaving the root
  "root/nested/deep-out": "../../outside", // the same, one level down
  "root/dangling-out": "../outside/not-yet", // dangling, would create outside
  "root/dangling-in": "src/created-later.ts", // dangling, would create inside
  "root/loop-a": "loop-b",
  "root/loop-b": "loop-a",
  "root-link": "root", // the workspace root reached through a link
};

let base: string;
let root: string;
let sandbox: Sandbox;

beforeAll(async () => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-sandbox-")));
  root = path.join(base, "root");
  for (const [file, content] of Object.entries(FILES)) {
    await fs.mkdir(path.dirname(path.join(base, file)), { recursive: true });
    await fs.writeFile(path.join(base, file), content);
  }
  for (const [link, target] of Object.entries(LINKS)) await fs.symlink(target, path.join(base, link));
  sandbox = await Sandbox.create([root]);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

/** Fixture-relative paths written as `<base>/…` and `<root>/…` so the tables stay readable. */
function expand(input: string): string {
  return input
    .replace("<base>", base)
    .replace("<root>", root)
    .replace(/^<uri:(.*)>$/, (_, p: string) => pathToFileURL(expand(p)).href);
}

describe("Sandbox.resolve inside the workspace", () => {
  it.each<[input: string, access: Access, rel: string, exists: boolean]>([
    ["src/index.ts", "read", "src/index.ts", true],
    ["./src/../src/index.ts", "read", "src/index.ts", true],
    ["src/sub/../../README.md", "read", "README.md", true],
    ["src\\util\\helpers.ts", "read", "src/util/helpers.ts", true],
    ["<root>/src/index.ts", "read", "src/index.ts", true],
    ["<uri:<root>/src/index.ts>", "read", "src/index.ts", true],
    ["<uri:<root>/src/with space.ts>", "read", "src/with space.ts", true],
    ["../root/README.md", "read", "README.md", true],
    [".", "list", ".", true],
    ["src/", "list", "src", true],
    ["link-in.ts", "read", "src/index.ts", true],
    ["dir-in/util/helpers.ts", "write", "src/util/helpers.ts", true],
    ["src/index.ts", "write", "src/index.ts", true],
    ["src/new.ts", "write", "src/new.ts", false],
    ["src/new.ts", "read", "src/new.ts", false],
    ["a/b/c/new.ts", "write", "a/b/c/new.ts", false],
    ["dir-in/new/new.ts", "write", "src/new/new.ts", false],
    ["dangling-in", "write", "src/created-later.ts", false],
  ])("%s (%s) → %s, exists: %s", async (input, access, rel, exists) => {
    const result = await sandbox.resolve(expand(input), access);
    expect(result).toEqual({
      ok: true,
      value: { abs: path.join(root, rel), rel, uri: pathToFileURL(path.join(root, rel)).href, root, exists },
    });
  });
});

describe("Sandbox.resolve refuses whatever leaves the workspace", () => {
  it.each<[input: string, access: Access]>([
    ["../outside/secret.txt", "read"],
    ["..\\outside\\secret.txt", "read"],
    ["src/../../outside/secret.txt", "read"],
    ["..", "list"],
    ["/etc/hosts", "read"],
    ["<base>/outside/secret.txt", "read"],
    ["<base>/root-other/secret.txt", "read"], // a sibling whose name starts with the root's
    ["../root-other/new.txt", "write"],
    ["<uri:<base>/outside/secret.txt>", "read"],
    ["link-out.txt", "read"],
    ["link-out.txt", "write"],
    ["dir-out", "list"],
    ["dir-out/secret.txt", "read"],
    ["dir-out/new.ts", "write"],
    ["nested/deep-out/secret.txt", "read"],
    ["nested/deep-out/new/deeper.ts", "write"],
    ["dangling-out", "write"],
    ["dangling-out/new.ts", "write"],
  ])("%s (%s)", async (input, access) => {
    const result = await sandbox.resolve(expand(input), access);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("permission_denied");
    expect(result.error.message).toMatch(/outside the workspace/);
    expect(result.error.message).toContain(`relative to the workspace root ${root}`);
    expect(result.error.message).not.toContain("outside secret");
  });

  it("does not create anything while refusing", async () => {
    await sandbox.resolve("dangling-out/new.ts", "write");
    await expect(fs.readdir(path.join(base, "outside"))).resolves.toEqual(["secret.txt"]);
  });
});

describe("Sandbox.resolve rejects bad input with a reason", () => {
  it.each<[input: string, access: Access, message: RegExp]>([
    ["", "read", /path is empty/],
    ["  \t ", "read", /path is empty/],
    ["src/a\0.ts", "read", /NUL byte/],
    ["src", "read", /"src" is a directory; use list_files/],
    [".", "read", /"\." is a directory/],
    ["src", "write", /"src" is a directory, so it cannot be written/],
    [
      "src/index.ts",
      "list",
      /"src\/index.ts" is a file, not a directory; use read_file .* list_files on "src"/,
    ],
    ["src/index.ts/child.ts", "write", /"src\/index.ts" is a file, not a directory/],
    ["loop-a", "read", /loop/],
    ["loop-a/x.ts", "write", /loop/],
    ["https://example.com/a.ts", "read", /https: URI; only file:\/\/ URIs/],
    ["file://otherhost/etc/hosts", "read", /not a usable file:\/\/ URI/],
  ])("%j (%s)", async (input, access, message) => {
    const result = await sandbox.resolve(input, access);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("invalid_argument");
    expect(result.error.message).toMatch(message);
  });
});

// Root ignores permission bits, so this only runs as a normal user.
it.skipIf(process.getuid?.() === 0 || process.platform === "win32")(
  "reports a directory it may not search as permission_denied, not as outside",
  async () => {
    await fs.mkdir(path.join(root, "private"));
    await fs.chmod(path.join(root, "private"), 0o000);
    try {
      const result = await sandbox.resolve("private/x.ts", "read");
      expect(result).toMatchObject({
        ok: false,
        error: { code: "permission_denied", message: /does not allow/ },
      });
    } finally {
      await fs.chmod(path.join(root, "private"), 0o755);
      await fs.rmdir(path.join(root, "private"));
    }
  },
);

describe("a root given through a symbolic link", () => {
  it("is stored as its real path and accepts paths under either name", async () => {
    const linked = await Sandbox.create([path.join(base, "root-link")]);
    expect(linked.roots).toEqual([root]);
    for (const input of [
      "src/index.ts",
      path.join(base, "root-link/src/index.ts"),
      path.join(root, "src/index.ts"),
    ]) {
      const result = await linked.resolve(input, "read");
      expect(result.ok && result.value).toMatchObject({
        abs: path.join(root, "src/index.ts"),
        rel: "src/index.ts",
      });
    }
    expect(linked.relativize(pathToFileURL(path.join(base, "root-link/src/index.ts")).href)).toBe(
      "src/index.ts",
    );
  });

  it("throws for a root that does not exist, a configuration error", async () => {
    await expect(Sandbox.create([path.join(base, "no-such-root")])).rejects.toThrow(/ENOENT/);
    await expect(Sandbox.create([path.join(root, "README.md")])).rejects.toThrow(/not a directory/);
  });
});

describe("several roots", () => {
  it("resolves relative paths against the first, absolute ones against any", async () => {
    const two = await Sandbox.create([root, path.join(base, "root-other")]);
    const relative = await two.resolve("README.md", "read");
    const absolute = await two.resolve(path.join(base, "root-other/secret.txt"), "read");
    expect(relative.ok && relative.value.root).toBe(root);
    expect(absolute.ok && absolute.value).toMatchObject({
      root: path.join(base, "root-other"),
      rel: "secret.txt",
    });
    expect((await two.resolve("../outside/secret.txt", "read")).ok).toBe(false);
  });
});

describe("Sandbox.relativize", () => {
  it.each<[input: string, expected: string | undefined]>([
    ["<root>/src/index.ts", "src/index.ts"],
    ["<uri:<root>/src/with space.ts>", "src/with space.ts"],
    ["<root>", "."],
    ["<root>/missing/file.ts", "missing/file.ts"],
    ["<base>/root-other/secret.txt", undefined],
    ["<base>/outside/secret.txt", undefined],
    ["src/index.ts", undefined],
    ["untitled:Untitled-1", undefined],
  ])("%s → %s", (input, expected) => {
    expect(sandbox.relativize(expand(input))).toBe(expected);
  });
});

describe("Sandbox.suggest", () => {
  it.each<[input: string, expected: string[]]>([
    ["src/indx.ts", ["src/index.ts"]],
    ["src/INDEX.ts", ["src/index.ts"]],
    ["srx/index.ts", ["src/index.ts"]],
    ["srx/nothing-like-it.ts", ["src"]],
    ["READM.md", ["README.md"]],
    ["src/util/helper.ts", ["src/util/helpers.ts"]],
    ["src/zzzzzzzz.qq", []],
    ["../outside/secre.txt", []],
    ["dir-out/secre.txt", []],
    ["src/index.ts", []],
    ["", []],
  ])("%s → %j", async (input, expected) => {
    expect(await sandbox.suggest(input)).toEqual(expected);
  });
});

describe("closestNames", () => {
  it.each<[target: string, candidates: string[], expected: string[]]>([
    [
      "index.ts",
      ["Index.ts", "my-index.ts", "index.tsx", "indx.ts"],
      ["Index.ts", "index.tsx", "my-index.ts"],
    ],
    ["indx.ts", ["index.ts", "main.ts", "util.ts"], ["index.ts"]],
    ["read", ["README.md", "thread.ts", "lead", "lead.ts", "x"], ["README.md", "thread.ts", "lead"]],
    ["util", ["until", "util-old", "utils"], ["utils", "util-old", "until"]],
    ["abc", ["xyz", "defgh"], []],
    ["a", ["a1", "a2", "a3", "a4"], ["a1", "a2", "a3"]],
    ["", ["a"], []],
    ["x.ts", [], []],
  ])("%s in %j → %j", (target, candidates, expected) => {
    expect(closestNames(target, candidates)).toEqual(expected);
  });

  it("honours max", () => {
    expect(closestNames("a", ["a1", "a2", "a3"], 1)).toEqual(["a1"]);
  });
});

describe("editDistance", () => {
  it.each<[a: string, b: string, cap: number | undefined, expected: number]>([
    ["kitten", "sitting", undefined, 3],
    ["", "abc", undefined, 3],
    ["same", "same", undefined, 0],
    ["abcdef", "zzzzzz", 2, 3],
    ["a", "abcdef", 2, 3],
  ])("%s ~ %s (cap %s) = %i", (a, b, cap, expected) => {
    expect(editDistance(a, b, cap)).toBe(expected);
  });
});
