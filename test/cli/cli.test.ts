// The `lockstep` command as a user runs it: a real process (node bin/lockstep.js)
// in a temporary directory. Needs the build: npx tsc -p tsconfig.build.json.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { EMPTY_SHA256, lines, sha256Of, tempDir, writeTree, type FileTree } from "../support/workspace-fixture.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = path.join(REPO, "bin/lockstep.js");
const BUILT = path.join(REPO, "dist/server/src/cli/main.js");

beforeAll(() => {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npx tsc -p tsconfig.build.json\` before the CLI tests.`);
});

interface Envelope {
  ok: boolean;
  data?: Record<string, unknown>;
  error?: { code: string; message: string; suggestions: string[] };
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The one JSON line on stdout. */
  envelope: Envelope;
}

type Stdin = string | (() => AsyncIterable<Buffer>);

/** Runs `node bin/lockstep.js ...args`; fails the test unless stdout is exactly one JSON line. */
async function lockstep(args: string[], options: { cwd: string; stdin?: Stdin }): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, stdio: ["pipe", "pipe", "pipe"] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (b: Buffer) => out.push(b));
  child.stderr.on("data", (b: Buffer) => err.push(b));
  const closed = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve(code));
  });
  // The command may stop reading early (a refusal); a broken pipe is then expected.
  child.stdin.on("error", () => undefined);
  const stdin = options.stdin;
  if (typeof stdin === "function") await pipeline(Readable.from(stdin()), child.stdin).catch(() => undefined);
  else child.stdin.end(stdin ?? "");
  const status = await closed;

  const stdout = Buffer.concat(out).toString("utf8");
  const stderr = Buffer.concat(err).toString("utf8");
  const linesOut = stdout.split("\n");
  if (linesOut.length !== 2 || linesOut[1] !== "") {
    throw new Error(`stdout is not exactly one line (exit ${status}):\n${stdout.slice(0, 2000)}\nstderr:\n${stderr.slice(0, 2000)}`);
  }
  return { status, stdout, stderr, envelope: JSON.parse(linesOut[0]!) as Envelope };
}

/** A workspace directory with `tree` in it. */
async function workspace(tree: FileTree): Promise<string> {
  const root = await fs.realpath(tempDir("lockstep-cli-"));
  await writeTree(root, tree);
  return root;
}

const GREETING = lines(
  "#!/usr/bin/env python3",
  "import sys",
  "",
  "",
  "def greet(name):",
  "    print('Hello, ' + name)",
  "",
  "",
  "if __name__ == '__main__':",
  "    greet(sys.argv[1])",
);
const GREETING_FIXED = GREETING.replace("print('Hello, ' + name)", "print(f'Hello, {name}!')");
const FIX_DIFF = lines(
  "--- a/greet.py",
  "+++ b/greet.py",
  "@@ -5,2 +5,2 @@",
  " def greet(name):",
  "-    print('Hello, ' + name)",
  "+    print(f'Hello, {name}!')",
);
/** Context that is nowhere in greet.py. */
const STRAY_DIFF = lines("@@ -5,2 +5,2 @@", " def welcome(name):", "-    print('Hi ' + name)", "+    print(f'Hi {name}')");

const modeOf = async (file: string) => (await fs.stat(file)).mode & 0o777;

