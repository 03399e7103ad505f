import { describe, expect, it } from "vitest";
import { parseChange } from "../../../server/src/edit/changeset/parse-change.js";
import { parseEnvelope } from "../../../server/src/edit/changeset/envelope-parse.js";
import { parseMultiFileDiff } from "../../../server/src/edit/changeset/multi-diff.js";

const gitDiff = [
  "diff --git a/src/app.py b/src/app.py",
  "index 3b18e51..a8c3f2d 100644",
  "--- a/src/app.py",
  "+++ b/src/app.py",
  "@@ -1,3 +1,3 @@",
  " import os",
  "--- a comment line that starts with two dashes",
  "+++ an added line that starts with two pluses",
  " print(os.name)",
  "diff --git a/new.txt b/new.txt",
  "new file mode 100644",
  "index 0000000..ce01362",
  "--- /dev/null",
  "+++ b/new.txt",
  "@@ -0,0 +1 @@",
  "+hello",
  "diff --git a/gone.txt b/gone.txt",
  "deleted file mode 100644",
  "index ce01362..0000000",
  "--- a/gone.txt",
  "+++ /dev/null",
  "@@ -1 +0,0 @@",
  "-bye",
  "diff --git a/old name.txt b/new name.txt",
  "similarity index 100%",
  "rename from old name.txt",
  "rename to new name.txt",
  "diff --git a/lib/a.c b/lib/b.c",
  "similarity index 90%",
  "rename from lib/a.c",
  "rename to lib/b.c",
  "index 1111111..2222222 100644",
  "--- a/lib/a.c",
  "+++ b/lib/b.c",
  "@@ -1 +1 @@",
  "-int a;",
  "+int b;",
  "diff --git a/empty.txt b/empty.txt",
  "new file mode 100644",
  "index 0000000..e69de29",
].join("\n");

describe("multi-file unified diff", () => {
  it("reads each git section as its operation", () => {
    const ops = parseMultiFileDiff(gitDiff);
    expect(ops.ok).toBe(true);
    if (!ops.ok) return;
    expect(ops.value.map((o) => [o.op, o.path.path, o.op === "update" ? o.moveTo?.path : undefined])).toEqual(
      [
        ["update", "src/app.py", undefined],
        ["add", "new.txt", undefined],
        ["delete", "gone.txt", undefined],
        ["update", "old name.txt", "new name.txt"],
        ["update", "lib/a.c", "lib/b.c"],
        ["add", "empty.txt", undefined],
      ],
    );
    const first = ops.value[0]!;
    // The hunk counts say the `---`/`+++` lines inside the hunk are content, not a new file's headers.
    expect(
      first.op === "update" && first.body?.kind === "diff" && first.body.text.includes("+++ an added line"),
    ).toBe(true);
    const pureRename = ops.value[3]!;
    expect(pureRename.op === "update" && pureRename.body).toBe(null);
  });

  it("reads diff -ruN output with its leading folders as alternatives", () => {
    const text = [
      "diff -ruN old/a.txt new/a.txt",
      "--- old/a.txt\t2024-01-01 10:00:00.000000000 +0000",
      "+++ new/a.txt\t2024-01-02 10:00:00.000000000 +0000",
      "@@ -1 +1 @@",
      "-x",
      "+y",
      "diff -ruN old/b.txt new/b.txt",
      "--- old/b.txt\t1970-01-01 00:00:00.000000000 +0000",
      "+++ new/b.txt\t2024-01-02 10:00:00.000000000 +0000",
      "@@ -0,0 +1 @@",
      "+made",
    ].join("\n");
    const ops = parseMultiFileDiff(text);
    expect(ops.ok && ops.value.map((o) => [o.op, o.path.path, o.path.stripped])).toEqual([
      ["update", "old/a.txt", "a.txt"],
      ["add", "new/b.txt", "b.txt"],
    ]);
  });

  it("reads header pairs without diff lines, prose around them ignored", () => {
    const text =
      "Here is the change:\n\n--- a/x.ts\n+++ b/x.ts\n@@ @@\n-a\n+b\n--- a/y.ts\n+++ b/y.ts\n@@ @@\n-c\n+d\n\nThat is all.";
    const ops = parseMultiFileDiff(text);
    expect(ops.ok && ops.value.map((o) => o.path.path)).toEqual(["x.ts", "y.ts"]);
  });

  it("refuses what it cannot apply, naming it", () => {
    const binary = parseMultiFileDiff(
      "diff --git a/p.png b/p.png\nindex 1..2 100644\nBinary files a/p.png and b/p.png differ\n",
    );
    expect(!binary.ok && binary.error.message).toContain("binary");
    const only = parseMultiFileDiff(
      "Only in new: c.txt\ndiff -ru old/a new/a\n--- old/a\n+++ new/a\n@@ -1 +1 @@\n-x\n+y\n",
    );
    expect(!only.ok && only.error.message).toContain("Only in new: c.txt");
    const header = parseMultiFileDiff("--- a/x\n+++ b/x\n@@ --3,2 +-3,2 @@\n-a\n+b\n");
    expect(!header.ok && header.error.message).toContain("`@@ --3,2 +-3,2 @@` (line 3) is not a hunk header");
    const copy = parseMultiFileDiff("diff --git a/a b/b\nsimilarity index 100%\ncopy from a\ncopy to b\n");
    expect(!copy.ok && copy.error.message).toContain("copies");
  });
});

