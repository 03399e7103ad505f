// A `@@` line whose numbers cannot be read opens a bare hunk, placed by its content like
// `@@ @@`: read as anything else, its hunk's lines were left out and the other hunks applied.
import { describe, expect, it } from "vitest";
import { applyModelPatch } from "../../../server/src/edit/patch/patch.js";

const FILE = "a\nb\nc\nd\ne\nf\ng\nh\n";
const BOTH = "a\nB\nc\nd\ne\nf\ng\nH\n";

describe("a malformed hunk header", () => {
  it.each(["@@ --1,2 +-1,2 @@", "@@ -1,2 +1,2", "@@@ -1,2 -1,2 +1,2 @@@"])(
    "%s opens a bare hunk: both hunks land, none is dropped",
    (header) => {
      const out = applyModelPatch(
        FILE,
        `--- a/x\n+++ b/x\n${header}\n a\n-b\n+B\n@@ -7,2 +7,2 @@\n g\n-h\n+H\n`,
        { filePath: "x" },
      );
      expect(out).toMatchObject({ ok: true, value: { content: BOTH } });
    },
  );

  it("still refuses when the bare hunk's content fits nowhere, and applies nothing", () => {
    const out = applyModelPatch(
      FILE,
      `--- a/x\n+++ b/x\n@@ --1,2 +-1,2 @@\n zz\n-b\n+B\n@@ -7,2 +7,2 @@\n g\n-h\n+H\n`,
      { filePath: "x" },
    );
    expect(out.ok).toBe(false);
  });

  it("still reads a header with a section name after it, and a bare one", () => {
    expect(applyModelPatch(FILE, "@@ -1,2 +1,2 @@ def f():\n a\n-b\n+B\n@@\n g\n-h\n+H\n").ok).toBe(true);
  });
});
