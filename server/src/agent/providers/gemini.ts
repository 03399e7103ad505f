// The Model backed by Gemini through @google/genai. This is the only file that sees
// the SDK's types. It owns what the SDK leaves to callers: reading the key from
// the environment, retries with backoff, an overall deadline, and turning every
// failure into a ModelError whose message never contains the key.
import { LOCAL_MODEL_LINE } from "../../config/provider-facts.js";
import { setTimeout as sleep } from "node:timers/promises";
import { ApiError, GoogleGenAI } from "@google/genai";
import type { Content, GenerateContentResponse, Part as SdkPart } from "@google/genai";
import { isReasoningPart, ModelError } from "../model.js";
import type {
  GenerateRequest,
  JsonRequest,
  Message,
  Model,
  ModelEvent,
  Part,
  ReasoningPart,
} from "../model.js";

export const DEFAULT_GEMINI_MODEL = "gemini-2.5-flash";
const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_RETRY_BASE_DELAY_MS = 1_000;
const MAX_RETRY_DELAY_MS = 20_000;

export interface GeminiModelOptions {
  /** Wins over the environment. */
  apiKey?: string;
  model?: string;
  /** Another endpoint (a proxy, or the fake server in tests); else `GOOGLE_GEMINI_BASE_URL`. */
  baseUrl?: string;
  /** Deadline for one whole call, retries and streaming included. */
  timeoutMs?: number;
  /** Extra attempts after the first, for 429, 5xx and network failures. */
  maxRetries?: number;
  /** First backoff delay; doubles on each retry. Tests set it small. */
  retryBaseDelayMs?: number;
  /** Where `GEMINI_API_KEY`, `GOOGLE_API_KEY` and `GOOGLE_GEMINI_BASE_URL` are read. */
  env?: NodeJS.ProcessEnv;
}

export function createGeminiModel(options: GeminiModelOptions = {}): Model {
  const env = options.env ?? process.env;
  const apiKey = firstNonEmpty(options.apiKey, env["GEMINI_API_KEY"], env["GOOGLE_API_KEY"]);
  const baseUrl = firstNonEmpty(options.baseUrl, env["GOOGLE_GEMINI_BASE_URL"]);
  const model = options.model ?? DEFAULT_GEMINI_MODEL;
  const policy: RetryPolicy = {
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    baseDelayMs: options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS,
  };
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const scrub = (text: string): string =>
    apiKey === undefined ? text : text.split(apiKey).join("[redacted]");

  // Built on first use, so that code paths which never call the model (the CLI's
  // patch commands, the replay demo) work without a key.
  let client: GoogleGenAI | undefined;
  const getClient = (): GoogleGenAI => {
    if (apiKey === undefined) {
      throw new ModelError(
        "no_api_key",
        `No Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) in the environment of the lockstep server. A local model needs no key: put ${LOCAL_MODEL_LINE} in .lockstep.json at the project's root.`,
      );
    }
    // The SDK reads GOOGLE_GEMINI_BASE_URL from process.env itself; passing the URL
    // explicitly also honours an injected `env` and the `baseUrl` option.
    client ??= new GoogleGenAI({ apiKey, ...(baseUrl === undefined ? {} : { httpOptions: { baseUrl } }) });
    return client;
  };

  return {
    name: model,

    async *stream(request: GenerateRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      const ai = getClient();
      const deadline = startDeadline(signal, timeoutMs);
      try {
        for (let attempt = 0; ; attempt++) {
          let yielded = false;
          try {
            const chunks = await ai.models.generateContentStream({
              model,
              contents: request.history.map(toContent),
              config: {
                ...(request.system === "" ? {} : { systemInstruction: request.system }),
                ...(request.tools.length === 0 ? {} : { tools: [{ functionDeclarations: request.tools }] }),
                abortSignal: deadline.signal,
                // The turn loop owns continuation and retries; one request per attempt.
                automaticContinuation: false,
              },
            });
            for await (const chunk of chunks) {
              for (const event of eventsOf(chunk)) {
                yielded = true;
                yield event;
              }
            }
            return;
          } catch (error) {
            const failure = classify(error, deadline, scrub);
            // Once the caller has seen part of an answer, a retry would repeat it.
            if (yielded) throw failure.error;
            await backoff(failure, attempt, policy, deadline, scrub);
          }
        }
      } finally {
        deadline.dispose();
      }
    },

    async generateJson(request: JsonRequest, signal: AbortSignal): Promise<unknown> {
      const ai = getClient();
      const deadline = startDeadline(signal, timeoutMs);
      try {
        for (let attempt = 0; ; attempt++) {
          try {
            const response = await ai.models.generateContent({
              model,
              contents: [{ role: "user", parts: [{ text: request.prompt }] }],
              config: {
                ...(request.system === "" ? {} : { systemInstruction: request.system }),
                responseMimeType: "application/json",
                responseJsonSchema: request.schema,
                abortSignal: deadline.signal,
                automaticContinuation: false,
              },
            });
            return parseJsonAnswer(response);
          } catch (error) {
            await backoff(classify(error, deadline, scrub), attempt, policy, deadline, scrub);
          }
        }
      } finally {
        deadline.dispose();
      }
    },
  };
}