describe("lockstep apply-patch", () => {
  it.each<[name: string, args: (dir: string) => string[], stdin: string]>([
    ["from stdin", () => [], FIX_DIFF],
    ["from stdin named by --diff -", () => ["--diff", "-"], FIX_DIFF],
    ["from a file named by --diff", (dir) => ["--diff", path.join(dir, "fix.diff")], ""],
  ])("applies a diff %s, prints the new state and exits 0", async (_name, extra, stdin) => {
    const root = await workspace({ "greet.py": GREETING });
    const elsewhere = await workspace({ "fix.diff": FIX_DIFF });
    const run = await lockstep(["apply-patch", "greet.py", "--root", root, ...extra(elsewhere)], { cwd: elsewhere, stdin });

    expect(run.status).toBe(0);
    expect(run.envelope).toMatchObject({ ok: true, data: { message: "Patch applied successfully.", applied: true, latest_file_state: { file_path: "greet.py", sha256: sha256Of(GREETING_FIXED) } } });
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
    const run = await lockstep(["apply-patch", "greet.py", "--base-sha256", sha256Of(GREETING)], { cwd: root, stdin: FIX_DIFF });
    expect(run.status).toBe(0);
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING_FIXED);
  });

  // Odd bytes (CRLF, no final newline, non-ASCII) and a mode of its own, so "unchanged" means every bit.
  const ODD = Buffer.from("#!/usr/bin/env python3\r\nimport sys\r\n\r\ndef greet(name):\r\n    print('Grüße, ' + name)", "utf8");

  it.each<[name: string, args: string[], stdin: string, code: string, label: RegExp]>([
    ["a diff whose context is not in the file", [], STRAY_DIFF, "invalid_diff", /^Invalid Diff:/],
    ["a stale --base-sha256", ["--base-sha256", sha256Of("import sys\n")], FIX_DIFF, "state_mismatch", /^State Mismatch:/],
    ["an empty diff", [], "", "invalid_argument", /the diff \(stdin or --diff\)/],
  ])("refuses %s with exit 1 and leaves the file's bytes and mode", async (_name, args, stdin, code, label) => {
    const root = await workspace({ "greet.py": ODD });
    await fs.chmod(path.join(root, "greet.py"), 0o640);
    const run = await lockstep(["apply-patch", "greet.py", ...args], { cwd: root, stdin });

    expect(run.status).toBe(1);
    expect(run.envelope).toMatchObject({ ok: false, error: { code, message: expect.stringMatching(label) as string } });
    expect((await fs.readFile(path.join(root, "greet.py"))).equals(ODD)).toBe(true);
    expect(await modeOf(path.join(root, "greet.py"))).toBe(0o640);
  });

  it("returns the current state with a state mismatch", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const run = await lockstep(["apply-patch", "greet.py", "--base-sha256", EMPTY_SHA256], { cwd: root, stdin: FIX_DIFF });
    expect(run.envelope.data?.["latest_file_state"]).toMatchObject({ sha256: sha256Of(GREETING), content: GREETING });
  });

  it("checks without writing under --dry-run", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const run = await lockstep(["apply-patch", "greet.py", "--dry-run"], { cwd: root, stdin: FIX_DIFF });

    expect(run.status).toBe(0);
    expect(run.envelope).toMatchObject({ ok: true, data: { applied: false, diff: expect.stringContaining("+    print(f'Hello, {name}!')") as string } });
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING);
  });

  it("creates a new file from a diff against /dev/null", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const diff = lines("--- /dev/null", "+++ b/lib/__init__.py", "@@ -0,0 +1,2 @@", "+from .greet import greet", "+__all__ = ['greet']");
    const run = await lockstep(["apply-patch", "lib/__init__.py"], { cwd: root, stdin: diff });

    expect(run.status).toBe(0);
    expect(await fs.readFile(path.join(root, "lib/__init__.py"), "utf8")).toBe(lines("from .greet import greet", "__all__ = ['greet']"));
  });

  it("empties a file with a diff that deletes every line", async () => {
    const root = await workspace({ "todo.txt": lines("buy milk", "call bob", "fix bike") });
    const diff = lines("--- a/todo.txt", "+++ b/todo.txt", "@@ -1,3 +0,0 @@", "-buy milk", "-call bob", "-fix bike");
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
    const run = await lockstep(["apply-patch", target(root), "--root", root], { cwd: root, stdin: "@@ @@\n-token=1\n+token=2\n" });

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
    expect(run.envelope).toMatchObject({ ok: false, error: { code: "invalid_argument", message: expect.stringMatching(/too large.*MB/) as string } });
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING);
  }, 120_000);
});

describe("lockstep edit", () => {
  it("replaces --old with --new", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const run = await lockstep(["edit", "greet.py", "--old", "    print('Hello, ' + name)", "--new", "    print(f'Hello, {name}!')"], { cwd: root });

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
    const run = await lockstep(["edit", "greet.py", "--old-file", path.join(texts, "old.txt"), "--new-file", path.join(texts, "new.txt"), "--root", root], { cwd: texts });

    expect(run.status).toBe(0);
    const expected = GREETING.replace("def greet(name):\n    print('Hello, ' + name)\n", lines("def greet(name, punctuation='!'):", '    print(f"Hello, {name}{punctuation}")'));
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(expected);
  });

  it("replaces every match with --expected-replacements", async () => {
    const root = await workspace({ "names.txt": lines("alice", "bob", "alice") });
    const run = await lockstep(["edit", "names.txt", "--old", "alice", "--new", "carol", "--expected-replacements", "2"], { cwd: root });
    expect(run.status).toBe(0);
    expect(await fs.readFile(path.join(root, "names.txt"), "utf8")).toBe(lines("carol", "bob", "carol"));
  });

  it.each<[name: string, args: string[], code: string]>([
    ["an --old that is not in the file", ["--old", "print('Bye')", "--new", "print('Hi')"], "not_found"],
    ["an --old that occurs twice without --expected-replacements", ["--old", "greet(", "--new", "hello("], "ambiguous"],
    ["a stale --base-sha256", ["--old", "import sys", "--new", "import os", "--base-sha256", sha256Of("")], "state_mismatch"],
    ["--dry-run", ["--old", "import sys", "--new", "import os", "--dry-run"], ""],
  ])("leaves the file on %s", async (_name, args, code) => {
    const root = await workspace({ "greet.py": GREETING });
    const run = await lockstep(["edit", "greet.py", ...args], { cwd: root });

    if (code === "") expect(run).toMatchObject({ status: 0, envelope: { ok: true, data: { applied: false } } });
    else expect(run).toMatchObject({ status: 1, envelope: { ok: false, error: { code } } });
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING);
  });
});

