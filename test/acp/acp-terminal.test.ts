// run_command over ACP with a client that offers `terminal`: the allowed command runs through
// terminal/create (the client's process, for real), in the same bubblewrap sandbox and without
// the key variables, embedded in the execute tool call; its output and exit reach the model; a
// timeout and a cancel kill it through terminal/kill; the terminal is always released. A client
// without `terminal` gets the output as the call's content, and no terminal/* is sent.
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { methods, type SessionNotification } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { closeAll, contentText, startEditor } from "./scripted-editor.js";

const dirs: string[] = [];
afterEach(async () => {
  await closeAll();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const run = (command: string, timeout_ms?: number) => ({
  calls: [{ name: "run_command", args: { command, ...(timeout_ms ? { timeout_ms } : {}) } }],
});
const SECRET = "sk-test-0123456789abcdef0123456789";
const env = { LOCKSTEP_SANDBOX: "on", OPENAI_API_KEY: SECRET };

const ended = (u: SessionNotification): boolean =>
  u.update.sessionUpdate === "tool_call_update" &&
  (u.update.status === "completed" || u.update.status === "failed");

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("lockstep acp runs commands in the client's terminal when it offers one", () => {
  it("asks, then runs through terminal/create in the sandbox, embedded in the call; output and exit reach the result", async () => {
    const outside = realpathSync(mkdtempSync(path.join(os.homedir(), ".lockstep-outside-")));
    dirs.push(outside);
    const command = `echo "hello [$OPENAI_API_KEY]"; echo in > inside.txt; echo out > ${outside}/x.txt; exit 3`;
    const editor = await startEditor({
      terminal: true,
      env,
      turns: [run(command), { text: ["ran"] }],
      permission: () => "allow_once",
    });
    const sessionId = await editor.newSession();
    const answer = await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "run it" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    expect(editor.permissions).toHaveLength(1);
    const methodsCalled = editor.terminals.calls.map((c) => c.method);
    expect(methodsCalled[0]).toBe("create");
    expect(methodsCalled).toContain("wait_for_exit");
    expect(methodsCalled.at(-1)).toBe("release");
    // The same sandbox and environment: bubblewrap inside `env -u` for every key variable.
    const create = editor.terminals.calls[0]!.params as { command: string; args: string[]; cwd: string };
    expect(path.basename(create.command)).toBe("env");
    expect(create.args.join(" ")).toContain("-u OPENAI_API_KEY");
    expect(create.args.some((a) => a.endsWith("bwrap"))).toBe(true);
    expect(create.cwd).toBe(editor.root);
    // Inside the root a write lands; outside it does not.
    expect(existsSync(path.join(editor.root, "inside.txt"))).toBe(true);
    expect(existsSync(path.join(outside, "x.txt"))).toBe(false);

    const call = await editor.waitForUpdate(
      (u) => u.update.sessionUpdate === "tool_call" && u.update.kind === "execute",
    );
    const id = (call.update as { toolCallId: string }).toolCallId;
    const terminalId = "term-1";
    await editor.waitForUpdate(
      (u) =>
        u.update.sessionUpdate === "tool_call_update" &&
        u.update.toolCallId === id &&
        (u.update.content ?? []).some((c) => c.type === "terminal" && c.terminalId === terminalId),
    );
    const end = await editor.waitForUpdate(
      (u) => ended(u) && (u.update as { toolCallId: string }).toolCallId === id,
    );
    // The terminal stays in the call; the words say how it ended; the output is the terminal's.
    expect((end.update as { content: { type: string }[] }).content[0]).toEqual({
      type: "terminal",
      terminalId,
    });
    expect(contentText(end)).toContain("exited with code 3");
    const raw = JSON.stringify((end.update as { rawOutput?: unknown }).rawOutput);
    expect(raw).toContain("hello []");
    expect(raw).not.toContain(SECRET);
    expect(raw).toContain('"sandboxed":true');
  });

  it("a credential-shaped token in the terminal's output is redacted as a local run redacts it", async () => {
    const token = `ghp_${"A1b2C3d4E5".repeat(4).slice(0, 36)}`;
    const editor = await startEditor({
      terminal: true,
      env,
      turns: [run(`echo "token: ${token}"`), { text: ["ran"] }],
      permission: () => "allow_once",
    });
    const sessionId = await editor.newSession();
    await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "run it" }],
    });
    expect(editor.terminals.calls[0]?.method).toBe("create");
    const end = await editor.waitForUpdate(ended);
    const result = (end.update as { rawOutput?: { data?: { output?: string } } }).rawOutput;
    expect(result?.data?.output).toContain("token: ");
    expect(result?.data?.output).not.toContain(token);
  });

  it("a timeout kills the command through terminal/kill, and the result says it timed out", async () => {
    const editor = await startEditor({
      terminal: true,
      env,
      args: ["--approval", "auto"],
      turns: [run("echo started; sleep 60", 1500), { text: ["stopped"] }],
      permission: () => "allow_once",
    });
    const sessionId = await editor.newSession();
    await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "run it" }],
    });
    const end = await editor.waitForUpdate(ended);
    expect(editor.terminals.calls.map((c) => c.method)).toEqual(
      expect.arrayContaining(["create", "kill", "output", "release"]),
    );
    expect(contentText(end)).toMatch(/timed out/);
    expect(JSON.stringify((end.update as { rawOutput?: unknown }).rawOutput)).toContain("started");
    for (const pid of editor.terminals.pids) expect(alive(pid)).toBe(false);
  });

  it("a cancel answers cancelled, and kills and releases the terminal", async () => {
    const editor = await startEditor({
      terminal: true,
      env,
      turns: [run("sleep 60"), { text: ["never"] }],
      permission: () => "allow_once",
    });
    const sessionId = await editor.newSession();
    const prompt = editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "run it" }],
    });
    await editor.waitForUpdate(
      (u) =>
        u.update.sessionUpdate === "tool_call_update" &&
        (u.update.content ?? []).some((c) => c.type === "terminal"),
    );
    const cancelledAt = performance.now();
    await editor.conn.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    const deadline = Date.now() + 10_000;
    while (!editor.terminals.calls.some((c) => c.method === "release") && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(editor.terminals.calls.map((c) => c.method)).toEqual(expect.arrayContaining(["kill", "release"]));
    // Killed within a second of the cancel.
    const kill = editor.terminals.calls.find((c) => c.method === "kill")!;
    expect(kill.at - cancelledAt).toBeLessThan(1000);
    for (const pid of editor.terminals.pids) expect(alive(pid)).toBe(false);
  });

  it("a client without `terminal`: lockstep runs it, the output is the call's content, no terminal/*", async () => {
    const editor = await startEditor({
      env,
      turns: [run("echo plain output"), { text: ["ran"] }],
      permission: () => "allow_once",
    });
    const sessionId = await editor.newSession();
    await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "run it" }],
    });
    const end = await editor.waitForUpdate(ended);
    expect(contentText(end)).toContain("plain output");
    expect(contentText(end)).not.toContain('"terminal"');
    expect(editor.wire.some((m) => String(m["method"] ?? "").startsWith("terminal/"))).toBe(false);
  });
});