function firstNonEmpty(...values: (string | undefined)[]): string | undefined {
  for (const value of values) {
    const trimmed = value?.trim();
    if (trimmed) return trimmed;
  }
  return undefined;
}

// ---- translation between our shapes and the SDK's ----

function toContent(message: Message): Content {
  // Gemini's roles: the assistant is "model", and tool results travel as the user's.
  // Another provider's reasoning (signed for that provider) means nothing here.
  const parts = message.parts.flatMap((part) => (isReasoningPart(part) ? [] : [toSdkPart(part)]));
  return { role: message.role === "assistant" ? "model" : "user", parts };
}

function toSdkPart(part: Exclude<Part, ReasoningPart>): SdkPart {
  if ("text" in part) return { text: part.text };
  if ("functionCall" in part) {
    const { id, name, args } = part.functionCall;
    return {
      functionCall: { ...(id === undefined ? {} : { id }), name, args },
      ...(part.thoughtSignature === undefined ? {} : { thoughtSignature: part.thoughtSignature }),
    };
  }
  const { id, name, response } = part.functionResponse;
  return { functionResponse: { ...(id === undefined ? {} : { id }), name, response } };
}

function eventsOf(chunk: GenerateContentResponse): ModelEvent[] {
  const candidate = chunk.candidates?.[0];
  if (candidate === undefined) {
    const blocked = chunk.promptFeedback?.blockReason;
    if (blocked !== undefined) {
      throw new ModelError("bad_response", `Gemini refused the prompt (${blocked}). Rephrase the request.`);
    }
    return [];
  }
  const events: ModelEvent[] = [];
  for (const part of candidate.content?.parts ?? []) {
    if (part.functionCall !== undefined) {
      const { id, name, args } = part.functionCall;
      if (name === undefined || name === "") {
        throw new ModelError("bad_response", "Gemini sent a function call without a name.");
      }
      events.push({
        type: "functionCall",
        call: { ...(id === undefined ? {} : { id }), name, args: args ?? {} },
        ...(part.thoughtSignature === undefined ? {} : { thoughtSignature: part.thoughtSignature }),
      });
    } else if (typeof part.text === "string" && part.text !== "" && part.thought !== true) {
      events.push({ type: "text", text: part.text });
    }
  }
  if (candidate.finishReason === "MALFORMED_FUNCTION_CALL") {
    throw new MalformedCall();
  }
  // The last chunk carries the request's totals.
  const usage = chunk.usageMetadata;
  if (candidate.finishReason !== undefined && usage?.promptTokenCount !== undefined) {
    events.push({
      type: "usage",
      usage: { input_tokens: usage.promptTokenCount, output_tokens: usage.candidatesTokenCount ?? 0 },
    });
  }
  return events;
}

/** The model produced a call the API could not parse; asking again usually works. */
class MalformedCall extends Error {}

function parseJsonAnswer(response: GenerateContentResponse): unknown {
  const parts = response.candidates?.[0]?.content?.parts ?? [];
  const text = parts
    .filter((part) => part.thought !== true)
    .map((part) => part.text ?? "")
    .join("");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ModelError(
      "bad_response",
      `Gemini's structured answer is not valid JSON: ${text.slice(0, 200)}`,
    );
  }
}

// ---- deadline, classification and backoff ----

interface Deadline {
  /** Aborts on the caller's signal, on the overall timeout, and on dispose. */
  readonly signal: AbortSignal;
  readonly caller: AbortSignal;
  timedOut(): boolean;
  remainingMs(): number;
  readonly timeoutMs: number;
  dispose(): void;
}

function startDeadline(caller: AbortSignal, timeoutMs: number): Deadline {
  const controller = new AbortController();
  const endsAt = Date.now() + timeoutMs;
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort();
  }, timeoutMs);
  // The request in flight keeps the process alive; the timer alone should not.
  timer.unref();
  const onAbort = (): void => controller.abort();
  if (caller.aborted) controller.abort();
  else caller.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    caller,
    timeoutMs,
    timedOut: () => expired,
    remainingMs: () => Math.max(0, endsAt - Date.now()),
    dispose: () => {
      clearTimeout(timer);
      caller.removeEventListener("abort", onAbort);
      // Closes the connection when the consumer stops reading early.
      controller.abort();
    },
  };
}

