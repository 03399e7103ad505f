// The runner on real processes, unsandboxed: one ordered stream, exit code or signal, standard
// input closed, a timeout and a cancel that kill the grandchildren too, nothing left behind by a
// command that forks and exits, key variables gone and their values redacted, memory bounded
// under a gigabyte of output on one line.
import { describe, expect, it } from "vitest";
import { runCommand } from "../../server/src/commands/index.js";
import { ended, pidIn, request, scratchRoot } from "./run-support.js";

describe("runCommand", () => {
  it("keeps stdout and stderr in the order they came, with the exit code", async () => {
    const root = scratchRoot();
    const r = await runCommand(request("echo one; echo two >&2; echo three; exit 3", root));
    expect(r.output).toBe("one\ntwo\nthree\n");
    expect(r).toMatchObject({
      exit_code: 3,
      signal: null,
      timed_out: false,
      cancelled: false,
      sandboxed: false,
      omitted_characters: 0,
    });
    expect(r.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it("reports the signal that ended it", async () => {
    const r = await runCommand(request("kill -TERM $$", scratchRoot()));
    expect(r).toMatchObject({ exit_code: null, signal: "SIGTERM" });
  });

  it("closes standard input: a command that reads it ends at once", async () => {
    const r = await runCommand(request('read line; echo "read: [$line] $?"; cat; echo done', scratchRoot()));
    expect(r.output).toBe("read: [] 1\ndone\n");
  });

  it("runs in the cwd it is given, with no pager, no colour and no prompt", async () => {
    const root = scratchRoot();
    const r = await runCommand(
      request('pwd; echo "$PAGER $GIT_PAGER $NO_COLOR $GIT_TERMINAL_PROMPT [${FORCE_COLOR-unset}]"', root, {
        env: { ...process.env, FORCE_COLOR: "3" },
      }),
    );
    expect(r.output).toBe(`${root}\ncat cat 1 0 [unset]\n`);
  });

  it("removes the key variables and redacts a key value printed anyway", async () => {
    const key = "sk-test-0123456789abcdef";
    const env = { ...process.env, OPENAI_API_KEY: key, MY_KEY_VARIABLE: key, COPIED: `x${key}y` };
    const r = await runCommand(
      request("env", scratchRoot(), {
        env,
        remove: ["OPENAI_API_KEY", "MY_KEY_VARIABLE"],
        secrets: [{ name: "OPENAI_API_KEY", value: key }],
      }),
    );
    expect(r.output).not.toContain("OPENAI_API_KEY=");
    expect(r.output).not.toContain("MY_KEY_VARIABLE=");
    expect(r.output).not.toContain(key);
    expect(r.output).toContain("COPIED=x[OPENAI_API_KEY redacted]y");
  });

  it("a timeout kills the whole group, grandchild included, and returns what was printed", async () => {
    const root = scratchRoot();
    const command = "sh -c 'echo $$ > grandchild.pid; exec sleep 1000' & echo started; wait";
    const r = await runCommand(request(command, root, { timeoutMs: 1_500 }));
    const grandchild = await pidIn(root, "grandchild.pid");
    expect(r).toMatchObject({ timed_out: true, cancelled: false, exit_code: null, signal: "SIGKILL" });
    expect(r.output).toBe("started\n");
    await ended(grandchild);
  });

  it("a cancel kills the group within a second", async () => {
    const root = scratchRoot();
    const abort = new AbortController();
    let abortedAt = 0;
    const onOutput = (text: string): void => {
      if (text.includes("ready")) {
        abortedAt = performance.now();
        abort.abort();
      }
    };
    const command = "sh -c 'echo $$ > grandchild.pid; exec sleep 1000' & sleep 0.2; echo ready; wait";
    const r = await runCommand(request(command, root, { signal: abort.signal, onOutput }));
    const answeredIn = performance.now() - abortedAt;
    const grandchild = await pidIn(root, "grandchild.pid");
    expect(r).toMatchObject({ cancelled: true, timed_out: false, signal: "SIGKILL" });
    expect(r.output).toBe("ready\n");
    expect(answeredIn).toBeLessThan(1_000);
    await ended(grandchild);
  });

  it("a command that forks a daemon and exits leaves nothing running and does not wait for it", async () => {
    const root = scratchRoot();
    const started = performance.now();
    const r = await runCommand(request("(sleep 1000 & echo $! > daemon.pid); echo bye", root));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(r).toMatchObject({ exit_code: 0, output: "bye\n" });
    const daemon = await pidIn(root, "daemon.pid");
    await ended(daemon);
  });

  it("a child that leaves the process group does not hold the result (it survives: no sandbox here)", async () => {
    const root = scratchRoot();
    const r = await runCommand(
      request("setsid sh -c 'echo $$ > escaped.pid; exec sleep 1000' & sleep 0.2; echo bye", root),
    );
    const escaped = await pidIn(root, "escaped.pid");
    try {
      expect(r).toMatchObject({ exit_code: 0, output: "bye\n" });
    } finally {
      process.kill(escaped, "SIGKILL");
    }
  });

  it("1 GB of output on one line keeps memory bounded and the head and tail", async () => {
    let peak = process.memoryUsage().rss;
    const before = peak;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const r = await runCommand(
      request("echo start; head -c 1000000000 /dev/zero | tr '\\0' x; echo; echo end", scratchRoot(), {
        timeoutMs: 300_000,
      }),
    );
    clearInterval(sampler);
    expect(r.exit_code).toBe(0);
    expect(r.output.startsWith("start\nxxxx")).toBe(true);
    expect(r.output.endsWith("xxxx\nend\n")).toBe(true);
    expect(r.omitted_characters).toBeGreaterThan(999_000_000);
    expect(r.output.length).toBeLessThan(40_000);
    expect(peak - before).toBeLessThan(150 * 1024 * 1024);
  }, 300_000);
});
