// `lockstep apply-patch` as a user runs it: a diff from stdin or --diff applied,
// checked against --base-sha256 or dry-run, and the refusals that leave the file.
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EMPTY_SHA256, lines, sha256Of } from "../support/workspace-fixture.js";
import {
  FIX_DIFF,
  GREETING,
  GREETING_FIXED,
  lockstep,
  requireBuild,
  STRAY_DIFF,
  workspace,
} from "./cli-run.js";

requireBuild();

const modeOf = async (file: string) => (await fs.stat(file)).mode & 0o777;

describe("lockstep apply-patch", () => {
  it.each<[name: string, args: (dir: string) => string[], stdin: string]>([
    ["from stdin", () => [], FIX_DIFF],
    ["from stdin named by --diff -", () => ["--diff", "-"], FIX_DIFF],
    ["from a file named by --diff", (dir) => ["--diff", path.join(dir, "fix.diff")], ""],
  ])("applies a diff %s, prints the new state and exits 0", async (_name, extra, stdin) => {
    const root = await workspace({ "greet.py": GREETING });
    const elsewhere = await workspace({ "fix.diff": FIX_DIFF });
    const run = await lockstep(["apply-patch", "greet.py", "--root", root, ...extra(elsewhere)], {
      cwd: elsewhere,
      stdin,
    });

    expect(run.status).toBe(0);
    expect(run.envelope).toMatchObject({
      ok: true,
      data: {
        message: "Patch applied successfully.",
        applied: true,
        latest_file_state: { file_path: "greet.py", sha256: sha256Of(GREETING_FIXED) },
      },
    });
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING_FIXED);
  });

  it("takes the current directory as the root when --root is not given, and keeps the file's mode", async () => {
    const root = await workspace({ "greet.py": GREETING });
    await fs.chmod(path.join(root, "greet.py"), 0o755);
    const run = await lockstep(["apply-patch", "greet.py"], { cwd: root, stdin: FIX_DIFF });

    expect(run.status).toBe(0);
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING_FIXED);
    expect(await modeOf(path.join(root, "greet.py"))).toBe(0o755);
  });

  it("checks --base-sha256: the right one applies", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const run = await lockstep(["apply-patch", "greet.py", "--base-sha256", sha256Of(GREETING)], {
      cwd: root,
      stdin: FIX_DIFF,
    });
    expect(run.status).toBe(0);
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING_FIXED);
  });

  // Odd bytes (CRLF, no final newline, non-ASCII) and a mode of its own, so "unchanged" means every bit.
  const ODD = Buffer.from(
    "#!/usr/bin/env python3\r\nimport sys\r\n\r\ndef greet(name):\r\n    print('Grüße, ' + name)",
    "utf8",
  );

  it.each<[name: string, args: string[], stdin: string, code: string, label: RegExp]>([
    ["a diff whose context is not in the file", [], STRAY_DIFF, "invalid_diff", /^Invalid Diff:/],
    [
      "a stale --base-sha256",
      ["--base-sha256", sha256Of("import sys\n")],
      FIX_DIFF,
      "state_mismatch",
      /^State Mismatch:/,
    ],
  ])(
    "refuses %s with exit 1 and leaves the file's bytes and mode",
    async (_name, args, stdin, code, label) => {
      const root = await workspace({ "greet.py": ODD });
      await fs.chmod(path.join(root, "greet.py"), 0o640);
      const run = await lockstep(["apply-patch", "greet.py", ...args], { cwd: root, stdin });

      expect(run.status).toBe(1);
      expect(run.envelope).toMatchObject({
        ok: false,
        error: { code, message: expect.stringMatching(label) as string },
      });
      expect((await fs.readFile(path.join(root, "greet.py"))).equals(ODD)).toBe(true);
      expect(await modeOf(path.join(root, "greet.py"))).toBe(0o640);
    },
  );

  it("returns the current state with a state mismatch", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const run = await lockstep(["apply-patch", "greet.py", "--base-sha256", EMPTY_SHA256], {
      cwd: root,
      stdin: FIX_DIFF,
    });
    expect(run.envelope.data?.["latest_file_state"]).toMatchObject({
      sha256: sha256Of(GREETING),
      content: GREETING,
    });
  });

  it("checks without writing under --dry-run", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const run = await lockstep(["apply-patch", "greet.py", "--dry-run"], { cwd: root, stdin: FIX_DIFF });

    expect(run.status).toBe(0);
    expect(run.envelope).toMatchObject({
      ok: true,
      data: { applied: false, diff: expect.stringContaining("+    print(f'Hello, {name}!')") as string },
    });
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING);
  });

  it("creates a new file from a diff against /dev/null", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const diff = lines(
      "--- /dev/null",
      "+++ b/lib/__init__.py",
      "@@ -0,0 +1,2 @@",
      "+from .greet import greet",
      "+__all__ = ['greet']",
    );
    const run = await lockstep(["apply-patch", "lib/__init__.py"], { cwd: root, stdin: diff });

    expect(run.status).toBe(0);
    expect(await fs.readFile(path.join(root, "lib/__init__.py"), "utf8")).toBe(
      lines("from .greet import greet", "__all__ = ['greet']"),
    );
  });

  it("empties a file with a diff that deletes every line", async () => {
    const root = await workspace({ "todo.txt": lines("buy milk", "call bob", "fix bike") });
    const diff = lines(
      "--- a/todo.txt",
      "+++ b/todo.txt",
      "@@ -1,3 +0,0 @@",
      "-buy milk",
      "-call bob",
      "-fix bike",
    );
    const run = await lockstep(["apply-patch", "todo.txt"], { cwd: root, stdin: diff });

    expect(run.status).toBe(0);
    expect(run.envelope.data?.["latest_file_state"]).toMatchObject({ sha256: EMPTY_SHA256, content: "" });
    expect(await fs.readFile(path.join(root, "todo.txt"), "utf8")).toBe("");
  });

  it.each<[name: string, target: (root: string) => string]>([
    ["a relative path with ..", () => "../secret.txt"],
    ["an absolute path", (root) => path.join(path.dirname(root), "secret.txt")],
  ])("refuses a file outside --root given as %s", async (_name, target) => {
    const parent = await workspace({ "secret.txt": "token=1\n", "ws/greet.py": GREETING });
    const root = path.join(parent, "ws");
    const run = await lockstep(["apply-patch", target(root), "--root", root], {
      cwd: root,
      stdin: "@@ @@\n-token=1\n+token=2\n",
    });

    expect(run.status).toBe(1);
    expect(run.envelope).toMatchObject({ ok: false, error: { code: "permission_denied" } });
    expect(await fs.readFile(path.join(parent, "secret.txt"), "utf8")).toBe("token=1\n");
  });

  it("refuses a 100 MB diff on stdin cleanly, with a clear message, and leaves the file", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const chunk = Buffer.from(`+${"x".repeat(1022)}\n`.repeat(1024)); // 1 MiB of added lines
    async function* hundredMegabytes() {
      yield Buffer.from(lines("@@ @@", " def greet(name):"));
      for (let i = 0; i < 100; i++) yield chunk;
    }
    const run = await lockstep(["apply-patch", "greet.py"], { cwd: root, stdin: hundredMegabytes });

    expect(run.status).toBe(1);
    expect(run.envelope).toMatchObject({
      ok: false,
      error: { code: "invalid_argument", message: expect.stringMatching(/too large.*MB/) as string },
    });
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING);
  }, 120_000);
});
