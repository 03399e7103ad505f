// The wrapped server's life under lockstep: killed mid-session it is restarted
// (at most three times) with the editor's unsaved buffers re-opened in it; past
// that, its requests are answered at once with an error while lockstep's own
// features go on; a server that cannot start is named once; and nothing is left
// running after the editor's exit, or after lockstep itself is killed.
import { spawn, spawnSync } from "node:child_process";
import type { Hover, ShowMessageParams } from "vscode-languageserver-protocol";
import { afterEach, describe, expect, it } from "vitest";
import {
  cleanup,
  createWorkspace,
  launch,
  removeWorkspace,
  serverEntry,
  type TestClient,
} from "../support/lsp-client.js";
import {
  alive,
  childPid,
  descendants,
  eventually,
  launchWrapped,
  sleep,
  TS_FILES,
  WRAP,
} from "./wrap-support.js";

afterEach(cleanup);

const errorsShown = (client: TestClient): string[] =>
  client.notifications
    .filter((n) => n.method === "window/showMessage" && (n.params as ShowMessageParams).type === 1)
    .map((n) => (n.params as ShowMessageParams).message);

/** What lockstep.session says of the wrapped server. */
async function wrapped(client: TestClient): Promise<unknown> {
  const session = await client.command("session", {});
  return session.ok ? session.data["wrapped"] : session;
}

async function hoverText(client: TestClient, rel: string, character: number): Promise<string> {
  const hover = await client.request<Hover | null>("textDocument/hover", {
    textDocument: { uri: client.uri(rel) },
    position: { line: 0, character },
  });
  return JSON.stringify(hover?.contents ?? null);
}

