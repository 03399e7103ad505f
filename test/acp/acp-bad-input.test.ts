// Bad input to `lockstep acp`: malformed messages, an unknown session, a prompt
// while a turn runs, a cwd that does not exist, paths outside the cwd from the
// client or the model. Each is a clear error, and nothing is written.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { methods } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, closeAll, contentText, startEditor } from "./scripted-editor.js";

afterEach(closeAll);

describe("lockstep acp refuses bad input clearly", () => {
  it("answers a malformed line with a parse error and keeps serving", async () => {
    const child = spawn(process.execPath, [BIN, "acp"], { stdio: ["pipe", "pipe", "pipe"] });
    const lines = createInterface({ input: child.stdout });
    const replies: Record<string, unknown>[] = [];
    const next = (): Promise<Record<string, unknown>> =>
      new Promise((resolve) => {
        const take = (): void => (replies.length > 0 ? resolve(replies.shift()!) : void setTimeout(take, 10));
        take();
      });
    lines.on("line", (l) => replies.push(JSON.parse(l) as Record<string, unknown>));
    try {
      child.stdin.write("{this is not json\n");
      child.stdin.write(
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/" } }) + "\n",
      );
      child.stdin.write(
        JSON.stringify({ jsonrpc: "2.0", id: 2, method: "initialize", params: { protocolVersion: "one" } }) +
          "\n",
      );
      child.stdin.write(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 3,
          method: "initialize",
          params: { protocolVersion: 7, clientCapabilities: {} },
        }) + "\n",
      );
      const answers = [await next(), await next(), await next(), await next()];
      expect(answers[0]).toMatchObject({ id: null, error: { code: -32700 } });
      expect(answers[1]).toMatchObject({
        id: 1,
        error: { message: expect.stringMatching(/initialized before/) },
      });
      expect(answers[2]).toMatchObject({ id: 2, error: { code: -32602 } });
      // A newer version than lockstep speaks: it answers with its own (1), and the client decides.
      expect(answers[3]).toMatchObject({
        id: 3,
        result: {
          protocolVersion: 1,
          agentCapabilities: { promptCapabilities: { embeddedContext: true, image: false } },
        },
      });
      // The editor closing the pipe ends the process, cleanly.
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      child.stdin.end();
      expect(await exited).toBe(0);
    } finally {
      child.kill();
    }
  });

  it("names an unknown session, a cwd that does not exist and a relative one", async () => {
    const editor = await startEditor();
    await expect(
      editor.conn.agent.request(methods.agent.session.prompt, {
        sessionId: "no-such-session",
        prompt: [{ type: "text", text: "hi" }],
      }),
    ).rejects.toThrow(/No session no-such-session.*session\/new/);
    const missing = path.join(editor.root, "not-here");
    await expect(
      editor.conn.agent.request(methods.agent.session.new, { cwd: missing, mcpServers: [] }),
    ).rejects.toThrow(/does not exist/);
    await expect(
      editor.conn.agent.request(methods.agent.session.new, { cwd: "relative/dir", mcpServers: [] }),
    ).rejects.toThrow(/absolute/);
    await expect(
      editor.conn.agent.request(methods.agent.session.setConfigOption, {
        sessionId: await editor.newSession(),
        configId: "approval",
        value: "sometimes",
      }),
    ).rejects.toThrow(/approval takes ask, auto/);
  });

  it("answers authenticate by checking the provider's key variable, and names it when it is not set", async () => {
    const editor = await startEditor({
      env: { GEMINI_API_KEY: "", GOOGLE_API_KEY: "", LOCKSTEP_API_KEY_ENV: "" },
    });
    const init = await editor.conn.agent.request(methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    expect(init.authMethods).toEqual([
      expect.objectContaining({ id: "api-key", name: "API key in GEMINI_API_KEY or GOOGLE_API_KEY" }),
    ]);
    await expect(
      editor.conn.agent.request(methods.agent.authenticate, { methodId: "api-key" }),
    ).rejects.toThrow(/GEMINI_API_KEY or GOOGLE_API_KEY is not set/);
    const keyed = await startEditor({ env: { GEMINI_API_KEY: "test-key-value-123" } });
    await expect(
      keyed.conn.agent.request(methods.agent.authenticate, { methodId: "api-key" }),
    ).resolves.toBeDefined();
    // Every variable a prompt reads the key from: GOOGLE_API_KEY too.
    const google = await startEditor({
      env: { GEMINI_API_KEY: "", GOOGLE_API_KEY: "test-key-value-456", LOCKSTEP_API_KEY_ENV: "" },
    });
    await expect(
      google.conn.agent.request(methods.agent.authenticate, { methodId: "api-key" }),
    ).resolves.toBeDefined();
  });

  it("refuses a prompt while a turn runs, and the running turn goes on", async () => {
    const editor = await startEditor({
      turns: [{ text: ["slow ", "answer"] }],
      env: { LOCKSTEP_REPLAY_DELAY_MS: "300" },
    });
    const sessionId = await editor.newSession();
    const first = editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "one" }],
    });
    await editor.waitForUpdate((u) => u.update.sessionUpdate === "agent_message_chunk");
    await expect(
      editor.conn.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "two" }],
      }),
    ).rejects.toThrow(/already running.*cancel/);
    expect((await first).stopReason).toBe("end_turn");
  });

  it("refuses paths outside the cwd, from the client's prompt and from the model, writing nothing", async () => {
    const outsideDir = mkdtempSync(path.join(os.tmpdir(), "lockstep-acp-outside-"));
    const outside = path.join(outsideDir, "secret.txt");
    writeFileSync(outside, "secret\n");
    try {
      const editor = await startEditor({
        files: { "a.ts": "x\n" },
        turns: [
          {
            calls: [
              { name: "read_file", args: { file_path: outside } },
              {
                name: "write_file",
                args: { file_path: path.join(outsideDir, "new.txt"), content: "pwned\n" },
              },
              { name: "write_file", args: { file_path: "../escape.txt", content: "pwned\n" } },
            ],
          },
          { text: ["ok"] },
        ],
      });
      const sessionId = await editor.newSession();
      await expect(
        editor.conn.agent.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "resource_link", uri: `file://${outside}`, name: "secret.txt" }],
        }),
      ).rejects.toThrow(/outside|inside the session's cwd/);
      expect(editor.reads).toEqual([]);

      await editor.conn.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "go" }],
      });
      await editor.waitForUpdate((u) => u.update.sessionUpdate === "agent_message_chunk");
      const ends = editor.updates.filter(
        (u) => u.update.sessionUpdate === "tool_call_update" && u.update.status === "failed",
      );
      expect(ends).toHaveLength(3);
      for (const e of ends) expect(contentText(e)).toMatch(/permission_denied|outside/);
      expect(editor.reads).toEqual([]);
      expect(editor.writes).toEqual([]);
      expect(existsSync(path.join(outsideDir, "new.txt"))).toBe(false);
      expect(existsSync(path.join(path.dirname(editor.root), "escape.txt"))).toBe(false);
      expect(readFileSync(outside, "utf8")).toBe("secret\n");
    } finally {
      rmSync(outsideDir, { recursive: true, force: true });
    }
  });
});
