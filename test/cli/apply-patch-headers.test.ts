// `lockstep apply-patch FILE` with the headers models really write: FILE decides,
// and a header refuses the diff only when it names another file that is there.
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { HINT_HEADERS, UTIL, UTIL_FIXED, utilDiff } from "../support/header-cases.js";
import { lockstep, requireBuild, workspace } from "./cli-run.js";

requireBuild();

describe("lockstep apply-patch: header paths are hints", () => {
  it.each(HINT_HEADERS)(
    "applies a diff headed $name to the file given",
    async ({ target, oldHeader, newHeader }) => {
      const root = await workspace({ [target]: UTIL });
      const run = await lockstep(["apply-patch", target], {
        cwd: root,
        stdin: utilDiff(oldHeader, newHeader),
      });

      expect(run.envelope).toMatchObject({ ok: true, data: { applied: true } });
      expect(run.status).toBe(0);
      expect(await fs.readFile(path.join(root, target), "utf8")).toBe(UTIL_FIXED);
      // No file was made under a header's name.
      expect((await fs.readdir(root)).sort()).toEqual([target.split("/")[0]!]);
    },
  );

  it("applies when the header names the file given by another spelling (./)", async () => {
    const root = await workspace({ "src/util.py": UTIL });
    const run = await lockstep(["apply-patch", "src/util.py"], {
      cwd: root,
      stdin: utilDiff("./src/util.py", "./src/util.py"),
    });
    expect(run.envelope).toMatchObject({ ok: true });
    expect(await fs.readFile(path.join(root, "src/util.py"), "utf8")).toBe(UTIL_FIXED);
  });

  it("applies when the header names a directory, not a file", async () => {
    const root = await workspace({ "f.txt": UTIL, "lib/x.txt": "x\n" });
    const run = await lockstep(["apply-patch", "f.txt"], { cwd: root, stdin: utilDiff("a/lib", "b/lib") });
    expect(run.envelope).toMatchObject({ ok: true });
    expect(await fs.readFile(path.join(root, "f.txt"), "utf8")).toBe(UTIL_FIXED);
  });

  it.each([
    ["the new side", "a/f.txt", "b/other.py"],
    ["the old side", "a/other.py", "b/new-name.py"],
    ["both sides, in a folder", "a/lib/other.py", "b/lib/other.py"],
  ])(
    "refuses a diff whose header (%s) names another file that exists, naming it, and leaves both files",
    async (_side, oldHeader, newHeader) => {
      const other = newHeader.includes("lib/") ? "lib/other.py" : "other.py";
      const root = await workspace({ "f.txt": UTIL, [other]: UTIL });
      const run = await lockstep(["apply-patch", "f.txt"], {
        cwd: root,
        stdin: utilDiff(oldHeader, newHeader),
      });

      expect(run.status).toBe(1);
      expect(run.envelope).toMatchObject({ ok: false, error: { code: "invalid_diff" } });
      expect(run.envelope.error?.message).toContain(`the diff is for \`${other}\`, not \`f.txt\``);
      expect(run.envelope.error?.suggestions.join(" ")).toContain(`lockstep apply-patch "${other}"`);
      expect(await fs.readFile(path.join(root, "f.txt"), "utf8")).toBe(UTIL);
      expect(await fs.readFile(path.join(root, other), "utf8")).toBe(UTIL);
    },
  );
});
