// The terminal's question about a command and about an MCP call, as a person meets it (node-pty):
// the whole command line, where it runs, whether it is sandboxed and what [a]lways would allow,
// on screen before the keys; s (and Ctrl-C) stop the run with no further model request and the
// command not run; an MCP call's server, tool and arguments, a key in them redacted.
import { existsSync, promises as fs, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { requireBuild } from "../e2e/fixtures/harness.js";
import { startFakeOpenAi, type FakeAnswer, type FakeOpenAi } from "../support/fake-openai.js";
import { tempDir } from "../support/workspace-fixture.js";
import { onTerminal } from "./pty.js";

requireBuild();
const BIN = path.resolve(import.meta.dirname, "../../bin/lockstep.js");
const TOOLS = path.resolve(import.meta.dirname, "../mcp/fixtures/tools-mcp-server.mjs");
const KEY = "sk-terminal-details-0123456789abcdef";

let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A project and a HOME whose user file names the fake endpoint (and `mcpServers`). */
async function setUp(
  script: FakeAnswer[],
  mcpServers: Record<string, unknown> = {},
): Promise<{ root: string; env: NodeJS.ProcessEnv }> {
  fake = await startFakeOpenAi(script);
  const home = tempDir("lockstep-details-home-");
  const root = await fs.realpath(tempDir("lockstep-details-"));
  await fs.mkdir(path.join(root, "sub"));
  const userDir = path.join(home, ".config", "lockstep");
  await fs.mkdir(userDir, { recursive: true });
  await fs.writeFile(
    path.join(userDir, "config.json"),
    JSON.stringify({ provider: "openai", baseUrl: fake.url, model: "m", mcpServers }) + "\n",
  );
  const env = {
    PATH: process.env["PATH"],
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_STATE_HOME: path.join(home, ".state"),
    OPENAI_API_KEY: KEY,
    TERM: "xterm",
    LANG: "C.UTF-8",
  };
  return { root, env };
}

const run = (command: string, cwd?: string): FakeAnswer => ({
  calls: [{ name: "run_command", args: { command, ...(cwd ? { cwd } : {}) } }],
});

describe("lockstep ask: a command's question on a terminal", () => {
  it("shows the line, where it runs, the sandbox and the prefix always allows; s stops the run", async () => {
    const { root, env } = await setUp([run("touch made.txt && echo made", "sub"), { text: "never" }]);
    const term = onTerminal(process.execPath, [BIN, "ask", "make it"], { cwd: root, env });
    await term.waitFor("[a]lways: ");
    const screen = term.text();
    expect(screen).toContain("lockstep wants to run in sub:");
    expect(screen).toContain("    touch made.txt && echo made");
    expect(screen).toMatch(/(Sandboxed \(bubblewrap\)|Not sandboxed)/);
    expect(screen).toContain("[a]lways would allow `touch made.txt`, `echo made` for this session");
    expect(screen).toContain("[s]top ends the run");
    term.write("s");
    await term.exited;
    expect(term.text()).toContain("Stopped: the run ends here; the command did not run");
    expect(fake!.requests).toHaveLength(1);
    expect(existsSync(path.join(root, "sub", "made.txt"))).toBe(false);
  }, 120_000);

  it("Ctrl-C at the question is stop too", async () => {
    const { root, env } = await setUp([run("touch made.txt"), { text: "never" }]);
    const term = onTerminal(process.execPath, [BIN, "ask", "make it"], { cwd: root, env });
    await term.waitFor("[a]lways: ");
    expect(term.text()).toContain("in the project root:");
    term.write("\x03");
    await term.exited;
    expect(term.text()).toContain("Stopped:");
    expect(fake!.requests).toHaveLength(1);
    expect(existsSync(path.join(root, "made.txt"))).toBe(false);
  }, 120_000);
});

describe("lockstep ask: an MCP call's question on a terminal", () => {
  it("shows the server, the tool and the arguments, the key redacted; y calls it", async () => {
    const { root, env } = await setUp(
      [{ calls: [{ name: "mcp__docs__shout", args: { text: `token ${KEY} here` } }] }, { text: "Shouted." }],
      { docs: { command: process.execPath, args: [TOOLS] } },
    );
    const term = onTerminal(process.execPath, [BIN, "ask", "shout"], { cwd: root, env });
    await term.waitFor("always this [s]erver: ");
    const screen = term.text();
    expect(screen).toContain("lockstep wants to call shout on the MCP server docs, with:");
    expect(screen).toContain('"text": "token [redacted] here"');
    expect(screen).not.toContain(KEY);
    expect(screen).toContain("[a]lways allows mcp__docs__shout for this session");
    term.write("y");
    await term.exited;
    expect(term.text()).toContain("Shouted.");
  }, 120_000);

  it("Ctrl-C at an MCP call's question stops the run: the tool is not called", async () => {
    const log = path.join(tempDir("lockstep-details-log-"), "tools.log");
    const { root, env } = await setUp(
      [{ calls: [{ name: "mcp__docs__shout", args: { text: "loud" } }] }, { text: "never" }],
      { docs: { command: process.execPath, args: [TOOLS], env: { TOOLS_LOG: log } } },
    );
    const term = onTerminal(process.execPath, [BIN, "ask", "shout"], { cwd: root, env });
    await term.waitFor("always this [s]erver: ");
    expect(term.text()).toContain("Ctrl-C stops the run");
    term.write("\x03");
    await term.exited;
    expect(term.text()).toContain("Stopped: the run ends here; the tool was not called");
    expect(fake!.requests).toHaveLength(1);
    expect(existsSync(log) ? readFileSync(log, "utf8") : "").not.toContain("shout");
  }, 120_000);
});

/** What the model was sent back for its tool call, in its next request. */
function toolResult(request: Record<string, unknown> | undefined): string {
  const messages = (request?.["messages"] ?? []) as { role: string; content?: unknown }[];
  return String(messages.filter((m) => m.role === "tool").at(-1)?.content ?? "");
}

describe("lockstep ask: no, and say why, for a command and an MCP call", () => {
  it("r then a line rejects the command and the model reads the words", async () => {
    const { root, env } = await setUp([run("touch made.txt"), { text: "Understood." }]);
    const term = onTerminal(process.execPath, [BIN, "ask", "make it"], { cwd: root, env });
    await term.waitFor("[r]eason: no, and say why");
    term.write("r");
    await term.waitFor("Why not?");
    term.write("run the tests with make check instead\r");
    await term.exited;
    expect(term.text()).toContain("Rejected: the command did not run; the model is told why.");
    expect(fake!.requests).toHaveLength(2);
    expect(toolResult(fake!.requests[1])).toContain("run the tests with make check instead");
    expect(existsSync(path.join(root, "made.txt"))).toBe(false);
  }, 120_000);

  it("r then a line rejects the MCP call and the model reads the words", async () => {
    const log = path.join(tempDir("lockstep-details-log-"), "tools.log");
    const { root, env } = await setUp(
      [{ calls: [{ name: "mcp__docs__shout", args: { text: "loud" } }] }, { text: "Understood." }],
      { docs: { command: process.execPath, args: [TOOLS], env: { TOOLS_LOG: log } } },
    );
    const term = onTerminal(process.execPath, [BIN, "ask", "shout"], { cwd: root, env });
    await term.waitFor("always this [s]erver: ");
    term.write("r");
    await term.waitFor("Why not?");
    term.write("whisper it\r");
    await term.exited;
    expect(term.text()).toContain("Rejected: the tool was not called; the model is told why.");
    expect(toolResult(fake!.requests[1])).toContain("whisper it");
    expect(existsSync(log) ? readFileSync(log, "utf8") : "").not.toContain("shout");
  }, 120_000);
});
