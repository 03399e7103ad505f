// `lockstep edit`, `lockstep apply-blocks` and `lockstep read` as a user runs them.
import { execFileSync } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lines, sha256Of } from "../support/workspace-fixture.js";
import { GREETING, GREETING_FIXED, lockstep, requireBuild, workspace } from "./cli-run.js";

requireBuild();

describe("lockstep edit", () => {
  it("replaces --old with --new", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const run = await lockstep(
      ["edit", "greet.py", "--old", "    print('Hello, ' + name)", "--new", "    print(f'Hello, {name}!')"],
      { cwd: root },
    );

    expect(run.status).toBe(0);
    expect(run.envelope).toMatchObject({ ok: true, data: { strategy: "exact", occurrences: 1 } });
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING_FIXED);
  });

  it("reads the texts from --old-file and --new-file", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const texts = await workspace({
      "old.txt": lines("def greet(name):", "    print('Hello, ' + name)"),
      "new.txt": lines("def greet(name, punctuation='!'):", '    print(f"Hello, {name}{punctuation}")'),
    });
    const run = await lockstep(
      [
        "edit",
        "greet.py",
        "--old-file",
        path.join(texts, "old.txt"),
        "--new-file",
        path.join(texts, "new.txt"),
        "--root",
        root,
      ],
      { cwd: texts },
    );

    expect(run.status).toBe(0);
    const expected = GREETING.replace(
      "def greet(name):\n    print('Hello, ' + name)\n",
      lines("def greet(name, punctuation='!'):", '    print(f"Hello, {name}{punctuation}")'),
    );
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(expected);
  });

  it("replaces every match with --expected-replacements", async () => {
    const root = await workspace({ "names.txt": lines("alice", "bob", "alice") });
    const run = await lockstep(
      ["edit", "names.txt", "--old", "alice", "--new", "carol", "--expected-replacements", "2"],
      { cwd: root },
    );
    expect(run.status).toBe(0);
    expect(await fs.readFile(path.join(root, "names.txt"), "utf8")).toBe(lines("carol", "bob", "carol"));
  });

  it.each<[name: string, args: string[], code: string]>([
    ["an --old that is not in the file", ["--old", "print('Bye')", "--new", "print('Hi')"], "not_found"],
    [
      "an --old that occurs twice without --expected-replacements",
      ["--old", "greet(", "--new", "hello("],
      "ambiguous",
    ],
    [
      "a stale --base-sha256",
      ["--old", "import sys", "--new", "import os", "--base-sha256", sha256Of("")],
      "state_mismatch",
    ],
    ["--dry-run", ["--old", "import sys", "--new", "import os", "--dry-run"], ""],
  ])("leaves the file on %s", async (_name, args, code) => {
    const root = await workspace({ "greet.py": GREETING });
    const run = await lockstep(["edit", "greet.py", ...args], { cwd: root });

    if (code === "")
      expect(run).toMatchObject({ status: 0, envelope: { ok: true, data: { applied: false } } });
    else expect(run).toMatchObject({ status: 1, envelope: { ok: false, error: { code } } });
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING);
  });
});

/** One edit block as a model writes it. */
function block(file: string, edit: string[], repl: string[]): string {
  return lines(file, "««« EDIT", ...edit, "═══════ REPL", ...repl, "»»» EDIT END");
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    "git",
    ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", ...args],
    { cwd, encoding: "utf8" },
  );
}

