// How the CLI answers people: exit status 0 / 1 / 2 with one envelope, --help, and error messages that name the option.
import { execFileSync } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, FIX_DIFF, GREETING, lockstep, requireBuild, STRAY_DIFF, workspace } from "./cli-run.js";

requireBuild();

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
    [
      ["edit", "greet.py", "--old", "a", "--new", "b", "--expected-replacements", "two"],
      2,
      "invalid_argument",
    ],
    [["apply-blocks", "greet.py"], 2, "invalid_argument"],
    [["read"], 2, "invalid_argument"],
  ])("lockstep %j exits %i with one JSON envelope on stdout", async (args, status, code) => {
    const root = await workspace({ "greet.py": GREETING });
    const run = await lockstep(args, { cwd: root });

    expect(run.status).toBe(status);
    expect(run.envelope.ok).toBe(code === null);
    if (code !== null) expect(run.envelope.error?.code).toBe(code);
    // The usage goes to stderr: the command's own synopsis, or the whole list for an unknown command.
    if (status === 2)
      expect(run.stderr).toContain(
        args[0] === "frobnicate" ? "lockstep apply-patch [FILE]" : `lockstep ${args[0]!} `,
      );
  });
});

describe("messages for people", () => {
  /** The raw run: --help prints text, not an envelope. */
  function raw(
    args: string[],
    cwd: string,
    program = process.execPath,
    before: string[] = [BIN],
  ): { status: number | null; stdout: string; stderr: string } {
    try {
      const stdout = execFileSync(program, [...before, ...args], {
        cwd,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
      return { status: 0, stdout, stderr: "" };
    } catch (error) {
      const e = error as { status: number | null; stdout: string; stderr: string };
      return { status: e.status, stdout: e.stdout, stderr: e.stderr };
    }
  }

  it.each(["apply-patch", "edit", "apply-blocks", "read", "search", "find", "ask", "demo", "mcp"])(
    "%s --help prints its synopsis and an example, exit 0",
    async (command) => {
      const root = await workspace({});
      const run = raw([command, "--help"], root);
      expect(run.status).toBe(0);
      expect(run.stdout).toContain(`lockstep ${command}`);
      expect(run.stdout).toMatch(/\n {2}\S.*\n/); // an example line
      expect(run.stdout).toContain("Exit status: 0 success, 1 refused or failed, 2 usage error");
    },
  );

  it("a patch for a file that does not exist says no such file, with the near names", async () => {
    const root = await workspace({ "greet.py": GREETING });
    const run = await lockstep(["apply-patch", "gret.py"], { cwd: root, stdin: FIX_DIFF });
    expect(run.status).toBe(1);
    expect(run.envelope.error).toMatchObject({
      code: "not_found",
      message: expect.stringContaining("No such file: gret.py") as string,
    });
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
    [
      "a --root that is not a directory",
      ["ask", "fix it", "--root", "nowhere"],
      /--root nowhere: no such directory/,
    ],
    [
      "a --provider that is none",
      ["ask", "fix it", "--provider", "bogus"],
      /--provider bogus: not a provider; give gemini, openai .* anthropic .*ollama, lmstudio, llamacpp/,
    ],
    ["an unknown option", ["ask", "fix it", "--frobnicate"], /Unknown option '--frobnicate'/],
    ["an unknown option to demo", ["demo", "--frobnicate"], /Unknown option '--frobnicate'/],
    ["an unknown option to mcp", ["mcp", "--frobnicate"], /Unknown option '--frobnicate'/],
    [
      "a --root of mcp that is not a directory",
      ["mcp", "--root", "nowhere"],
      /--root \S*nowhere: no such directory/,
    ],
  ])(
    "lockstep ask, demo or mcp with %s: the option named, the command's synopsis, exit 2, nothing started",
    async (_name, args, message) => {
      const root = await workspace({});
      const run = raw(args, root);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toContain(`lockstep ${args[0]!} ${args[0] === "ask" ? '"PROMPT"' : "["}`);
      expect(run.stderr).not.toMatch(/positional argument|ENOENT|realpath|Unhandled/);
    },
  );

  // `script` gives the command a terminal for stdin (util-linux's form of the options).
  const hasScript = process.platform === "linux" && existsSync("/usr/bin/script");
  it.runIf(hasScript)(
    "bare lockstep on a terminal prints a one-line hint and the help instead of waiting for LSP input",
    async () => {
      const root = await workspace({});
      const run = raw(
        ["-c", `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`, "/dev/null"],
        root,
        "/usr/bin/script",
        ["-qe"],
      );
      expect(run.status).toBe(2);
      const out = run.stdout + run.stderr;
      expect(out).toMatch(
        /^lockstep is a language server: your editor starts it \(see README\)\. Commands for the shell:/,
      );
      expect(out).toContain("lockstep apply-patch [FILE]");
    },
  );

  it("a --replay file that is not JSON is named, with what it should be", async () => {
    const root = await workspace({ "bad.json": "{" });
    const run = raw(["ask", "hi", "--replay", "bad.json"], root);
    expect(run.status).toBe(1);
    expect(run.stdout + run.stderr).toMatch(
      /The replay script \S*bad\.json cannot be read: it is not valid JSON\. Give a JSON file recorded by lockstep/,
    );
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
    const edit = await lockstep(
      [
        "edit",
        "greet.py",
        "--old",
        "    print('Hello, ' + name)",
        "--new",
        "    print('Hi, ' + name)",
        "--dry-run",
      ],
      { cwd: root },
    );
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
    const blocks = [
      "greet.py",
      "««« EDIT",
      "def greet(name):",
      "    print('Hello, ' + name)",
      "═══════ REPL",
      "def greet(name):",
      "    print('Hi, ' + name)",
      "»»» EDIT END",
      "",
    ].join("\n");
    const run = await lockstep(["apply-blocks", "--dry-run"], { cwd: root, stdin: blocks });
    expect(run.stdout).not.toContain("landed");
    expect(await fs.readFile(path.join(root, "greet.py"), "utf8")).toBe(GREETING);
  });
});
