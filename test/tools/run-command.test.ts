// run_command in-process: bad input refused with a named field (empty, NUL, 1 MB, a timeout of
// 0, negative or over the maximum, a cwd outside the root or through a link out of it), the
// approval's shape (what is asked, what "always" offers, .git writers asked and unsandboxed
// even in auto), a door that cannot ask, and a command that reads standard input.
import { symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type {
  CommandAccess,
  CommandQuestion,
  CommandSettings,
} from "../../server/src/tools/command-question.js";
import { probeBubblewrap } from "../../server/src/commands/index.js";
import { makeWorkspace } from "../support/workspace-fixture.js";

const sandboxHere = (await probeBubblewrap()).kind === "available";

function access(
  settings: Partial<CommandSettings>,
  answer: "once" | "always" | "reject" | "none" = "once",
): CommandAccess & { asked: CommandQuestion[] } {
  const asked: CommandQuestion[] = [];
  return {
    asked,
    settings: () => ({
      commands: "ask",
      allowedCommands: [],
      sandbox: "off",
      sandboxNetwork: false,
      ...settings,
    }),
    alwaysAllowed: new Set(),
    prompt: () =>
      answer === "none"
        ? undefined
        : async (q) => {
            asked.push(q);
            return answer;
          },
  };
}

describe("run_command refuses bad input, naming the field", () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["an empty command", { command: "   " }, /`command` must not be empty/],
    ["a NUL byte", { command: "echo a\0b" }, /`command` must not contain a NUL byte/],
    ["a command of 1 MB", { command: "x".repeat(1_000_000) }, /`command` must be at most 16000 characters/],
    ["a timeout of 0", { command: "true", timeout_ms: 0 }, /`timeout_ms`/],
    ["a negative timeout", { command: "true", timeout_ms: -5 }, /`timeout_ms`/],
    ["a timeout over the maximum", { command: "true", timeout_ms: 600_001 }, /`timeout_ms`/],
  ];
  for (const [what, args, message] of cases) {
    it(what, async () => {
      const ws = await makeWorkspace({}, { commands: access({}) });
      const result = await ws.call("run_command", args);
      expect(result).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
      expect(result.ok ? "" : result.error.message).toMatch(message);
    });
  }

  it("a cwd outside the root, or through a link out of it", async () => {
    const ws = await makeWorkspace({ "src/a.txt": "a\n" }, { commands: access({}) });
    expect(await ws.call("run_command", { command: "pwd", cwd: "../" })).toMatchObject({
      ok: false,
      error: { code: "permission_denied" },
    });
    symlinkSync(ws.parent, path.join(ws.root, "out"));
    expect(await ws.call("run_command", { command: "pwd", cwd: "out" })).toMatchObject({
      ok: false,
      error: { code: "permission_denied" },
    });
    expect(await ws.call("run_command", { command: "pwd", cwd: "src/a.txt" })).toMatchObject({
      ok: false,
      error: { code: "invalid_argument" },
    });
    const inside = await ws.call("run_command", { command: "pwd", cwd: "src" });
    expect(inside).toMatchObject({
      ok: true,
      data: { output: `${path.join(ws.root, "src")}\n`, cwd: "src" },
    });
  });

  it("is not offered with commands: off, and says how to turn it on", async () => {
    const ws = await makeWorkspace({}, { commands: access({ commands: "off" }) });
    const result = await ws.call("run_command", { command: "true" });
    expect(result.ok ? "" : result.error.message).toMatch(/`commands` setting is "off"/);
  });
});

describe("run_command asks", () => {
  it("shows the command whole with its cwd and sandbox, and offers its prefixes for always", async () => {
    const a = access({});
    const ws = await makeWorkspace({}, { commands: a });
    await ws.call("run_command", { command: "echo one && ls -la" });
    expect(a.asked[0]).toMatchObject({
      command: "echo one && ls -la",
      cwd: ".",
      sandboxed: false,
      prefixes: ["echo one", "ls -la"],
    });
    expect(a.asked[0]!.sandbox).toMatch(/Not sandboxed \(sandbox: off\)/);
  });

  it("offers no always for what hides what runs, and says why", async () => {
    const a = access({}, "always");
    const ws = await makeWorkspace({}, { commands: a });
    await ws.call("run_command", { command: "echo $(date) > out.txt" });
    await ws.call("run_command", { command: "echo $(date) > out.txt" });
    expect(a.asked).toHaveLength(2);
    expect(a.asked[0]!.prefixes).toEqual([]);
    expect(a.asked[0]!.reasons.join("; ")).toMatch(/command substitution; redirection to a file/);
  });

  it("a door that cannot ask runs nothing and says so", async () => {
    const ws = await makeWorkspace({}, { commands: access({}, "none") });
    const result = await ws.call("run_command", { command: "touch made.txt" });
    expect(result).toMatchObject({ ok: false, error: { code: "permission_denied" } });
    expect(await ws.exists("made.txt")).toBe(false);
  });

  it.skipIf(!sandboxHere)(
    "auto runs unasked in the sandbox, but asks for a .git writer, which runs unsandboxed and is never remembered",
    async () => {
      const a = access({ commands: "auto", sandbox: "auto" }, "always");
      const ws = await makeWorkspace({}, { commands: a });
      const quiet = await ws.call("run_command", { command: "echo sandboxed" });
      expect(quiet).toMatchObject({ ok: true, data: { sandboxed: true, approved_by_user: false } });
      expect(a.asked).toHaveLength(0);
      await ws.call("run_command", { command: "git init -q" });
      await ws.call("run_command", { command: "git init -q" });
      expect(a.asked).toHaveLength(2);
      expect(a.asked[0]).toMatchObject({ sandboxed: false, prefixes: [] });
      expect(a.asked[0]!.sandbox).toMatch(/Not sandboxed: it writes \.git/);
      expect(a.alwaysAllowed.size).toBe(0);
    },
  );

  it("a command that reads standard input gets its end at once", async () => {
    const ws = await makeWorkspace({}, { commands: access({}) });
    const result = await ws.call("run_command", { command: "cat; echo after" });
    expect(result).toMatchObject({ ok: true, data: { output: "after\n", exit_code: 0 } });
  });

  it("a timeout returns what was printed, as a timeout", async () => {
    const ws = await makeWorkspace({}, { commands: access({}) });
    const result = await ws.call("run_command", { command: "echo early; sleep 30", timeout_ms: 500 });
    expect(result).toMatchObject({ ok: false, error: { code: "timeout" }, data: { output: "early\n" } });
  });
});
