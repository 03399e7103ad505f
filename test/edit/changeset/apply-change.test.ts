import { describe, expect, it } from "vitest";
import { applyChangeSet, resolvePaths } from "../../../server/src/edit/changeset/apply-change.js";
import { parseChange } from "../../../server/src/edit/changeset/parse-change.js";

type Files = Record<string, string>;

function run(files: Files, text: string): ReturnType<typeof applyChangeSet> {
  const parsed = parseChange(text);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const ops = parsed.value.operations;
  return applyChangeSet(
    ops,
    (p) => files[p],
    resolvePaths(ops, (p) => p in files),
  );
}

function after(files: Files, text: string): Files {
  const out = run(files, text);
  if (!out.ok) throw new Error(out.refused.map((r) => r.error.message).join("\n"));
  const next = { ...files };
  for (const f of out.files) {
    if (f.after === null) delete next[f.path];
    else {
      if (f.to !== undefined) delete next[f.path];
      next[f.to ?? f.path] = f.after;
    }
  }
  return next;
}

const greeter = [
  "class Greeter:",
  "    def hello(self):",
  "        return 1",
  "",
  "    def bye(self):",
  "        return 1",
  "",
  "def hello():",
  "    return 1",
  "",
].join("\n");

describe("apply_patch envelopes through the engine", () => {
  it("places a hunk under its anchor where the same lines occur twice", () => {
    const env =
      "*** Begin Patch\n*** Update File: g.py\n@@     def bye(self):\n-        return 1\n+        return 2\n*** End Patch\n";
    expect(after({ "g.py": greeter }, env)["g.py"]).toBe(
      greeter.replace("def bye(self):\n        return 1", "def bye(self):\n        return 2"),
    );
  });

  it("follows stacked anchors: class, then method", () => {
    const env =
      "*** Begin Patch\n*** Update File: g.py\n@@ class Greeter:\n@@     def hello(self):\n-        return 1\n+        return 0\n*** End Patch\n";
    expect(after({ "g.py": greeter }, env)["g.py"]).toBe(
      greeter.replace("def hello(self):\n        return 1", "def hello(self):\n        return 0"),
    );
  });

  it("refuses an anchor that matches two lines, and one that matches none, naming it", () => {
    const twice = run(
      { "g.py": greeter },
      "*** Begin Patch\n*** Update File: g.py\n@@ return 1\n-        return 1\n+        return 2\n*** End Patch\n",
    );
    expect(!twice.ok && twice.refused[0]!.error.message).toMatch(
      /anchor `@@ return 1`.*matches lines 3, 6, 9/,
    );
    const none = run(
      { "g.py": greeter },
      "*** Begin Patch\n*** Update File: g.py\n@@ def missing():\n-    return 1\n+    return 2\n*** End Patch\n",
    );
    expect(!none.ok && none.refused[0]!.error.message).toContain("`@@ def missing():` of hunk 1");
  });

  it("refuses a hunk without an anchor that fits several places", () => {
    const out = run(
      { "g.py": greeter },
      "*** Begin Patch\n*** Update File: g.py\n@@\n-        return 1\n+        return 2\n*** End Patch\n",
    );
    expect(out.ok).toBe(false);
    expect(!out.ok && out.refused[0]!.error.code).toBe("ambiguous");
  });

  it("lands an end-of-file hunk only on the file's last lines", () => {
    const text = "a\nb\na\nb\n";
    expect(
      after(
        { "t.txt": text },
        "*** Begin Patch\n*** Update File: t.txt\n@@\n a\n-b\n+c\n*** End of File\n*** End Patch\n",
      )["t.txt"],
    ).toBe("a\nb\na\nc\n");
    const wrong = run(
      { "t.txt": "a\nb\nz\n" },
      "*** Begin Patch\n*** Update File: t.txt\n@@\n a\n-b\n+c\n*** End of File\n*** End Patch\n",
    );
    expect(!wrong.ok && wrong.refused[0]!.error.message).toContain("End of File");
  });

  it("appends added lines alone at the end, keeping CRLF", () => {
    expect(
      after({ "c.txt": "x\r\ny\r\n" }, "*** Begin Patch\n*** Update File: c.txt\n@@\n+z\n*** End Patch\n")[
        "c.txt"
      ],
    ).toBe("x\r\ny\r\nz\r\n");
  });

  it("adds, deletes and moves; Add refuses an existing file, Update a missing one; all or none", () => {
    const files = { "keep.txt": "k\n", "old.txt": "one\ntwo\n", "gone.txt": "g\n" };
    const env = [
      "*** Begin Patch",
      "*** Add File: dir/new.txt",
      "+fresh",
      "*** Update File: old.txt",
      "*** Move to: moved.txt",
      "@@",
      " one",
      "-two",
      "+three",
      "*** Delete File: gone.txt",
      "*** End Patch",
    ].join("\n");
    expect(after(files, env)).toEqual({
      "keep.txt": "k\n",
      "dir/new.txt": "fresh\n",
      "moved.txt": "one\nthree\n",
    });
    const clash = run(files, env.replace("dir/new.txt", "keep.txt"));
    expect(!clash.ok && clash.refused.map((r) => r.path)).toEqual(["keep.txt"]);
    const missing = run(files, env.replace("*** Delete File: gone.txt", "*** Delete File: nothere.txt"));
    expect(!missing.ok && missing.refused[0]!.error.code).toBe("not_found");
  });

  it("names every file that refuses, not only the first", () => {
    const out = run(
      { "a.txt": "a\n", "b.txt": "b\n" },
      "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** Update File: b.txt\n@@\n-q\n+r\n*** End Patch\n",
    );
    expect(!out.ok && out.refused.map((r) => r.path)).toEqual(["a.txt", "b.txt"]);
  });

  it("refuses a file named by two sections", () => {
    const out = run(
      { "a.txt": "a\n" },
      "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** Delete File: a.txt\n*** End Patch\n",
    );
    expect(!out.ok && out.refused[0]!.error.message).toContain("two sections");
  });
});