/** One edit block as a model writes it. */
function block(file: string, edit: string[], repl: string[]): string {
  return lines(file, "««« EDIT", ...edit, "═══════ REPL", ...repl, "»»» EDIT END");
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", ...args], { cwd, encoding: "utf8" });
}

describe("lockstep apply-blocks", () => {
  const answer = [
    "I will switch to f-strings and add a package marker.",
    block("greet.py", ["def greet(name):", "    print('Hello, ' + name)"], ["def greet(name):", "    print(f'Hello, {name}!')"]),
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
    expect(git(root, "diff", "--cached", "--name-only").split("\n").filter(Boolean).sort()).toEqual(["greet.py", "pkg/__init__.py"]);
  });

  it.each(["./lib/greet.py", "lib\\greet.py"])("stages a file the model wrote as %s under its workspace path", async (written) => {
    const root = await workspace({ "lib/greet.py": GREETING });
    git(root, "init", "-q");
    const text = block(written, ["def greet(name):", "    print('Hello, ' + name)"], ["def greet(name):", "    print(f'Hello, {name}!')"]);
    const run = await lockstep(["apply-blocks", "--stage"], { cwd: root, stdin: text });

    expect(run.envelope).toMatchObject({ ok: true, data: { files_changed: ["lib/greet.py"], staged: ["lib/greet.py"] } });
    expect(run.envelope.data).not.toHaveProperty("stage_error");
    expect(git(root, "diff", "--cached", "--name-only")).toBe("lib/greet.py\n");
  });

  it("validates without writing or staging under --dry-run", async () => {
    const root = await workspace({ "greet.py": GREETING });
    git(root, "init", "-q");
    const run = await lockstep(["apply-blocks", "--dry-run", "--stage", "--root", root], { cwd: root, stdin: answer });

    expect(run.status).toBe(0);
    expect((run.envelope.data?.["blocks"] as { status: string }[]).map((b) => b.status)).toEqual(["validated", "validated"]);
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING);
    expect(existsSync(path.join(root, "pkg"))).toBe(false);
    expect(git(root, "diff", "--cached", "--name-only")).toBe("");
  });

  it("exits 1 when a block fails, with the blocks that fit applied", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const text = [block("greet.py", ["def welcome(name):"], ["def welcome(name):", "    pass"]), block("pkg/__init__.py", [], ["VERSION = '1.0'"])].join("\n");
    const run = await lockstep(["apply-blocks"], { cwd: root, stdin: text });

    expect(run.status).toBe(1);
    expect((run.envelope.data?.["blocks"] as { status: string }[]).map((b) => b.status)).toEqual(["failed", "applied"]);
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
    expect(run.envelope).toMatchObject({ ok: true, data: { file_path: "greet.py", version: null, sha256: sha256Of(GREETING), content: GREETING } });
  });

  it("prints several files (globs allowed) and the paths that failed", async () => {
    const root = await workspace({ "greet.py": GREETING, "lib/a.py": "A = 1\n", "lib/b.py": "B = 2\n" });
    const run = await lockstep(["read", "greet.py", "lib/*.py", "missing.py", "--root", root], { cwd: path.dirname(root) });

    expect(run.status).toBe(0);
    const files = run.envelope.data?.["files"] as { file_path: string; sha256: string }[];
    expect(files.map((f) => [f.file_path, f.sha256])).toEqual([
      ["greet.py", sha256Of(GREETING)],
      ["lib/a.py", sha256Of("A = 1\n")],
      ["lib/b.py", sha256Of("B = 2\n")],
    ]);
    expect(run.envelope.data?.["errors"]).toEqual([expect.objectContaining({ file_path: "missing.py", code: "not_found" })]);
  });

  it("refuses a file outside --root", async () => {
    const parent = await workspace({ "secret.txt": "token=1\n", "ws/greet.py": GREETING });
    const run = await lockstep(["read", "../secret.txt", "--root", path.join(parent, "ws")], { cwd: parent });
    expect(run.status).toBe(1);
    expect(run.envelope).toMatchObject({ ok: false, error: { code: "permission_denied" } });
    expect(run.stdout).not.toContain("token=1");
  });
});

