// `lockstep mcp` as Claude Code or Codex run it: a process on stdio, spoken to
// with the real MCP SDK client. With an editor session holding the directory it
// relays to it (the unsaved buffer, its version); without one it serves the disk.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { companionFacts, serverCaughtUp } from "../support/companion-client.js";
import { cleanup, createWorkspace, launch, sha256, stateOf, type Envelope } from "../support/lsp-client.js";

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-mcp-stdio-")));
const BIN = path.resolve(import.meta.dirname, "../../bin/lockstep.js");
const clients: Client[] = [];
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await cleanup();
});

const TEXT = "line one\nline two\n";

async function mcp(
  cwd: string,
  args: string[] = [],
): Promise<{ client: Client; call(name: string, a: Record<string, unknown>): Promise<Envelope> }> {
  const client = new Client({ name: "claude-code", version: "1.0.0" });
  clients.push(client);
  const env: Record<string, string> = { ...(process.env as Record<string, string>), TMPDIR: tmp };
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", ...args],
    cwd,
    env,
    stderr: "pipe",
  });
  transport.stderr?.on("data", () => undefined); // drained: its one line says where it relays
  await client.connect(transport);
  return {
    client,
    call: async (name, a) => {
      const result = await client.callTool({ name, arguments: a });
      return JSON.parse((result.content as { text: string }[])[0]!.text) as Envelope;
    },
  };
}

describe("lockstep mcp", () => {
  it("relays to the editor session whose workspace holds the directory: the unsaved buffer, and a stale write refused", async () => {
    const editor = await launch({ "src/notes.txt": TEXT }, { style: "helix", env: { TMPDIR: tmp } });
    await companionFacts(editor);
    await editor.open("src/notes.txt");
    await serverCaughtUp(editor);
    const agent = await mcp(path.join(editor.root, "src"));
    expect(agent.client.getInstructions()).toMatch(/editor session helix/);
    expect((await agent.client.listTools()).tools.map((t) => t.name)).toContain("openDiff");
    const read = await agent.call("read_file", { file_path: editor.path("src/notes.txt") });
    expect(stateOf(read)).toMatchObject({ version: 1, sha256: sha256(TEXT) });
    await editor.type("src/notes.txt", "line two", "line 2 (unsaved)");
    await serverCaughtUp(editor);
    const stale = await agent.call("write_file", {
      file_path: "src/notes.txt",
      content: "replaced\n",
      base_content_sha256: sha256(TEXT),
    });
    expect(stale).toMatchObject({ ok: false, error: { code: "state_mismatch" } });
    expect(stateOf(stale)).toMatchObject({ version: 2, content: "line one\nline 2 (unsaved)\n" });
    expect(readFileSync(editor.path("src/notes.txt"), "utf8")).toBe(TEXT);
  });

  it("answers with what to do once the editor session it relays to is gone", async () => {
    const editor = await launch({ "notes.txt": TEXT }, { style: "helix", env: { TMPDIR: tmp } });
    await companionFacts(editor);
    const agent = await mcp(editor.root);
    expect(stateOf(await agent.call("read_file", { file_path: "notes.txt" }))).toMatchObject({
      sha256: sha256(TEXT),
    });
    await editor.kill();
    await expect(agent.call("read_file", { file_path: "notes.txt" })).rejects.toThrow(
      /editor session on port \d+ is gone.*Restart lockstep mcp/,
    );
  });

  it("serves the disk without an editor session, says so, and still enforces the sha256 lock", async () => {
    const root = await createWorkspace({ "notes.txt": TEXT });
    const agent = await mcp(root);
    expect(agent.client.getInstructions()).toMatch(/files on disk.*no editor session/s);
    expect((await agent.client.listTools()).tools.map((t) => t.name)).not.toContain("openDiff");
    const read = await agent.call("read_file", { file_path: "notes.txt" });
    expect(stateOf(read)).toMatchObject({ version: null, sha256: sha256(TEXT) });
    expect(
      await agent.call("write_file", {
        file_path: "notes.txt",
        content: "x\n",
        base_content_sha256: sha256("something else"),
      }),
    ).toMatchObject({ ok: false, error: { code: "state_mismatch" } });
    expect(
      await agent.call("write_file", {
        file_path: "notes.txt",
        content: "x\n",
        base_content_sha256: sha256(TEXT),
      }),
    ).toMatchObject({ ok: true });
    expect(readFileSync(path.join(root, "notes.txt"), "utf8")).toBe("x\n");
  });

  it("says which session is missing when --port names none, and refuses a port that is not a number", async () => {
    const root = await createWorkspace({ "notes.txt": TEXT });
    const env = { ...process.env, TMPDIR: tmp };
    const missing = spawnSync(process.execPath, [BIN, "mcp", "--port", "1"], {
      cwd: root,
      env,
      input: "",
      encoding: "utf8",
    });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/no editor session on port 1 whose workspace holds/);
    const bad = spawnSync(process.execPath, [BIN, "mcp", "--port", "abc"], {
      cwd: root,
      env,
      input: "",
      encoding: "utf8",
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--port takes a port number \(got abc\)/);
  });
});
