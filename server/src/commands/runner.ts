// One command run to its end: a shell in a process group of its own (with the watchdog of
// `process-group.ts`, which kills the group when the command ends or lockstep dies), standard
// input closed, stdout and stderr as one stream in the order they came, kept within a budget
// and streamed live, key values redacted before anything leaves. A timeout or a cancel kills
// the whole group and returns what was printed until then. Knows nothing of approval or of
// the model: it is handed a command already allowed.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import type { Readable } from "node:stream";
import { killGroup, WATCHDOG } from "./process-group.js";
import { commandEnvironment } from "./environment.js";
import { DEFAULT_BUDGET, OutputBudget, StreamRedactor, type BudgetSizes } from "./output-budget.js";
import type { SandboxBackend, SandboxPolicy } from "./sandbox/sandbox-backend.js";
import { ShapeStream, trimCutEdges } from "./token-shapes.js";

export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 600_000;
/**
 * Characters streamed live per command (what an editor's chat shows without choking, and what the
 * server sends without delaying its answers to other requests); the result keeps head and tail.
 */
const LIVE_LIMIT = 256_000;
/** How long the output may stay open after the command ended (a child that left the group holds it). */
const CLOSE_GRACE_MS = 2_000;

export interface RunRequest {
  command: string;
  /** A real path, under the root when sandboxed. */
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** The environment to start from; `remove` names the variables it loses (the key variables). */
  env: NodeJS.ProcessEnv;
  remove: readonly string[];
  /** Values never shown, stored or sent: replaced by their name wherever the output holds them. */
  secrets: readonly { name: string; value: string }[];
  sandbox?: { backend: SandboxBackend; policy: SandboxPolicy };
  /** Replaces credential-shaped text (the caller's shapes) in what is streamed and in the result. */
  redact?: (text: string) => string;
  onOutput?: (text: string) => void;
  budget?: BudgetSizes;
}

export interface RunResult {
  /** Head and tail of what it printed (stdout and stderr together), with what was left out named. */
  output: string;
  omitted_characters: number;
  /** null when a signal ended it. */
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  cancelled: boolean;
  duration_ms: number;
  sandboxed: boolean;
  /** The shell could not be started at all. */
  start_error?: string;
}

/** bash where there is one (what people write commands for), else sh. */
export const SHELL = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";

export function runCommand(req: RunRequest): Promise<RunResult> {
  // stderr joins stdout inside the shell itself, so the two keep the order they were written in.
  const argv = [SHELL, "-c", `exec 2>&1\n${req.command}`];
  const start = req.sandbox
    ? req.sandbox.backend.wrap(argv, req.cwd, req.sandbox.policy)
    : { file: argv[0]!, args: argv.slice(1), env: {} };
  const env = commandEnvironment(req.env, req.remove, start.env);
  const began = performance.now();
  const child = spawn("/bin/sh", ["-c", WATCHDOG, start.file, ...start.args], {
    cwd: req.cwd,
    env,
    stdio: ["ignore", "pipe", "pipe", "pipe"],
    detached: true,
  });
  const lifeline = child.stdio[3] as Readable | null;
  lifeline?.on("error", () => undefined);
  const [stdout, stderr] = [child.stdio[1] as Readable, child.stdio[2] as Readable];

  const budget = new OutputBudget(req.budget ?? DEFAULT_BUDGET);
  const redactor = new StreamRedactor(req.secrets);
  const decoders = [new TextDecoder("utf-8"), new TextDecoder("utf-8")] as const;
  // Shapes are looked for only in what is shown live (bounded) and in what the result keeps: a
  // search through every character of a gigabyte would cost a minute.
  const shapes = req.redact ? new ShapeStream(req.redact) : undefined;
  let live = 0;
  const show = (text: string, last = false): void => {
    if (!req.onOutput || live >= LIVE_LIMIT) return;
    const shown = shapes ? shapes.push(text) + (last ? shapes.end() : "") : text;
    live += text.length;
    if (live < LIVE_LIMIT) {
      if (shown.length > 0) req.onOutput(shown);
      return;
    }
    const rest = shapes && !last ? shapes.end() : "";
    req.onOutput(`${shown}${rest}\n[live output stops here; the result keeps its head and tail]\n`);
  };
  const take = (text: string, last = false): void => {
    const safe = redactor.push(text) + (last ? redactor.end() : "");
    if (safe.length > 0) budget.push(safe);
    if (safe.length > 0 || last) show(safe, last);
  };
  stdout.on("data", (d: Buffer) => take(decoders[0].decode(d, { stream: true })));
  stderr.on("data", (d: Buffer) => take(decoders[1].decode(d, { stream: true })));

  let timedOut = false;
  let cancelled = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid);
  }, req.timeoutMs);
  const onAbort = (): void => {
    cancelled = true;
    killGroup(child.pid);
  };
  if (req.signal.aborted) onAbort();
  else req.signal.addEventListener("abort", onAbort, { once: true });

  return new Promise((resolve) => {
    let exit: { code: number | null; signal: string | null; at: number } | undefined;
    let startError: string | undefined;
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      req.signal.removeEventListener("abort", onAbort);
      stdout.destroy();
      stderr.destroy();
      take(decoders[0].decode() + decoders[1].decode(), true);
      const kept = req.redact ? budget.kept(trimCutEdges) : budget.kept();
      const result: RunResult = {
        output: req.redact ? req.redact(kept.text) : kept.text,
        omitted_characters: kept.omitted,
        exit_code: exit?.code ?? null,
        signal: exit?.signal ?? null,
        timed_out: timedOut,
        cancelled,
        duration_ms: Math.round((exit?.at ?? performance.now()) - began),
        sandboxed: req.sandbox !== undefined,
      };
      if (startError !== undefined) result.start_error = startError;
      resolve(result);
    };
    let grace: NodeJS.Timeout | undefined;
    child.on("error", (e) => {
      startError = e.message;
      finish();
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal, at: performance.now() };
      // The watchdog, let go, kills whatever the command left in its group; then the output closes.
      lifeline?.destroy();
      grace = setTimeout(finish, CLOSE_GRACE_MS);
    });
    child.on("close", finish);
  });
}
