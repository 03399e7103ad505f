// The agent's turn loop: stream one model turn, run every function call it made in
// order, send all the answers back in one message, and repeat until the model
// answers without calling a tool. It knows the model and the tools only through
// two narrow interfaces, so it runs the same against Gemini, the replay model and
// test doubles.
import { errorEnvelope } from "../tools/envelope.js";
import type { Envelope } from "../tools/envelope.js";
import { deeperThan, TOO_DEEP_ARGUMENTS } from "../jsonrpc/limits.js";
import { compactFileStates } from "./history-compaction.js";
import { addUsage, isModelError, isReasoningPart } from "./model.js";
import type { FunctionCall, FunctionDeclaration, Message, Model, Part, Usage } from "./model.js";

export interface ToolRunner {
  declarations(): FunctionDeclaration[];
  /** Never throws for bad input: an unknown tool or bad arguments come back as an error envelope. */
  run(call: FunctionCall, signal: AbortSignal): Promise<Envelope>;
}

export interface TurnLoopEvents {
  onText?(delta: string): void;
  /** The model's reasoning as it streams (where the provider shows it): for display only. */
  onThought?(delta: string): void;
  onToolCall?(call: FunctionCall): void;
  onToolResult?(call: FunctionCall, result: Envelope): void;
  onTurn?(turn: number): void;
  /** A turn is complete (the model's message and the answers to all its calls are in `history`). */
  onTurnEnd?(history: readonly Message[], usage: Usage): void;
}

export interface TurnLoopLimits {
  /** Model requests per run. */
  maxTurns: number;
  /** Tool calls per run, over all turns. */
  maxToolCalls: number;
}

export const DEFAULT_TURN_LOOP_LIMITS: TurnLoopLimits = { maxTurns: 20, maxToolCalls: 50 };

export interface ToolCallRecord {
  name: string;
  args: Record<string, unknown>;
  ok: boolean;
}

export type RunStatus = "done" | "cancelled" | "failed" | "limit";

export interface RunResult {
  status: RunStatus;
  /** Everything the model said, turns separated by a blank line (as streamed through onText). */
  text: string;
  toolCalls: ToolCallRecord[];
  /** The conversation so far, ready to pass to the next run. */
  history: Message[];
  error?: { code: string; message: string };
  /** Tokens the provider counted over the run's requests (zeros when it gave no figures). */
  usage: Usage;
}

export interface TurnLoopOptions {
  model: Model;
  tools: ToolRunner;
  system: string;
  /** Earlier messages of the session; not modified. */
  history: Message[];
  /** The user's message for this run (with @-mentions already expanded). */
  prompt: Part[];
  limits?: Partial<TurnLoopLimits>;
  events?: TurnLoopEvents;
  signal: AbortSignal;
}

const TURN_SEPARATOR = "\n\n";

