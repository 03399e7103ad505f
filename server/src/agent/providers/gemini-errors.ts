// What a failed Gemini call means, and whether to ask again: the overall deadline and the
// caller's cancel told apart from the SDK's errors, HTTP statuses and network failures turned
// into a ModelError whose message never contains the key, and the backoff between attempts
// (doubling, jittered, honouring the server's RetryInfo, never past the deadline). Knows nothing
// of the request's or the answer's shapes (gemini-messages.ts).
import { setTimeout as sleep } from "node:timers/promises";
import { ApiError } from "@google/genai";
import { ModelError } from "../model.js";

const MAX_RETRY_DELAY_MS = 20_000;

/** The model produced a call the API could not parse; asking again usually works. */
export class MalformedCall extends Error {}

export interface Deadline {
  /** Aborts on the caller's signal, on the overall timeout, and on dispose. */
  readonly signal: AbortSignal;
  readonly caller: AbortSignal;
  timedOut(): boolean;
  remainingMs(): number;
  readonly timeoutMs: number;
  dispose(): void;
}

export function startDeadline(caller: AbortSignal, timeoutMs: number): Deadline {
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

export function classify(error: unknown, deadline: Deadline, scrub: (text: string) => string): Classified {
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

export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
}

/** Waits before the next attempt, or throws when the failure is final. */
export async function backoff(
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