describe("exit status and output", () => {
  it.each<[args: string[], status: number, code: string | null]>([
    [["read", "greet.py"], 0, null],
    [["read", "gret.py"], 1, "not_found"],
    [["frobnicate"], 2, "invalid_argument"],
    [["apply-patch"], 2, "invalid_argument"],
    [["apply-patch", "greet.py", "other.py"], 2, "invalid_argument"],
    [["apply-patch", "greet.py", "--bogus"], 2, "invalid_argument"],
    [["apply-patch", "greet.py", "--diff", "no-such.diff"], 2, "invalid_argument"],
    [["apply-patch", "greet.py", "--base-sha256", "abc"], 2, "invalid_argument"],
    [["edit", "greet.py", "--old-file", "no-such.txt", "--new", "b"], 2, "invalid_argument"],
    [["edit", "greet.py", "--old", "import sys"], 2, "invalid_argument"],
    [["edit", "greet.py", "--old", "a", "--old-file", "old.txt", "--new", "b"], 2, "invalid_argument"],
    [["edit", "greet.py", "--old", "a", "--new", "b", "--expected-replacements", "two"], 2, "invalid_argument"],
    [["apply-blocks", "greet.py"], 2, "invalid_argument"],
    [["read"], 2, "invalid_argument"],
  ])("lockstep %j exits %i with one JSON envelope on stdout", async (args, status, code) => {
    const root = await workspace({ "greet.py": GREETING });
    const run = await lockstep(args, { cwd: root });

    expect(run.status).toBe(status);
    expect(run.envelope.ok).toBe(code === null);
    if (code !== null) expect(run.envelope.error?.code).toBe(code);
    // The usage goes to stderr: the command's own synopsis, or the whole list for an unknown command.
    if (status === 2) expect(run.stderr).toContain(args[0] === "frobnicate" ? "lockstep apply-patch FILE" : `lockstep ${args[0]!} `);
  });
});