describe("apply_patch envelope", () => {
  it("reads every operation, stacked anchors and the end-of-file mark", () => {
    const text = [
      "I will make these changes.",
      "```",
      "*** Begin Patch",
      "*** Add File: hello.txt",
      "+Hello",
      "+",
      "+world",
      "*** Update File: src/app.py",
      "*** Move to: src/main.py",
      "@@ class Greeter",
      "@@     def greet(self):",
      "-        print('Hi')",
      "+        print('Hello')",
      "",
      "@@",
      " last = 1",
      "-end = 2",
      "+end = 3",
      "*** End of File",
      "*** Delete File: obsolete.txt",
      "*** End Patch",
      "```",
    ].join("\n");
    const ops = parseEnvelope(text);
    expect(ops.ok).toBe(true);
    if (!ops.ok) return;
    expect(ops.value[0]).toMatchObject({
      op: "add",
      path: { path: "hello.txt" },
      content: "Hello\n\nworld\n",
    });
    const update = ops.value[1]!;
    expect(update).toMatchObject({
      op: "update",
      path: { path: "src/app.py" },
      moveTo: { path: "src/main.py" },
    });
    if (update.op !== "update" || update.body?.kind !== "anchored")
      throw new Error("expected anchored hunks");
    expect(update.body.hunks.map((h) => [h.anchors, h.lines.length, h.endOfFile])).toEqual([
      [["class Greeter", "    def greet(self):"], 2, false],
      [[], 3, true],
    ]);
    expect(ops.value[2]).toMatchObject({ op: "delete", path: { path: "obsolete.txt" } });
  });

  it("refuses a cut-off envelope and a stray line, naming the line", () => {
    const cut = parseEnvelope("*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n");
    expect(!cut.ok && cut.error.message).toContain("End Patch");
    const stray = parseEnvelope("*** Begin Patch\n*** Update File: a.txt\n@@\n-a\nb\n*** End Patch\n");
    expect(!stray.ok && stray.error.message).toContain("line 5");
    const empty = parseEnvelope("*** Begin Patch\n*** Update File: a.txt\n*** End Patch\n");
    expect(!empty.ok && empty.error.message).toContain("no hunks");
  });

  it("is told apart from a unified diff", () => {
    const env = parseChange("*** Begin Patch\n*** Delete File: a\n*** End Patch\n");
    expect(env.ok && env.value.format).toBe("apply_patch");
    const diff = parseChange("--- a/a\n+++ b/a\n@@ @@\n-x\n+y\n");
    expect(diff.ok && diff.value.format).toBe("unified");
  });
});
