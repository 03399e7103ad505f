// The client side of ACP's terminal methods, for real: terminal/create spawns the process the
// agent names (its own process group, so a kill reaches what it started), keeps its output
// within the byte limit asked (cut from the start, as the spec says), and answers
// terminal/output, wait_for_exit, kill and release. Every call is logged for the test.
import { spawn, type ChildProcess } from "node:child_process";
import { methods, RequestError, type client } from "@agentclientprotocol/sdk";

type ClientApp = ReturnType<typeof client>;

interface Term {
  child: ChildProcess;
  output: string;
  truncated: boolean;
  exit: Promise<{ exitCode: number | null; signal: string | null }>;
  exited?: { exitCode: number | null; signal: string | null };
}

export interface TerminalLog {
  calls: { method: string; params: Record<string, unknown>; at: number }[];
  /** The pids of every process a terminal started. */
  pids: number[];
}

export function withTerminals(app: ClientApp, log: TerminalLog): ClientApp {
  const terms = new Map<string, Term>();
  let next = 0;
  const find = (id: string): Term => {
    const t = terms.get(id);
    if (!t) throw RequestError.invalidParams(undefined, `no terminal ${id}`);
    return t;
  };
  const killGroup = (t: Term): void => {
    if (t.exited || t.child.pid === undefined) return;
    try {
      process.kill(-t.child.pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  };
  return app
    .onRequest(methods.client.terminal.create, ({ params }) => {
      log.calls.push({
        method: "create",
        params: params as unknown as Record<string, unknown>,
        at: performance.now(),
      });
      const env = { ...process.env };
      for (const v of params.env ?? []) env[v.name] = v.value;
      const child = spawn(params.command, params.args ?? [], {
        cwd: params.cwd ?? undefined,
        env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      if (child.pid !== undefined) log.pids.push(child.pid);
      const limit = params.outputByteLimit ?? Infinity;
      const term: Term = {
        child,
        output: "",
        truncated: false,
        exit: new Promise((resolve) =>
          child.on("exit", (exitCode, signal) => {
            term.exited = { exitCode, signal };
            resolve(term.exited);
          }),
        ),
      };
      const take = (d: Buffer): void => {
        term.output += d.toString("utf8");
        if (Buffer.byteLength(term.output) > limit) {
          term.output = term.output.slice(term.output.length - Math.floor(limit / 4));
          term.truncated = true;
        }
      };
      child.stdout!.on("data", take);
      child.stderr!.on("data", take);
      const terminalId = `term-${++next}`;
      terms.set(terminalId, term);
      return { terminalId };
    })
    .onRequest(methods.client.terminal.output, ({ params }) => {
      log.calls.push({
        method: "output",
        params: params as unknown as Record<string, unknown>,
        at: performance.now(),
      });
      const t = find(params.terminalId);
      return { output: t.output, truncated: t.truncated, exitStatus: t.exited ?? null };
    })
    .onRequest(methods.client.terminal.waitForExit, async ({ params }) => {
      log.calls.push({
        method: "wait_for_exit",
        params: params as unknown as Record<string, unknown>,
        at: performance.now(),
      });
      return find(params.terminalId).exit;
    })
    .onRequest(methods.client.terminal.kill, ({ params }) => {
      log.calls.push({
        method: "kill",
        params: params as unknown as Record<string, unknown>,
        at: performance.now(),
      });
      killGroup(find(params.terminalId));
      return {};
    })
    .onRequest(methods.client.terminal.release, ({ params }) => {
      log.calls.push({
        method: "release",
        params: params as unknown as Record<string, unknown>,
        at: performance.now(),
      });
      const t = find(params.terminalId);
      killGroup(t);
      terms.delete(params.terminalId);
      return {};
    });
}
