// The narrow interface the turn loop depends on. The SDKs' own types stop at
// providers/gemini.ts and providers/openai.ts; everything else in agent/ speaks
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
  | { functionResponse: FunctionResponse };

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
  /** The provider's own count for this request, when it gives one (once, at the end). */
  | { type: "usage"; usage: Usage };

/** Tokens as the provider counted them. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
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