describe("lockstep apply-blocks", () => {
  const answer = [
    "I will switch to f-strings and add a package marker.",
    block(
      "greet.py",
      ["def greet(name):", "    print('Hello, ' + name)"],
      ["def greet(name):", "    print(f'Hello, {name}!')"],
    ),
    block("pkg/__init__.py", [], ["VERSION = '1.0'"]),
    "Done.",
  ].join("\n");

  it("applies the blocks from stdin and stages exactly the changed files with --stage", async () => {
    const root = await workspace({ "greet.py": GREETING, "notes.txt": "untouched\n" });
    git(root, "init", "-q");
    git(root, "add", ".");
    git(root, "commit", "-q", "-m", "initial");
    await fs.writeFile(path.join(root, "notes.txt"), "edited by hand, not staged\n");

    const run = await lockstep(["apply-blocks", "--stage"], { cwd: root, stdin: answer });

    expect(run.status).toBe(0);
    expect(run.envelope).toMatchObject({ ok: true, data: { staged: ["greet.py", "pkg/__init__.py"] } });
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING_FIXED);
    expect(await fs.readFile(path.join(root, "pkg/__init__.py"), "utf8")).toBe("VERSION = '1.0'\n");
    expect(git(root, "diff", "--cached", "--name-only").split("\n").filter(Boolean).sort()).toEqual([
      "greet.py",
      "pkg/__init__.py",
    ]);
  });

  it.each(["./lib/greet.py", "lib\\greet.py"])(
    "stages a file the model wrote as %s under its workspace path",
    async (written) => {
      const root = await workspace({ "lib/greet.py": GREETING });
      git(root, "init", "-q");
      const text = block(
        written,
        ["def greet(name):", "    print('Hello, ' + name)"],
        ["def greet(name):", "    print(f'Hello, {name}!')"],
      );
      const run = await lockstep(["apply-blocks", "--stage"], { cwd: root, stdin: text });

      expect(run.envelope).toMatchObject({
        ok: true,
        data: { files_changed: ["lib/greet.py"], staged: ["lib/greet.py"] },
      });
      expect(run.envelope.data).not.toHaveProperty("stage_error");
      expect(git(root, "diff", "--cached", "--name-only")).toBe("lib/greet.py\n");
    },
  );

  it("validates without writing or staging under --dry-run", async () => {
    const root = await workspace({ "greet.py": GREETING });
    git(root, "init", "-q");
    const run = await lockstep(["apply-blocks", "--dry-run", "--stage", "--root", root], {
      cwd: root,
      stdin: answer,
    });

    expect(run.status).toBe(0);
    expect((run.envelope.data?.["blocks"] as { status: string }[]).map((b) => b.status)).toEqual([
      "validated",
      "validated",
    ]);
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING);
    expect(existsSync(path.join(root, "pkg"))).toBe(false);
    expect(git(root, "diff", "--cached", "--name-only")).toBe("");
  });

  it("exits 1 when a block fails, with the blocks that fit applied", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const text = [
      block("greet.py", ["def welcome(name):"], ["def welcome(name):", "    pass"]),
      block("pkg/__init__.py", [], ["VERSION = '1.0'"]),
    ].join("\n");
    const run = await lockstep(["apply-blocks"], { cwd: root, stdin: text });

    expect(run.status).toBe(1);
    expect((run.envelope.data?.["blocks"] as { status: string }[]).map((b) => b.status)).toEqual([
      "failed",
      "applied",
    ]);
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING);
  });

  it("reports a --stage that git cannot do, keeping the applied edit", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const run = await lockstep(["apply-blocks", "--stage"], { cwd: root, stdin: answer });
    expect(run.envelope.data?.["stage_error"]).toMatch(/^git add failed/);
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING_FIXED);
  });
});

describe("lockstep read", () => {
  it("prints one file's state", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const run = await lockstep(["read", "greet.py"], { cwd: root });
    expect(run.status).toBe(0);
    expect(run.envelope).toMatchObject({
      ok: true,
      data: { file_path: "greet.py", version: null, sha256: sha256Of(GREETING), content: GREETING },
    });
  });

  it("prints several files (globs allowed) and the paths that failed", async () => {
    const root = await workspace({ "greet.py": GREETING, "lib/a.py": "A = 1\n", "lib/b.py": "B = 2\n" });
    const run = await lockstep(["read", "greet.py", "lib/*.py", "missing.py", "--root", root], {
      cwd: path.dirname(root),
    });

    expect(run.status).toBe(0);
    const files = run.envelope.data?.["files"] as { file_path: string; sha256: string }[];
    expect(files.map((f) => [f.file_path, f.sha256])).toEqual([
      ["greet.py", sha256Of(GREETING)],
      ["lib/a.py", sha256Of("A = 1\n")],
      ["lib/b.py", sha256Of("B = 2\n")],
    ]);
    expect(run.envelope.data?.["errors"]).toEqual([
      expect.objectContaining({ file_path: "missing.py", code: "not_found" }),
    ]);
  });

  it("refuses a file outside --root", async () => {
    const parent = await workspace({ "secret.txt": "token=1\n", "ws/greet.py": GREETING });
    const run = await lockstep(["read", "../secret.txt", "--root", path.join(parent, "ws")], { cwd: parent });
    expect(run.status).toBe(1);
    expect(run.envelope).toMatchObject({ ok: false, error: { code: "permission_denied" } });
    expect(run.stdout).not.toContain("token=1");
  });
});
