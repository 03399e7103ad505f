// The narrow interface the turn loop depends on. The SDKs' own types stop at
// the files in providers/; everything else in agent/ speaks
// these plain shapes, so the replay model and tests need no SDK at all.

export interface FunctionCall {
  /** Set by the API on some models; echoed back on the matching functionResponse. */
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

export interface FunctionResponse {
  id?: string;
  name: string;
  response: Record<string, unknown>;
}

export type Part =
  | { text: string }
  /**
   * `thoughtSignature` is opaque model state that thinking models attach to a call
   * and require back, unchanged, in the history of the next request.
   */
  | { functionCall: FunctionCall; thoughtSignature?: string }
  | { functionResponse: FunctionResponse }
  | ReasoningPart;

/**
 * The model's reasoning as the provider returned it (Anthropic's thinking blocks), kept in the
 * assistant's message in the order it came so that a tool-using turn can continue: the API wants
 * it back verbatim, signature included. `redacted` holds an encrypted block passed back untouched.
 * Never shown to a tool; providers that did not produce it leave it out of their requests.
 * `model`: the model that wrote it, whose signature only that model accepts.
 */
export type ReasoningPart = ({ thinking: string; signature: string } | { redactedThinking: string }) & {
  model?: string;
};

/**
 * One message of the conversation, in the providers' common roles: the user's
 * words, the assistant's turn (text and tool calls), and the tool results that
 * answer that turn's calls (functionResponse parts, in call order).
 */
export interface Message {
  role: "user" | "assistant" | "tool";
  parts: Part[];
}

export interface FunctionDeclaration {
  name: string;
  description: string;
  parametersJsonSchema: Record<string, unknown>;
}

export interface GenerateRequest {
  system: string;
  history: Message[];
  tools: FunctionDeclaration[];
}

export type ModelEvent =
  | { type: "text"; text: string }
  | { type: "functionCall"; call: FunctionCall; thoughtSignature?: string }
  /** Reasoning text as it streams, for surfaces that show thoughts; never part of the answer. */
  | { type: "thought"; text: string }
  /** One whole reasoning block, to keep in the history at this place in the message. */
  | { type: "reasoning"; part: ReasoningPart }
  /** The provider's own count for this request, when it gives one (once, at the end). */
  | { type: "usage"; usage: Usage };

/** Tokens as the provider counted them. */
export interface Usage {
  /** Everything the request sent, cached or not. */
  input_tokens: number;
  output_tokens: number;
  /** Of input_tokens, those read from the provider's prompt cache (when it reports them). */
  cache_read_input_tokens?: number;
  /** Of input_tokens, those written to the prompt cache. */
  cache_creation_input_tokens?: number;
}

/** Adds `more` to `total` in place; the cache figures appear once a provider reports them. */
export function addUsage(total: Usage, more: Usage): void {
  total.input_tokens += more.input_tokens;
  total.output_tokens += more.output_tokens;
  for (const key of ["cache_read_input_tokens", "cache_creation_input_tokens"] as const) {
    const value = more[key];
    if (value !== undefined) total[key] = (total[key] ?? 0) + value;
  }
}

export function isReasoningPart(part: Part): part is ReasoningPart {
  return "thinking" in part || "redactedThinking" in part;
}

export interface JsonRequest {
  system: string;
  prompt: string;
  /** JSON Schema the answer must follow. */
  schema: Record<string, unknown>;
}

export interface Model {
  readonly name: string;
  /** One model turn: text deltas as they arrive, and every function call. Throws ModelError. */
  stream(request: GenerateRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
  /** One structured-output call (used for edit self-correction); resolves to the parsed JSON. */
  generateJson(request: JsonRequest, signal: AbortSignal): Promise<unknown>;
}

export type ModelErrorCode =
  | "no_api_key"
  | "rate_limited"
  | "network"
  | "server"
  | "bad_response"
  | "cancelled"
  | "timeout"
  /** The provider refused a setting or a combination of settings; the message names it. */
  | "bad_settings"
  /** The request (history, files, tools) is larger than the model's context. */
  | "too_large"
  /** The endpoint refused the request because the model cannot call tools. */
  | "tools_unsupported";

/** The one error a Model throws. Its message never contains the API key. */
export class ModelError extends Error {
  constructor(
    readonly code: ModelErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "ModelError";
  }
}

export function isModelError(error: unknown): error is ModelError {
  return error instanceof ModelError;
}