interface Classified {
  error: ModelError;
  retryable: boolean;
  /** What the server asked us to wait (RetryInfo), if it said. */
  retryAfterMs?: number;
}

function classify(error: unknown, deadline: Deadline, scrub: (text: string) => string): Classified {
  // Our own signal decides first: after an abort the SDK throws whatever the
  // interrupted read produced, and that is not the cause.
  if (deadline.caller.aborted)
    return { error: new ModelError("cancelled", "The model request was cancelled."), retryable: false };
  if (deadline.timedOut()) {
    const seconds = Math.round(deadline.timeoutMs / 1000);
    return {
      error: new ModelError(
        "timeout",
        `Gemini did not finish within ${seconds} s. Try again or raise the timeout.`,
      ),
      retryable: false,
    };
  }
  if (error instanceof ModelError) return { error, retryable: false };
  if (error instanceof MalformedCall) {
    return {
      error: new ModelError("bad_response", "Gemini produced a malformed function call."),
      retryable: true,
    };
  }
  if (error instanceof ApiError) return classifyHttp(error, scrub);
  const message = scrub(error instanceof Error ? error.message : String(error));
  // fetch reports refused connections, resets and truncated bodies as TypeError.
  if (error instanceof TypeError || (error instanceof Error && error.name === "AbortError")) {
    return {
      error: new ModelError(
        "network",
        `Could not reach Gemini: ${message}. Check the network or GOOGLE_GEMINI_BASE_URL.`,
      ),
      retryable: true,
    };
  }
  return {
    error: new ModelError("bad_response", `Unexpected answer from Gemini: ${message}`),
    retryable: false,
  };
}

function classifyHttp(error: ApiError, scrub: (text: string) => string): Classified {
  const { message, retryAfterMs } = readApiErrorBody(scrub(error.message));
  const status = error.status;
  const base = retryAfterMs === undefined ? {} : { retryAfterMs };
  if (status === 429) {
    return {
      error: new ModelError(
        "rate_limited",
        `Gemini rate limit reached (HTTP 429): ${message} Wait a minute, or use a key with more quota.`,
      ),
      retryable: true,
      ...base,
    };
  }
  if (status >= 500 || status === 408) {
    return {
      error: new ModelError(
        "server",
        `Gemini failed on its side (HTTP ${status}): ${message} Try again shortly.`,
      ),
      retryable: true,
      ...base,
    };
  }
  return {
    error: new ModelError("bad_response", `Gemini rejected the request (HTTP ${status}): ${message}`),
    retryable: false,
  };
}

/**
 * The SDK puts the whole error body in the message (after a `got status:` prefix
 * when the error came mid-stream); pull out the human part and RetryInfo.
 */
function readApiErrorBody(raw: string): { message: string; retryAfterMs?: number } {
  let body: unknown;
  try {
    body = JSON.parse(raw.slice(Math.max(0, raw.indexOf("{"))));
  } catch {
    return { message: sentence(raw) };
  }
  const inner = isRecord(body) && isRecord(body["error"]) ? body["error"] : undefined;
  const text = sentence(typeof inner?.["message"] === "string" ? inner["message"] : raw);
  const details = Array.isArray(inner?.["details"]) ? (inner["details"] as unknown[]) : [];
  for (const detail of details) {
    const delay = isRecord(detail) ? detail["retryDelay"] : undefined;
    const match = typeof delay === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
    if (match?.[1] !== undefined) return { message: text, retryAfterMs: Math.ceil(Number(match[1]) * 1000) };
  }
  return { message: text };
}

/** Ends the server's text with a full stop, so our advice reads as the next sentence. */
function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
}

/** Waits before the next attempt, or throws when the failure is final. */
async function backoff(
  failure: Classified,
  attempt: number,
  policy: RetryPolicy,
  deadline: Deadline,
  scrub: (text: string) => string,
): Promise<void> {
  if (!failure.retryable || attempt >= policy.maxRetries) throw failure.error;
  const exponential = Math.min(MAX_RETRY_DELAY_MS, policy.baseDelayMs * 2 ** attempt);
  // Jitter keeps parallel clients from retrying in step.
  const delay = Math.max(failure.retryAfterMs ?? 0, exponential * (0.5 + Math.random() / 2));
  // Waiting past the deadline would only turn a clear error into a timeout.
  if (delay >= deadline.remainingMs()) throw failure.error;
  try {
    await sleep(delay, undefined, { signal: deadline.signal });
  } catch (error) {
    throw classify(error, deadline, scrub).error;
  }
}
