// The discovery file lives exactly as long as its server: removed on shutdown,
// when the editor goes away, on SIGTERM; after a SIGKILL the next start removes it.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { companionFacts, discoveryDirIn, fileGone, readDiscovery } from "../support/companion-client.js";
import { eventually } from "../support/poll.js";
import { cleanup, launch, type TestClient } from "../support/lsp-client.js";
import { spawnSync } from "node:child_process";

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-lifecycle-")));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(cleanup);

async function started(): Promise<{ client: TestClient; file: string }> {
  const client = await launch({ "a.txt": "a\n" }, { style: "helix", env: { TMPDIR: tmp } });
  const port = Number((await companionFacts(client))["port"]);
  const { file } = await readDiscovery(tmp, process.pid, port);
  expect(existsSync(file)).toBe(true);
  return { client, file };
}

describe("the discovery file's life", () => {
  it("is removed on shutdown and exit", async () => {
    const { client, file } = await started();
    expect(await client.shutdown()).toBe(0);
    expect(existsSync(file)).toBe(false);
  });

  it("is removed when the editor goes away without a word (its pipes close)", async () => {
    const { client, file } = await started();
    await client.disconnect();
    expect(existsSync(file)).toBe(false);
  });

  it("is removed on SIGTERM", async () => {
    const { client, file } = await started();
    process.kill(client.pid, "SIGTERM");
    await eventually(fileGone(file), "the discovery file to go after SIGTERM");
  });

  it("outlives a SIGKILL, and the next start removes it; other companions' files are left alone", async () => {
    const { client, file } = await started();
    await client.kill();
    expect(existsSync(file)).toBe(true);
    // A file in the same folder from another companion (no lockstep mark): never ours to remove.
    const foreign = path.join(discoveryDirIn(tmp), "gemini-ide-server-999999-1234.json");
    mkdirSync(path.dirname(foreign), { recursive: true });
    writeFileSync(
      foreign,
      JSON.stringify({
        port: 1234,
        workspacePath: "/",
        authToken: "x",
        ideInfo: { name: "vscode", displayName: "VS Code" },
      }),
      { mode: 0o600 },
    );
    const next = await started();
    expect(existsSync(file)).toBe(false);
    expect(existsSync(foreign)).toBe(true);
    expect(existsSync(next.file)).toBe(true);
  });

  it("a temporary file a killed writer left (holding a token) is removed at the next start; a dead server's file planted later, at exit", async () => {
    const dead = Number(
      spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" })
        .stdout,
    );
    mkdirSync(discoveryDirIn(tmp), { recursive: true });
    const temporary = path.join(discoveryDirIn(tmp), `.lockstep-${dead}-0a1b2c3d4e5f.tmp`);
    writeFileSync(
      temporary,
      JSON.stringify({ port: 1, authToken: "f".repeat(64), lockstep: { pid: dead } }),
      { mode: 0o600 },
    );
    const { client } = await started();
    expect(existsSync(temporary)).toBe(false);
    // A server that dies with SIGKILL while this one runs: its file goes when this one exits.
    const stale = path.join(discoveryDirIn(tmp), "gemini-ide-server-4-50004.json");
    writeFileSync(
      stale,
      JSON.stringify({
        port: 50004,
        workspacePath: "/",
        authToken: "t",
        ideInfo: { name: "x", displayName: "X" },
        lockstep: { pid: dead, version: "0" },
      }),
      { mode: 0o600 },
    );
    expect(await client.shutdown()).toBe(0);
    expect(existsSync(stale)).toBe(false);
  });
});