describe("wrap mode: the child's life", () => {
  it("restarts a killed child with the unsaved buffer re-opened, at most 3 times; then answers its requests at once and keeps lockstep's own", async () => {
    const client = await launchWrapped();
    await client.open("src/a.ts", undefined, "typescript");
    // Unsaved typing: only a child that was given the buffer again knows this name.
    await client.type("src/a.ts", "count", "tally");
    expect(await hoverText(client, "src/a.ts", 14)).toContain("tally: number");

    expect(await wrapped(client)).toEqual({
      server: "typescript-language-server",
      state: "running",
      restarts: 0,
    });
    for (let death = 1; death <= 3; death++) {
      const pid = await childPid(client);
      process.kill(pid, "SIGKILL");
      await eventually(() => errorsShown(client).length === death, `message ${death}`);
      expect(errorsShown(client)[death - 1]).toMatch(
        /typescript-language-server stopped: .*Restarting it\./s,
      );
      await eventually(() => descendants(client.pid).some((p) => p !== pid), "the restarted child");
      expect(await hoverText(client, "src/a.ts", 14)).toContain("tally: number");
      expect(await wrapped(client)).toEqual({
        server: "typescript-language-server",
        state: "running",
        restarts: death,
        reason: "restarted after it was killed by SIGKILL",
      });
    }

    // The fourth death in three minutes is the last.
    process.kill(await childPid(client), "SIGKILL");
    await eventually(() => errorsShown(client).length === 4, "the last message");
    expect(errorsShown(client)[3]).toContain("lockstep's own features keep working");
    const started = Date.now();
    await expect(
      client.request("textDocument/hover", {
        textDocument: { uri: client.uri("src/a.ts") },
        position: { line: 0, character: 14 },
      }),
    ).rejects.toThrow(/is not running/);
    // At once, not held for a restart that will not come: tens of ms; 5 s is room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await client.command("read_file", { file_path: "src/a.ts" })).toMatchObject({
      ok: true,
      data: { content: "export const tally: number = 1;\n" },
    });
    await client.type("src/a.ts", "tally", "total");
    expect(await client.command("read_file", { file_path: "src/a.ts" })).toMatchObject({
      ok: true,
      data: { content: "export const total: number = 1;\n" },
    });
    expect(await wrapped(client)).toEqual({
      server: "typescript-language-server",
      state: "failed",
      restarts: 3,
      reason: "it was killed by SIGKILL",
      missing: expect.arrayContaining(["hover", "completion", "definition", "diagnostics"]) as string[],
    });
    // Nothing the dead server said stands.
    expect(await client.command("get_diagnostics", {})).toMatchObject({ ok: true, data: { files: [] } });
    await sleep(300);
    expect(errorsShown(client)).toHaveLength(4);
  }, 90_000);

  it("answers a request the child was working on when it died, instead of leaving the editor waiting", async () => {
    const client = await launchWrapped();
    await client.open("src/a.ts", undefined, "typescript");
    const pid = await childPid(client);
    // Stop the child so it cannot answer, send a request, then kill it.
    process.kill(pid, "SIGSTOP");
    const pending = client.request("textDocument/hover", {
      textDocument: { uri: client.uri("src/a.ts") },
      position: { line: 0, character: 14 },
    });
    // lockstep routes the editor's messages in order: once it answers a later one, the hover went to the child
    // (a hover that reached lockstep only after the kill would be held for the restarted child, and answered).
    expect(await client.command("read_file", { file_path: "src/a.ts" })).toMatchObject({ ok: true });
    process.kill(pid, "SIGKILL");
    await expect(pending).rejects.toThrow(/typescript-language-server is not running/);
    await eventually(() => errorsShown(client).length === 1, "the message");
  }, 60_000);

  it("names a server that cannot start, once, with its error, and serves lockstep's own features", async () => {
    const client = await launch(TS_FILES, {
      style: "helix",
      args: ["--wrap", "--", "/nonexistent/language-server", "--stdio"],
      initializationOptions: { lockstep: { approval: "auto" } },
    });
    expect(client.initializeResult!.serverInfo?.name).toBe("lockstep");
    await eventually(() => errorsShown(client).length === 1, "the message");
    expect(await wrapped(client)).toMatchObject({
      server: "language-server",
      state: "failed",
      restarts: 0,
      reason:
        "it did not initialize: it could not be started (/nonexistent/language-server: no such command)",
    });
    expect(errorsShown(client)[0]).toMatch(/language-server.*(ENOENT|not|could not)/s);
    await client.open("src/a.ts", undefined, "typescript");
    expect(await client.command("read_file", { file_path: "src/a.ts" })).toMatchObject({
      ok: true,
      data: { version: 1 },
    });
    await expect(
      client.request("textDocument/hover", {
        textDocument: { uri: client.uri("src/a.ts") },
        position: { line: 0, character: 14 },
      }),
    ).rejects.toThrow(/is not running/);
    await sleep(300);
    expect(errorsShown(client)).toHaveLength(1);
  }, 60_000);

  it("leaves no process behind after shutdown and exit", async () => {
    const client = await launchWrapped();
    await client.open("src/a.ts", undefined, "typescript");
    await hoverText(client, "src/a.ts", 14);
    const family = descendants(client.pid);
    expect(family.length).toBeGreaterThan(0);
    expect(await client.shutdown(10_000)).toBe(0);
    await eventually(() => family.every((p) => !alive(p)), "every process under lockstep to end", 20_000);
  }, 60_000);

  it("leaves no process behind when lockstep itself is killed", async () => {
    const client = await launchWrapped();
    await client.open("src/a.ts", undefined, "typescript");
    await hoverText(client, "src/a.ts", 14);
    const family = descendants(client.pid);
    await client.kill();
    // The child reads the end of its input and goes.
    await eventually(() => family.every((p) => !alive(p)), "every process under lockstep to end", 20_000);
  }, 60_000);

  it("stops with the editor's broken frame named, and its child with it", async () => {
    const root = await createWorkspace(TS_FILES);
    const lockstep = spawn(process.execPath, [serverEntry(), "--stdio", ...WRAP], {
      cwd: root,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    lockstep.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((resolve) => lockstep.on("exit", resolve));
    // The child is up before the broken frame arrives.
    await eventually(() => descendants(lockstep.pid!).length > 0, "the wrapped server to start");
    const family = descendants(lockstep.pid!);
    lockstep.stdin.write("Content-Type: text/plain\r\n\r\n{}");
    expect(await exited).toBe(1);
    expect(stderr).toContain("broken header");
    await eventually(() => family.every((p) => !alive(p)), "the wrapped server to end", 20_000);
    await removeWorkspace(root);
  }, 60_000);

  it("--wrap without a command is a usage error naming what to write", () => {
    for (const args of [["--wrap"], ["--wrap", "--"]]) {
      const run = spawnSync(process.execPath, [serverEntry(), "--stdio", ...args], {
        encoding: "utf8",
        input: "",
      });
      expect(run.status).toBe(2);
      expect(run.stderr).toContain("--wrap -- ");
    }
  });
});
