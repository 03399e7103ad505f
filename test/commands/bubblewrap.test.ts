// The sandbox for real, through bubblewrap: a write inside the root lands, a write outside it
// and into .git is refused, the host's /tmp is not the command's, a loopback port is out of reach
// (and in reach with the network allowed, so the check can fail), a timeout and a child that left
// the process group leave nothing running. Skipped, saying why, only where bwrap is missing.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  probeBubblewrap,
  runCommand,
  type RunRequest,
  type SandboxBackend,
} from "../../server/src/commands/index.js";
import { eventually, request, scratchRoot } from "./run-support.js";

const probe = await probeBubblewrap();
const title =
  probe.kind === "available" ? "bubblewrap sandbox" : `bubblewrap sandbox (skipped: ${probe.reason})`;

/** A directory outside both the root and /tmp (which the sandbox replaces with its own). */
const outside = mkdtempSync(path.join(process.cwd(), ".test-outside-"));
afterAll(() => rmSync(outside, { recursive: true, force: true }));

function sandboxed(
  command: string,
  root: string,
  more: Partial<RunRequest> & { network?: boolean } = {},
): RunRequest {
  const backend = (probe as { backend: SandboxBackend }).backend;
  const dotGit = path.join(root, ".git");
  const policy = { root, readOnly: existsSync(dotGit) ? [dotGit] : [], network: more.network ?? false };
  return request(command, root, { ...more, sandbox: { backend, policy } });
}

/** Processes on this machine whose command line holds `marker`. */
function withMarker(marker: string): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe.skipIf(probe.kind !== "available")(title, () => {
  it("lets a command write inside the root, not outside it, not into .git, not the host's /tmp", async () => {
    const root = scratchRoot();
    mkdirSync(path.join(root, ".git"));
    const hostTmp = path.join(path.dirname(root), `lockstep-host-tmp-${process.pid}`);
    const command = [
      "echo inside > inside.txt && echo wrote-inside",
      `echo outside > ${outside}/outside.txt || echo outside-refused`,
      "echo hook > .git/hooks-pre-commit || echo git-refused",
      `echo tmp > ${hostTmp} && echo wrote-private-tmp`,
    ].join("; ");
    const r = await runCommand(sandboxed(command, root));
    expect(r.sandboxed).toBe(true);
    expect(r.output).toMatch(/wrote-inside/);
    expect(r.output).toMatch(/Read-only file system[\s\S]*outside-refused/);
    expect(r.output).toMatch(/git-refused/);
    expect(r.output).toMatch(/wrote-private-tmp/);
    expect(readFileSync(path.join(root, "inside.txt"), "utf8")).toBe("inside\n");
    expect(existsSync(path.join(outside, "outside.txt"))).toBe(false);
    expect(existsSync(path.join(root, ".git", "hooks-pre-commit"))).toBe(false);
    expect(existsSync(hostTmp)).toBe(false);
  });

  it("keeps a .git file (a worktree's) read-only too", async () => {
    const root = scratchRoot();
    writeFileSync(path.join(root, ".git"), "gitdir: elsewhere\n");
    const r = await runCommand(sandboxed("echo 'gitdir: /evil' > .git || echo refused", root));
    expect(r.output).toMatch(/refused/);
    expect(readFileSync(path.join(root, ".git"), "utf8")).toBe("gitdir: elsewhere\n");
  });

  it("blocks a connection to a loopback port, which the network setting allows", async () => {
    let connections = 0;
    const server: Server = createServer((s) => {
      connections++;
      s.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const command = `(echo hi > /dev/tcp/127.0.0.1/${port}) && echo connected || echo blocked`;
      const blocked = await runCommand(sandboxed(command, scratchRoot()));
      expect(blocked.output).toMatch(/blocked/);
      expect(connections).toBe(0);
      const allowed = await runCommand(sandboxed(command, scratchRoot(), { network: true }));
      expect(allowed.output).toMatch(/connected/);
      await eventually(() => connections === 1, "the allowed connection to arrive");
    } finally {
      server.close();
    }
  });

  it("a timeout leaves nothing running inside, and a child that left the group dies with the sandbox", async () => {
    const timedOut = await runCommand(
      sandboxed("sleep 1234.5 & echo started; wait", scratchRoot(), { timeoutMs: 1_500 }),
    );
    expect(timedOut).toMatchObject({ timed_out: true, output: "started\n" });
    await eventually(() => withMarker("1234.5").length === 0, "the timed-out grandchild to be gone");
    const escaped = await runCommand(sandboxed("setsid sleep 2345.5 & sleep 0.2; echo bye", scratchRoot()));
    expect(escaped).toMatchObject({ exit_code: 0, output: "bye\n" });
    await eventually(() => withMarker("2345.5").length === 0, "the escaped child to be gone");
  });

  it("removes the key variables inside the sandbox too", async () => {
    const key = "sk-sandbox-0123456789";
    const env = { ...process.env, OPENAI_API_KEY: key };
    const r = await runCommand(
      sandboxed("env", scratchRoot(), {
        env,
        remove: ["OPENAI_API_KEY"],
        secrets: [{ name: "OPENAI_API_KEY", value: key }],
      }),
    );
    expect(r.output).not.toContain(key);
    expect(r.output).not.toContain("OPENAI_API_KEY=");
    expect(r.output).toContain("TMPDIR=/tmp");
  });
});
