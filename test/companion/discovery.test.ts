// Discovery files in-process (TMPDIR points at a scratch folder for this file):
// which sessions `lockstep mcp` finds, which stale files a start removes, and the
// editor's name as gemini-cli will show it.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import {
  discoveryDir,
  findSessions,
  ideInfoOf,
  sweepStale,
  writeDiscovery,
  type DiscoveryFile,
} from "../../server/src/companion/discovery.js";

const scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-discovery-")));
const savedTmp = process.env["TMPDIR"];
process.env["TMPDIR"] = scratch;
afterAll(() => {
  if (savedTmp === undefined) delete process.env["TMPDIR"];
  else process.env["TMPDIR"] = savedTmp;
  rmSync(scratch, { recursive: true, force: true });
});
beforeEach(() => rmSync(path.join(scratch, "gemini"), { recursive: true, force: true }));

/** A PID that was alive a moment ago and is not any more. */
const deadPid = (): number =>
  spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  }).stdout.trim() as unknown as number;

function info(port: number, workspacePath: string, pid = process.pid): DiscoveryFile {
  return {
    port,
    workspacePath,
    authToken: `token-${port}`,
    ideInfo: { name: "neovim", displayName: "Neovim" },
    lockstep: { pid, version: "test" },
  };
}

describe("discovery files", () => {
  it("are written 0600 in <tmpdir>/gemini/ide under the editor's PID and the port", async () => {
    const file = await writeDiscovery(4242, info(50001, "/w"));
    expect(file).toBe(path.join(scratch, "gemini", "ide", "gemini-ide-server-4242-50001.json"));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(discoveryDir()).toBe(path.dirname(file));
  });

  it("are found for a directory inside the workspace, the --port one first, never a dead server's", async () => {
    const ws = realpathSync(mkdtempSync(path.join(scratch, "ws-")));
    mkdirSync(path.join(ws, "src"));
    const other = realpathSync(mkdtempSync(path.join(scratch, "other-")));
    await writeDiscovery(1, info(50001, ws));
    await writeDiscovery(2, info(50002, [other, ws].join(path.delimiter)));
    await writeDiscovery(3, info(50003, ws, Number(deadPid())));
    await writeDiscovery(4, info(50004, other));
    const found = await findSessions(path.join(ws, "src"));
    expect(found.map((f) => f.info.port).sort()).toEqual([50001, 50002]);
    expect((await findSessions(path.join(ws, "src"), 50002)).map((f) => f.info.port)).toEqual([50002]);
    expect(await findSessions(path.join(ws, "src"), 50004)).toEqual([]);
    expect(await findSessions(os.homedir() === ws ? "/" : scratch)).toEqual([]);
  });

  it("of dead lockstep servers are removed by the next start; live ones and other companions' stay", async () => {
    const dead = await writeDiscovery(5, info(50005, "/w", Number(deadPid())));
    const live = await writeDiscovery(6, info(50006, "/w"));
    const foreign = path.join(discoveryDir(), "gemini-ide-server-7-50007.json");
    writeFileSync(
      foreign,
      JSON.stringify({
        port: 50007,
        workspacePath: "/w",
        authToken: "x",
        ideInfo: { name: "vscode", displayName: "VS Code" },
      }),
      { mode: 0o600 },
    );
    expect(await sweepStale()).toEqual([dead]);
    expect([existsSync(dead), existsSync(live), existsSync(foreign)]).toEqual([false, true, true]);
  });

  it("temporary files of writers that are gone are swept, with the stale files; a live writer's and other files stay", async () => {
    const live = await writeDiscovery(8, info(50008, "/w"));
    const dir = discoveryDir();
    const deadTemporary = path.join(dir, `.lockstep-${Number(deadPid())}-00aa11bb22cc.tmp`);
    const liveTemporary = path.join(dir, `.lockstep-${process.ppid}-00aa11bb22cc.tmp`);
    const other = path.join(dir, ".other-companion.tmp");
    for (const f of [deadTemporary, liveTemporary, other])
      writeFileSync(f, JSON.stringify(info(1, "/w")), { mode: 0o600 });
    expect(await sweepStale()).toEqual([deadTemporary]);
    expect([
      existsSync(deadTemporary),
      existsSync(liveTemporary),
      existsSync(other),
      existsSync(live),
    ]).toEqual([false, true, true, true]);
  });

  it("lockstep mcp's lookup sweeps the dead servers' files it comes across", async () => {
    const ws = realpathSync(mkdtempSync(path.join(scratch, "ws-")));
    const dead = await writeDiscovery(9, info(50009, ws, Number(deadPid())));
    expect(await findSessions(ws)).toEqual([]);
    expect(existsSync(dead)).toBe(false);
  });

  it("the directory is made enterable by its owner only, even when it existed open to others", async () => {
    mkdirSync(discoveryDir(), { recursive: true });
    chmodSync(discoveryDir(), 0o755);
    await writeDiscovery(10, info(50010, "/w"));
    expect(statSync(discoveryDir()).mode & 0o777).toBe(0o700);
  });

  it("a write that fails leaves no temporary file behind", async () => {
    mkdirSync(path.join(discoveryDir(), "gemini-ide-server-11-50011.json"), { recursive: true }); // the rename cannot replace a directory
    await expect(writeDiscovery(11, info(50011, "/w"))).rejects.toThrow();
    expect(readdirSync(discoveryDir()).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("name the editor from LSP's clientInfo, with a fallback when it sends none", () => {
    expect(ideInfoOf("Neovim")).toEqual({ name: "neovim", displayName: "Neovim" });
    expect(ideInfoOf("Emacs Eglot")).toEqual({ name: "emacs-eglot", displayName: "Emacs Eglot" });
    expect(ideInfoOf(undefined)).toEqual({ name: "lsp-editor", displayName: "LSP editor" });
    expect(ideInfoOf("  ")).toEqual({ name: "lsp-editor", displayName: "LSP editor" });
  });
});
