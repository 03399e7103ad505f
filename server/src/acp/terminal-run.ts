// run_command through the client's terminal (`terminal/create`, where the client offers
// `terminal`): the command the approval allowed, in the same sandbox and quiet environment
// (commands/client-start.ts), shown live in the tool call by embedding the terminal, and its
// end read back for the model: exit code or signal, the output as the client kept it (the last
// OUTPUT_LIMIT bytes) within the same head-and-tail budget, key values and token shapes redacted. A timeout or a
// cancel kills it through `terminal/kill`; the terminal is always released.
import type { CreateTerminalRequest, TerminalOutputResponse } from "@agentclientprotocol/sdk";
import {
  clientStart,
  DEFAULT_BUDGET,
  OutputBudget,
  redact,
  trimCutEdges,
  type RunRequest,
  type RunResult,
} from "../commands/index.js";

/** Bytes of output the client keeps for lockstep: what the result's budget can hold, and some. */
const OUTPUT_LIMIT = 256 * 1024;
/** How long a killed command's terminal is waited for before lockstep stops waiting. */
const KILL_GRACE_MS = 5_000;

/** The client's terminal methods, for one session. */
export interface ClientTerminals {
  create(params: Omit<CreateTerminalRequest, "sessionId">): Promise<string>;
  output(terminalId: string): Promise<TerminalOutputResponse>;
  waitForExit(terminalId: string): Promise<{ exitCode?: number | null; signal?: string | null }>;
  kill(terminalId: string): Promise<void>;
  release(terminalId: string): Promise<void>;
}

/** How many characters at the start belong to a word the client's cut may have gone through. */
function leadingTokenRun(text: string): number {
  const cut = trimCutEdges("", text);
  return cut.dropped;
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export async function runInClientTerminal(
  terminals: ClientTerminals,
  req: RunRequest,
  /** The terminal exists: embed it in the tool call, so the client shows it live. */
  embed: (terminalId: string) => void,
): Promise<RunResult> {
  const began = performance.now();
  const sandboxed = req.sandbox !== undefined;
  const start = clientStart(req);
  const result = (rest: Partial<RunResult>): RunResult => ({
    output: "",
    omitted_characters: 0,
    exit_code: null,
    signal: null,
    timed_out: false,
    cancelled: false,
    duration_ms: Math.round(performance.now() - began),
    sandboxed,
    ...rest,
  });
  if (req.signal.aborted) return result({ cancelled: true });
  let id: string;
  try {
    id = await terminals.create({
      command: start.command,
      args: start.args,
      env: start.env,
      cwd: req.cwd,
      outputByteLimit: OUTPUT_LIMIT,
    });
  } catch (error) {
    return result({ start_error: `the client's terminal/create failed (${message(error)})` });
  }
  embed(id);

  // A timeout or a cancel kills it; once killed, the client has KILL_GRACE_MS to report its end.
  let timedOut = false;
  let cancelled = false;
  let killed = false;
  let grace: NodeJS.Timeout | undefined;
  let givenUp: () => void = () => undefined;
  const gaveUp = new Promise<Record<string, never>>((resolve) => (givenUp = () => resolve({})));
  const kill = (): void => {
    if (killed) return;
    killed = true;
    void terminals.kill(id).catch(() => undefined);
    grace = setTimeout(givenUp, KILL_GRACE_MS);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, req.timeoutMs);
  const onAbort = (): void => {
    cancelled = true;
    kill();
  };
  req.signal.addEventListener("abort", onAbort, { once: true });
  const exit: { exitCode?: number | null; signal?: string | null } = await Promise.race([
    terminals.waitForExit(id).catch(() => ({})),
    gaveUp,
  ]);
  const ended = performance.now();
  clearTimeout(timer);
  clearTimeout(grace);
  req.signal.removeEventListener("abort", onAbort);
  const out = await terminals
    .output(id)
    .catch((): TerminalOutputResponse => ({ output: "", truncated: false }));
  await terminals.release(id).catch(() => undefined);

  const budget = new OutputBudget(req.budget ?? DEFAULT_BUDGET);
  if (out.truncated) budget.push(`[the client kept only the last ${OUTPUT_LIMIT} bytes of the output]\n`);
  // A token the client's own cut went through is no longer recognisable: its rest is left out.
  const output = out.truncated ? out.output.slice(leadingTokenRun(out.output)) : out.output;
  budget.push(redact(output, req.secrets));
  // Token shapes as a local run redacts them: the kept head and tail, their cut words left out.
  const kept = req.redact ? budget.kept(trimCutEdges) : budget.kept();
  return result({
    output: req.redact ? req.redact(kept.text) : kept.text,
    omitted_characters: kept.omitted,
    exit_code: exit.exitCode ?? out.exitStatus?.exitCode ?? null,
    signal: exit.signal ?? out.exitStatus?.signal ?? null,
    timed_out: timedOut,
    cancelled,
    duration_ms: Math.round(ended - began),
  });
}