export async function runTurnLoop(options: TurnLoopOptions): Promise<RunResult> {
  const { model, tools, system, events = {}, signal } = options;
  const limits = { ...DEFAULT_TURN_LOOP_LIMITS, ...options.limits };
  const history: Message[] = [...options.history];
  if (options.prompt.length > 0) history.push({ role: "user", parts: options.prompt });
  const toolCalls: ToolCallRecord[] = [];
  let text = "";
  // Summed over the run's requests, from the provider's own figures.
  const usage: Usage = { input_tokens: 0, output_tokens: 0 };

  const result = (status: RunStatus, error?: { code: string; message: string }): RunResult =>
    error === undefined
      ? { status, text, toolCalls, history, usage }
      : { status, text, toolCalls, history, error, usage };
  const cancelled = (): RunResult =>
    result("cancelled", { code: "cancelled", message: "The run was cancelled." });

  for (let turn = 1; ; turn++) {
    if (signal.aborted) return cancelled();
    if (turn > limits.maxTurns) {
      return result("limit", {
        code: "turn_limit",
        message: `Stopped after ${limits.maxTurns} model turns: the model kept calling tools without finishing. Ask again with a narrower request.`,
      });
    }
    events.onTurn?.(turn);
    // One copy of each file: older states of a file the history holds a newer state of become markers.
    compactFileStates(history);

    // ---- one model turn ----
    let turnText = "";
    const calls: { call: FunctionCall; thoughtSignature?: string }[] = [];
    // The model's message as it came: text runs, calls and reasoning blocks in arrival order. A
    // provider that signs its reasoning (Anthropic) wants the message back exactly as it was.
    const modelParts: Part[] = [];
    try {
      for await (const event of abortable(
        model.stream({ system, history, tools: tools.declarations() }, signal),
        signal,
      )) {
        if (event.type === "usage") {
          addUsage(usage, event.usage);
        } else if (event.type === "text") {
          const separator = turnText === "" && text !== "" ? TURN_SEPARATOR : "";
          turnText += event.text;
          text += separator + event.text;
          events.onText?.(separator + event.text);
          const last = modelParts[modelParts.length - 1];
          if (last !== undefined && "text" in last)
            modelParts[modelParts.length - 1] = { text: last.text + event.text };
          else modelParts.push({ text: event.text });
        } else if (event.type === "thought") {
          events.onThought?.(event.text);
        } else if (event.type === "reasoning") {
          modelParts.push(event.part);
        } else {
          // Arguments too deep to walk would crash whatever touches them next (validation, the history sent
          // back, the store): the history keeps a marker instead, and the tools refuse the call by name.
          const call = deeperThan(event.call.args)
            ? { ...event.call, args: { [TOO_DEEP_ARGUMENTS]: true } }
            : event.call;
          const { thoughtSignature } = event;
          calls.push(thoughtSignature === undefined ? { call } : { call, thoughtSignature });
          modelParts.push(
            thoughtSignature === undefined
              ? { functionCall: call }
              : { functionCall: call, thoughtSignature },
          );
        }
      }
    } catch (error) {
      if (signal.aborted) return cancelled();
      if (isModelError(error)) return result("failed", { code: error.code, message: error.message });
      return result("failed", {
        code: "internal_error",
        message: `Internal Error: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    if (signal.aborted) return cancelled();

    // One model message per turn, however many chunks it streamed in. An empty turn (or one of
    // reasoning alone) is not recorded: the APIs reject a message without an answer in it.
    if (modelParts.some((p) => !isReasoningPart(p))) history.push({ role: "assistant", parts: modelParts });
    if (calls.length === 0) {
      events.onTurnEnd?.(history, usage);
      return result("done");
    }

    // ---- run the calls, in order, and answer them all in one message ----
    const responses: Part[] = [];
    let stop: RunResult | undefined;
    for (const { call } of calls) {
      if (stop === undefined && signal.aborted) stop = cancelled();
      if (stop === undefined && toolCalls.length >= limits.maxToolCalls) {
        stop = result("limit", {
          code: "tool_call_limit",
          message: `Stopped after ${limits.maxToolCalls} tool calls: the model kept calling tools without finishing. Ask again with a narrower request.`,
        });
      }
      // Calls left unrun still get an answer, so the history stays a valid
      // conversation the session can continue from.
      const envelope = stop === undefined ? await runOne(tools, call, signal, events) : notRun(stop);
      if (stop === undefined) toolCalls.push({ name: call.name, args: call.args, ok: envelope.ok });
      responses.push({
        functionResponse: {
          ...(call.id === undefined ? {} : { id: call.id }),
          name: call.name,
          response: envelope,
        },
      });
    }
    history.push({ role: "tool", parts: responses });
    events.onTurnEnd?.(history, usage);
    if (stop !== undefined) return stop;
    if (signal.aborted) return cancelled();
  }
}

async function runOne(
  tools: ToolRunner,
  call: FunctionCall,
  signal: AbortSignal,
  events: TurnLoopEvents,
): Promise<Envelope> {
  events.onToolCall?.(call);
  let envelope: Envelope;
  try {
    // A tool that ignores the signal must not hold the run: stop waiting on abort.
    envelope = await untilAborted(tools.run(call, signal), signal, () => cancelledEnvelope());
  } catch (error) {
    // The runner promises not to throw; if it does anyway, the model hears about it.
    envelope = errorEnvelope(
      "internal_error",
      `Internal Error: ${call.name} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  events.onToolResult?.(call, envelope);
  return envelope;
}

function cancelledEnvelope(): Envelope {
  return errorEnvelope("cancelled", "Cancelled by the user before the tool finished.");
}

function notRun(stop: RunResult): Envelope {
  return stop.status === "cancelled"
    ? errorEnvelope("cancelled", "Not run: the user cancelled the run.")
    : errorEnvelope("cancelled", `Not run: ${stop.error?.message ?? "the run stopped."}`);
}

/** Settles with `promise`, or with `onAbort()` as soon as the signal fires. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, onAbort: () => T): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.resolve(onAbort());
  }
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => resolve(onAbort());
    signal.addEventListener("abort", abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", abort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

const ABORTED = Symbol("aborted");

/**
 * Iterates `source` but stops at once when the signal fires, even if the source is
 * waiting on a network read that ignores it.
 */
async function* abortable<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const next = await untilAborted<IteratorResult<T> | typeof ABORTED>(
        iterator.next(),
        signal,
        () => ABORTED,
      );
      if (next === ABORTED) return;
      if (next.done === true) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    // Tell the source to release its connection; do not wait for it to agree.
    if (!finished) void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}