describe("multi-file unified diffs through the engine", () => {
  const diff = [
    "diff --git a/a.txt b/a.txt",
    "--- a/a.txt",
    "+++ b/a.txt",
    "@@ -1,2 +1,2 @@",
    " one",
    "-two",
    "+TWO",
    "diff --git a/n.txt b/n.txt",
    "new file mode 100644",
    "--- /dev/null",
    "+++ b/n.txt",
    "@@ -0,0 +1,2 @@",
    "+new",
    "+end",
    "\\ No newline at end of file",
    "diff --git a/d.txt b/d.txt",
    "deleted file mode 100644",
    "--- a/d.txt",
    "+++ /dev/null",
    "@@ -1 +0,0 @@",
    "-d",
    "diff --git a/r.txt b/s.txt",
    "similarity index 100%",
    "rename from r.txt",
    "rename to s.txt",
  ].join("\n");
  const files = { "a.txt": "one\ntwo\n", "d.txt": "d\n", "r.txt": "r\n" };

  it("changes, creates, deletes and renames", () => {
    expect(after(files, diff)).toEqual({ "a.txt": "one\nTWO\n", "n.txt": "new\nend", "s.txt": "r\n" });
  });

  it("refuses a delete of a file that is not what the diff removes", () => {
    const out = run({ ...files, "d.txt": "changed\n" }, diff);
    expect(!out.ok && out.refused.map((r) => [r.path, r.error.code])).toEqual([["d.txt", "state_mismatch"]]);
  });

  it("reads diff -ru paths without their leading folder when that is where the files are", () => {
    const text =
      "diff -ru old/a.txt new/a.txt\n--- old/a.txt\t2024-01-01 00:00:00 +0000\n+++ new/a.txt\t2024-01-01 00:00:00 +0000\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n";
    expect(after({ "a.txt": "one\ntwo\n" }, text)).toEqual({ "a.txt": "one\n2\n" });
  });
});
