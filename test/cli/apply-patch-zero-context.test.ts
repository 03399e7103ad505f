// `lockstep apply-patch` with `diff -U0` diffs: an insertion without context lands
// at its header's line only when git's index line proves the numbers. Without it the
// diff is refused and the file left, whether or not --base-sha256 names the file's text.
import { promises as fs } from "node:fs";
import path from "node:path";
import { createPatch } from "diff";
import { describe, expect, it } from "vitest";
import { gitBlobHash } from "../../server/src/edit/patch/numbered.js";
import { sha256Of } from "../support/workspace-fixture.js";
import { lockstep, requireBuild, workspace } from "./cli-run.js";

requireBuild();

const PRE = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
const POST = PRE.replace("line 10\n", "line 10\nNEW A\nNEW B\n").replace("line 20\n", "changed 20\n");

function u0(index: boolean): string {
  const body = createPatch("f.txt", PRE, POST, "", "", { context: 0 }).split("\n").slice(2).join("\n");
  const head = index
    ? `diff --git a/f.txt b/f.txt\nindex ${gitBlobHash(PRE).slice(0, 7)}..${gitBlobHash(POST).slice(0, 7)} 100644\n`
    : "";
  return head + body.replace("--- f.txt\n+++ f.txt", "--- a/f.txt\n+++ b/f.txt");
}

describe("lockstep apply-patch with a zero-context insertion", () => {
  it("applies git's -U0 diff, its index line proving the numbers", async () => {
    const root = await workspace({ "f.txt": PRE });
    const run = await lockstep(["apply-patch", "f.txt"], { cwd: root, stdin: u0(true) });
    expect(run.envelope).toMatchObject({ ok: true, data: { applied: true } });
    expect(await fs.readFile(path.join(root, "f.txt"), "utf8")).toBe(POST);
  });

  it.each([
    ["without --base-sha256", []],
    ["with --base-sha256 naming the file's text", ["--base-sha256", sha256Of(PRE)]],
  ])(
    "refuses a -U0 diff without an index line %s, says what would settle it, and leaves the file",
    async (_, extra) => {
      const root = await workspace({ "f.txt": PRE });
      const run = await lockstep(["apply-patch", "f.txt", ...extra], { cwd: root, stdin: u0(false) });
      expect(run.status).toBe(1);
      expect(run.envelope).toMatchObject({
        ok: false,
        error: {
          code: "invalid_diff",
          message: expect.stringMatching(
            /only added lines and no context.*no git `index OLD\.\.NEW` line/,
          ) as string,
        },
      });
      expect(run.envelope.error?.suggestions.join(" ")).toMatch(
        /Add 3 unchanged lines of context.*`index OLD\.\.NEW`/,
      );
      expect(await fs.readFile(path.join(root, "f.txt"), "utf8")).toBe(PRE);
    },
  );

  it("refuses git's diff when the file is not the blob its index line names", async () => {
    const moved = "line 0\n" + PRE;
    const root = await workspace({ "f.txt": moved });
    const run = await lockstep(["apply-patch", "f.txt", "--base-sha256", sha256Of(moved)], {
      cwd: root,
      stdin: u0(true),
    });
    expect(run.envelope).toMatchObject({
      ok: false,
      error: {
        code: "invalid_diff",
        message: expect.stringMatching(/the diff was made on another text/) as string,
      },
    });
    expect(await fs.readFile(path.join(root, "f.txt"), "utf8")).toBe(moved);
  });
});
