// `lockstep ask` on a terminal with run_command: the question shows the command and where it
// runs, `a` allows its prefix for the session (the second `echo hello` runs unasked), `n`
// rejects the next, and the output is printed as it comes.
import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAi, type FakeOpenAi } from "../support/fake-openai.js";
import { tempDir } from "../support/workspace-fixture.js";
import { onTerminal } from "./pty.js";

const BIN = path.resolve("bin/lockstep.js");

let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const run = (command: string) => ({ calls: [{ name: "run_command", args: { command } }] });

describe("lockstep ask runs commands with approval on a terminal", () => {
  it("asks, remembers an always by prefix, and takes a rejection", async () => {
    fake = await startFakeOpenAi([
      run("echo hello world"),
      run("echo hello again"),
      run("echo other"),
      { text: "All ran." },
    ]);
    const home = tempDir("lockstep-ask-commands-home-");
    const env = {
      PATH: process.env["PATH"],
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, ".config"),
      TERM: "xterm",
      LANG: "C.UTF-8",
    };
    const root = await fs.realpath(tempDir("lockstep-ask-commands-"));
    // The user's own file: a project's provider and baseUrl would wait for the folder's trust.
    const userDir = path.join(home, ".config", "lockstep");
    await fs.mkdir(userDir, { recursive: true });
    await fs.writeFile(
      path.join(userDir, "config.json"),
      JSON.stringify({ provider: "openai", baseUrl: fake.url, model: "m" }) + "\n",
    );
    const term = onTerminal(process.execPath, [BIN, "ask", "run them"], { cwd: root, env });
    await term.waitFor("[a]lways: ");
    expect(term.text()).toContain("echo hello world");
    expect(term.text()).toMatch(/in the project root/);
    term.write("a");
    await term.waitFor("echo other");
    await term.waitFor(/\[a\]lways: [^]*\[a\]lways: /);
    term.write("n");
    await term.exited;
    const text = term.text();
    expect(text).toContain("hello world\n");
    expect(text).toContain("hello again\n");
    expect(text.match(/\[y\]es \/ \[n\]o \/ \[r\]eason: no, and say why \/ \[a\]lways/g)).toHaveLength(2);
    expect(text).toContain("All ran.");
  }, 120_000);

  it("--allow-command runs its prefix unasked and --sandbox off runs it unsandboxed; --commands off offers no tool", async () => {
    fake = await startFakeOpenAi([run("echo from the flag"), { text: "Ran it." }, { text: "No commands." }]);
    const home = tempDir("lockstep-ask-flags-home-");
    const env = {
      PATH: process.env["PATH"],
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, ".config"),
      TERM: "xterm",
      LANG: "C.UTF-8",
    };
    const root = await fs.realpath(tempDir("lockstep-ask-flags-"));
    const model = ["--provider", "openai", "--base-url", fake.url, "--model", "m"];
    const flags = ["--allow-command", "echo from", "--allow-command", "npm test", "--sandbox", "off"];
    const term = onTerminal(process.execPath, [BIN, "ask", ...model, ...flags, "run it"], { cwd: root, env });
    expect(await term.exited).toBe(0);
    expect(term.text()).toContain("from the flag\n");
    expect(term.text()).toContain("Ran it.");
    expect(term.text()).not.toContain("[y]es / [n]o");
    const result = (fake.requests[1]!["messages"] as { role: string; content: string }[]).find(
      (m) => m.role === "tool",
    )!;
    expect(JSON.parse(result.content)).toMatchObject({
      ok: true,
      data: { sandboxed: false, approved_by_user: false },
    });

    const off = onTerminal(process.execPath, [BIN, "ask", ...model, "--commands", "off", "hi"], {
      cwd: root,
      env,
    });
    expect(await off.exited).toBe(0);
    const tools = (fake.requests[2]!["tools"] ?? []) as { function: { name: string } }[];
    expect(tools.map((t) => t.function.name)).not.toContain("run_command");
  }, 120_000);

  it("names a bad command flag and what it takes", () => {
    const r = spawnSync(
      process.execPath,
      [BIN, "config", "--commands", "maybe", "--allow-command", "rm -rf /"],
      {
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    expect(r.status).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/--commands[^\n]*ask[^\n]*auto[^\n]*off/);
    expect(r.stdout + r.stderr).toMatch(/--allow-command[^\n]*one program and at most one argument/);
  });

  it("lockstep config says which sandbox commands get here, or why there is none", () => {
    const r = spawnSync(process.execPath, [BIN, "config", "--json"], { encoding: "utf8", timeout: 60_000 });
    const sandbox = (
      JSON.parse(r.stdout) as { data: { sandbox: { available: boolean; name?: string; reason?: string } } }
    ).data.sandbox;
    if (sandbox.available) expect(sandbox.name).toBe("bubblewrap");
    else expect(sandbox.reason).toMatch(/bubblewrap|no sandbox for/);
  });
});
