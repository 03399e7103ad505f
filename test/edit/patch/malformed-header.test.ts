// A `@@` line the reader cannot take as a header refuses the diff: read as
// anything else, its hunk's lines were left out and the other hunks applied.
import { describe, expect, it } from "vitest";
import { applyModelPatch } from "../../../server/src/edit/patch/patch.js";

const FILE = "a\nb\nc\nd\ne\nf\ng\nh\n";

describe("a malformed hunk header", () => {
  it.each(["@@ --1,2 +-1,2 @@", "@@ -1,2 +1,2", "@@@ -1,2 -1,2 +1,2 @@@"])("%s refuses the diff instead of dropping its hunk", (header) => {
    const out = applyModelPatch(FILE, `--- a/x\n+++ b/x\n${header}\n a\n-b\n+B\n@@ -7,2 +7,2 @@\n g\n-h\n+H\n`, { filePath: "x" });
    expect(out.ok).toBe(false);
    expect(!out.ok && out.error.message).toContain("is not a hunk header");
  });

  it("still reads a header with a section name after it, and a bare one", () => {
    expect(applyModelPatch(FILE, "@@ -1,2 +1,2 @@ def f():\n a\n-b\n+B\n@@\n g\n-h\n+H\n").ok).toBe(true);
  });
});
