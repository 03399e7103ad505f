// `lockstep ask` when its spawned server dies mid-request: it exits 1 and says so,
// with the end of the server's stderr. It used to print nothing and exit 0 (the
// request waited for ever, and with nothing left to run the process ended).
import { execFileSync, spawn } from "node:child_process";
import { cp, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const BIN = path.resolve("bin/lockstep.js");
const SESSION = path.resolve("demo/session.json");
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** The pids of `pid`'s children (Linux's /proc, through pgrep). */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

describe("lockstep ask and a server that dies", () => {
  it(
    "exits 1 naming the server's end when the server dies while a request waits on it",
    { timeout: 60_000 },
    async () => {
      const root = await mkdtemp(path.join(os.tmpdir(), "lockstep-ask-exit-"));
      dirs.push(root);
      await cp(path.resolve("demo/project"), root, { recursive: true });
      const ask = spawn(process.execPath, [BIN, "ask", "--root", root, "--replay", SESSION, "fix median"], {
        env: { ...process.env, GEMINI_API_KEY: "" },
        stdio: ["pipe", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      ask.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      ask.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => ask.once("exit", (code) => resolve(code)));
      // The server is stopped as soon as it is spawned, before it can answer initialize; then killed.
      let server: number | undefined;
      while (server === undefined && ask.exitCode === null) {
        server = childrenOf(ask.pid!)[0];
        if (server === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(server).toBeDefined();
      process.kill(server!, "SIGSTOP");
      process.kill(server!, "SIGKILL");
      expect(await exited).toBe(1);
      expect(stderr).toMatch(/lockstep ask: the language server exited \(SIGKILL\) before the run ended/);
      expect(stdout).toBe("");
    },
  );
});