describe("messages for people", () => {
  /** The raw run: --help prints text, not an envelope. */
  function raw(args: string[], cwd: string, program = process.execPath, before: string[] = [BIN]): { status: number | null; stdout: string; stderr: string } {
    try {
      const stdout = execFileSync(program, [...before, ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
      return { status: 0, stdout, stderr: "" };
    } catch (error) {
      const e = error as { status: number | null; stdout: string; stderr: string };
      return { status: e.status, stdout: e.stdout, stderr: e.stderr };
    }
  }

  it.each(["apply-patch", "edit", "apply-blocks", "read", "search", "find", "ask", "demo", "mcp"])("%s --help prints its synopsis and an example, exit 0", async (command) => {
    const root = await workspace({});
    const run = raw([command, "--help"], root);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`lockstep ${command}`);
    expect(run.stdout).toMatch(/\n {2}\S.*\n/); // an example line
    expect(run.stdout).toContain("Exit status: 0 success, 1 refused or failed, 2 usage error");
  });

  it("a patch for a file that does not exist says no such file, with the near names", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const run = await lockstep(["apply-patch", "gret.py"], { cwd: root, stdin: FIX_DIFF });
    expect(run.status).toBe(1);
    expect(run.envelope.error).toMatchObject({ code: "not_found", message: expect.stringContaining("No such file: gret.py") as string });
    expect(run.envelope.error?.suggestions).toContain("Did you mean greet.py?");
  });

  it("a bad --root is named, with exit 2", async () => {
    const root = await workspace({});
    const run = await lockstep(["read", "x", "--root", path.join(root, "nowhere")], { cwd: root });
    expect(run.status).toBe(2);
    expect(run.envelope.error?.message).toContain("--root");
    expect(run.envelope.error?.message).toContain("no such directory");
    expect(run.envelope.error?.message).not.toContain("realpath");
  });

  it("an unknown option is named without Node's advice about --", async () => {
    const root = await workspace({});
    const run = await lockstep(["read", "x", "--frobnicate"], { cwd: root });
    expect(run.status).toBe(2);
    expect(run.envelope.error?.message).toContain("--frobnicate");
    expect(run.envelope.error?.message).not.toContain("positional argument");
  });

  it("suggestions name commands, not the model's tools", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const run = await lockstep(["apply-patch", "greet.py"], { cwd: root, stdin: STRAY_DIFF });
    const text = JSON.stringify(run.envelope.error);
    expect(text).not.toMatch(/\b(read_file|list_files|safe_patch|base_content_sha256)\b/);
  });

  it.each<[string, string[], RegExp]>([
    ["a --root that is not a directory", ["ask", "fix it", "--root", "nowhere"], /--root nowhere: no such directory/],
    ["a --provider that is none", ["ask", "fix it", "--provider", "bogus"], /--provider bogus: not a provider; give gemini or openai/],
    ["an unknown option", ["ask", "fix it", "--frobnicate"], /Unknown option '--frobnicate'/],
    ["an unknown option to demo", ["demo", "--frobnicate"], /Unknown option '--frobnicate'/],
    ["an unknown option to mcp", ["mcp", "--frobnicate"], /Unknown option '--frobnicate'/],
    ["a --root of mcp that is not a directory", ["mcp", "--root", "nowhere"], /--root \S*nowhere: no such directory/],
  ])("lockstep ask, demo or mcp with %s: the option named, the command's synopsis, exit 2, nothing started", async (_name, args, message) => {
    const root = await workspace({});
    const run = raw(args, root);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain(`lockstep ${args[0]!} ${args[0] === "ask" ? '"PROMPT"' : "["}`);
    expect(run.stderr).not.toMatch(/positional argument|ENOENT|realpath|Unhandled/);
  });

  // `script` gives the command a terminal for stdin (util-linux's form of the options).
  const hasScript = process.platform === "linux" && existsSync("/usr/bin/script");
  it.runIf(hasScript)("bare lockstep on a terminal prints a one-line hint and the help instead of waiting for LSP input", async () => {
    const root = await workspace({});
    const run = raw(["-c", `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`, "/dev/null"], root, "/usr/bin/script", ["-qe"]);
    expect(run.status).toBe(2);
    const out = run.stdout + run.stderr;
    expect(out).toMatch(/^lockstep is a language server: your editor starts it \(see README\)\. Commands for the shell:/);
    expect(out).toContain("lockstep apply-patch FILE");
  });

  it("a --replay file that is not JSON is named, with what it should be", async () => {
    const root = await workspace({ "bad.json": "{" });
    const run = raw(["ask", "hi", "--replay", "bad.json"], root);
    expect(run.status).toBe(1);
    expect(run.stdout + run.stderr).toMatch(/The replay script \S*bad\.json cannot be read: it is not valid JSON .*Give a JSON file recorded by lockstep/);
  });

  it("an option's file that does not exist is named with the option", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const run = await lockstep(["apply-patch", "greet.py", "--diff", "fix.patch"], { cwd: root });
    expect(run.envelope.error?.message).toContain("--diff fix.patch: no such file");
    expect(run.envelope.error?.message).not.toContain("ENOENT");
  });

  it("an edit that does not match speaks of --old, not of the tool's old_string", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const run = await lockstep(["edit", "greet.py", "--old", "no such text", "--new", "x"], { cwd: root });
    expect(run.status).toBe(1);
    const text = JSON.stringify(run.envelope.error);
    expect(text).toContain("--old");
    expect(text).not.toMatch(/\b(old_string|new_string|read_file)\b/);
  });

  it("a dry run of edit or apply-patch says nothing was written, and never that it applied", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const edit = await lockstep(["edit", "greet.py", "--old", "    print('Hello, ' + name)", "--new", "    print('Hi, ' + name)", "--dry-run"], { cwd: root });
    const patch = await lockstep(["apply-patch", "greet.py", "--dry-run"], { cwd: root, stdin: FIX_DIFF });
    for (const run of [edit, patch]) {
      expect(run.status).toBe(0);
      expect(run.envelope.data?.["message"]).toContain("nothing was written");
      expect(run.envelope.data?.["message"]).not.toMatch(/applied|landed|Created/);
    }
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING);
  });

  it("a dry run of edit blocks never says an edit landed", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const blocks = ["greet.py", "««« EDIT", "def greet(name):", "    print('Hello, ' + name)", "═══════ REPL", "def greet(name):", "    print('Hi, ' + name)", "»»» EDIT END", ""].join("\n");
    const run = await lockstep(["apply-blocks", "--dry-run"], { cwd: root, stdin: blocks });
    expect(run.stdout).not.toContain("landed");
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING);
  });
});
