// What a failed Messages API call means to the user, in words that name the setting to change
// or the next step, never the key. The SDK has already retried 408/409/429/5xx/529 (honouring
// retry-after) by the time an HTTP error arrives here; an error event in the middle of a stream
// (`overloaded_error`) it does not retry, so that one is marked retryable for the adapter.
import { ModelError } from "../model.js";
import type { ThinkingSetting } from "./anthropic-request.js";

export interface ErrorContext {
  /** "the Anthropic API", or the gateway's URL. */
  where: string;
  /** The variable the key was read from. */
  keyName: string;
  model: string;
  thinking: ThinkingSetting | undefined;
  scrub(text: string): string;
}

export interface Classified {
  error: ModelError;
  retryable: boolean;
}

interface SdkError {
  status?: number;
  type?: string | null;
  apiMessage?: string | null;
  message?: string;
  error?: { error?: { type?: string; message?: string } };
}

export function classifyAnthropicError(error: unknown, signal: AbortSignal, ctx: ErrorContext): Classified {
  const final = (e: ModelError): Classified => ({ error: e, retryable: false });
  if (signal.aborted) return final(new ModelError("cancelled", "The model request was cancelled."));
  if (error instanceof ModelError) return final(error);
  const e = (typeof error === "object" && error !== null ? error : {}) as SdkError;
  // The SDK's classes carry their name on the instance (APIConnectionError, RateLimitError, …).
  const kind = error instanceof Error ? error.name : "";
  const type = e.type ?? e.error?.error?.type ?? undefined;
  const text = ctx.scrub(sentence(e.apiMessage ?? e.error?.error?.message ?? e.message ?? String(error)));
  if (kind === "APIConnectionTimeoutError")
    return final(
      new ModelError("timeout", `${ctx.where} did not answer in time. Try again, or raise modelTimeoutMs.`),
    );
  if (kind === "APIUserAbortError")
    return final(new ModelError("cancelled", "The model request was cancelled."));
  if (kind === "APIConnectionError") {
    return final(
      new ModelError(
        "network",
        `Could not reach ${ctx.where}: ${text} Check the network, or baseUrl if you use a gateway.`,
      ),
    );
  }
  const status = e.status;
  if (status === undefined) {
    // An error event in the stream: the response had started, with a 200.
    if (type === "overloaded_error") return { error: overloaded(ctx, text), retryable: true };
    if (type === "rate_limit_error") return { error: rateLimited(ctx, text), retryable: true };
    if (type === "api_error")
      return {
        error: new ModelError("server", `${ctx.where} failed while answering: ${text} Try again shortly.`),
        retryable: true,
      };
    return final(new ModelError("bad_response", `Unexpected answer from ${ctx.where}: ${text}`));
  }
  if (status === 401) {
    return final(
      new ModelError(
        "no_api_key",
        `${ctx.where} refused the key in ${ctx.keyName} (HTTP 401: ${text}) Check that ${ctx.keyName} holds a current Anthropic API key, in the environment of the lockstep server.`,
      ),
    );
  }
  if (status === 403) {
    return final(
      new ModelError(
        "no_api_key",
        `${ctx.where} refused the request (HTTP 403): ${text} The key in ${ctx.keyName} may not have access to ${ctx.model}; set \`model\` to one it can use.`,
      ),
    );
  }
  if (status === 404) {
    return final(
      new ModelError(
        "bad_settings",
        `${ctx.where} does not know the model ${ctx.model} (HTTP 404): ${text} Set \`model\` to a current Claude model id, e.g. claude-sonnet-5-5.`,
      ),
    );
  }
  if (status === 413 || /prompt is too long|context (window|length)|too many tokens/i.test(text)) {
    return final(
      new ModelError(
        "too_large",
        `The request is too large for ${ctx.model}'s context (HTTP ${status}): ${text} Start a new session, or mention fewer or smaller files.`,
      ),
    );
  }
  if (status === 400) return final(refused(ctx, text));
  if (status === 429) return final(rateLimited(ctx, text));
  if (status === 529 || type === "overloaded_error") return final(overloaded(ctx, text));
  if (status >= 500)
    return final(
      new ModelError(
        "server",
        `${ctx.where} failed on its side (HTTP ${status}) after retries: ${text} Try again shortly.`,
      ),
    );
  return final(new ModelError("bad_response", `${ctx.where} rejected the request (HTTP ${status}): ${text}`));
}

/** A 400 names the setting behind it when it can tell which; the API's own words follow. */
function refused(ctx: ErrorContext, text: string): ModelError {
  const said = `${ctx.where} refused the request (HTTP 400): ${text}`;
  if (/thinking|budget_tokens|adaptive/i.test(text)) {
    const next =
      ctx.thinking === undefined
        ? 'Set `thinking` to what the model takes: "adaptive" (newer models), a token budget such as 8000 (older ones), or "off".'
        : typeof ctx.thinking === "number"
          ? `\`thinking\` is a token budget (${ctx.thinking}), which ${ctx.model} does not take: set \`thinking\` to "adaptive" (and \`effort\` if you like), or "off".`
          : `\`thinking\` is "${ctx.thinking}", which ${ctx.model} does not take: set \`thinking\` to a token budget such as 8000, or "off".`;
    return new ModelError("bad_settings", `${said} ${next}`);
  }
  if (/effort|output_config/i.test(text))
    return new ModelError(
      "bad_settings",
      `${said} ${ctx.model} does not take this \`effort\`: remove \`effort\`, or choose low, medium or high.`,
    );
  if (/max_tokens/i.test(text))
    return new ModelError(
      "bad_settings",
      `${said} Lower \`maxOutputTokens\` to what ${ctx.model} allows (and above a thinking budget).`,
    );
  if (/temperature|top_p|top_k/i.test(text))
    return new ModelError(
      "bad_settings",
      `${said} A gateway between lockstep and the API may be adding sampling settings; lockstep sends none.`,
    );
  return new ModelError("bad_response", said);
}

function rateLimited(ctx: ErrorContext, text: string): ModelError {
  return new ModelError(
    "rate_limited",
    `${ctx.where} rate limit reached (HTTP 429), still after waiting and retrying: ${text} Wait a minute, or use a key with a higher limit.`,
  );
}

function overloaded(ctx: ErrorContext, text: string): ModelError {
  return new ModelError(
    "server",
    `${ctx.where} is overloaded (529 overloaded_error), still after retries with backoff: ${text} Try again in a minute, or set \`model\` to another Claude model.`,
  );
}

/** The API's words end with a full stop, so our advice reads as the next sentence. */
function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
