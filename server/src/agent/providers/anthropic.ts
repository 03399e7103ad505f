// The Model backed by Claude through the Messages API and the official @anthropic-ai/sdk. The
// only file that runs that SDK (anthropic-request.ts builds the request, anthropic-errors.ts
// words the failures). The stream is read event by event: text streamed as it comes, thinking
// shown as thoughts and kept whole (with its signature) in its place in the message, each
// tool_use's input assembled from its input_json_delta pieces, and the usage (cache reads and
// writes included) reported once at the end. The SDK retries 429 (after retry-after) and 529
// itself; an overloaded error inside a stream that has shown nothing yet is retried here.
import { setTimeout as sleep } from "node:timers/promises";
import type Anthropic from "@anthropic-ai/sdk";
import {
  ModelError,
  type FunctionCall,
  type GenerateRequest,
  type JsonRequest,
  type Model,
  type ModelEvent,
  type Usage,
} from "../model.js";
import { classifyAnthropicError, type ErrorContext } from "./anthropic-errors.js";
import { DEFAULT_ANTHROPIC_MODEL, DEFAULT_MAX_OUTPUT_TOKENS } from "../../config/provider-facts.js";
import {
  buildMessagesRequest,
  thinkingParams,
  type Effort,
  type RequestShape,
  type ThinkingSetting,
} from "./anthropic-request.js";

export interface AnthropicModelOptions {
  model?: string;
  /** A gateway in front of the API (else ANTHROPIC_BASE_URL, else Anthropic's own). */
  baseUrl?: string;
  /** The environment variable that holds the key (default ANTHROPIC_API_KEY). */
  apiKeyEnv?: string;
  maxOutputTokens?: number;
  thinking?: ThinkingSetting;
  effort?: Effort;
  /** Prompt-cache breakpoints (default on). */
  cache?: boolean;
  timeoutMs?: number;
  /** Attempts after the first: the SDK's for HTTP errors, ours for an overloaded stream. */
  maxRetries?: number;
  retryBaseDelayMs?: number;
  env?: NodeJS.ProcessEnv;
}

export function createAnthropicModel(options: AnthropicModelOptions = {}): Model {
  const env = options.env ?? process.env;
  const keyName = options.apiKeyEnv ?? "ANTHROPIC_API_KEY";
  const apiKey = env[keyName]?.trim() || undefined;
  const baseUrl = options.baseUrl ?? (env["ANTHROPIC_BASE_URL"]?.trim() || undefined);
  const model = options.model ?? DEFAULT_ANTHROPIC_MODEL;
  const shape: RequestShape = {
    model,
    maxOutputTokens: options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    thinking: options.thinking,
    effort: options.effort,
    cache: options.cache ?? true,
  };
  const maxRetries = options.maxRetries ?? 2;
  const baseDelayMs = options.retryBaseDelayMs ?? 1_000;
  const ctx: ErrorContext = {
    where: baseUrl === undefined ? "The Anthropic API" : baseUrl,
    keyName,
    model,
    thinking: options.thinking,
    scrub: (text) => (apiKey === undefined ? text : text.split(apiKey).join("[redacted]")),
  };

  let client: Anthropic | undefined;
  const getClient = async (): Promise<Anthropic> => {
    if (client) return client;
    if (apiKey === undefined) {
      const named =
        options.apiKeyEnv === undefined
          ? `set ${keyName} (an Anthropic API key, from console.anthropic.com)`
          : `apiKeyEnv names ${keyName}, which is not set or empty: set it`;
      throw new ModelError(
        "no_api_key",
        `No Anthropic API key: ${named} in the environment of the lockstep server (nothing was sent).`,
      );
    }
    // Loaded on first use, from node_modules: most sessions never call a model.
    const { default: AnthropicClient } = await import("@anthropic-ai/sdk");
    client = new AnthropicClient({
      apiKey,
      // The key given, and nothing the SDK would find on its own (a bearer token, a profile).
      authToken: null,
      ...(baseUrl === undefined ? {} : { baseURL: baseUrl }),
      timeout: options.timeoutMs ?? 120_000,
      maxRetries,
    });
    return client;
  };

  return {
    name: model,

    async *stream(request: GenerateRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      const anthropic = await getClient();
      const body = buildMessagesRequest(request, shape);
      for (let attempt = 0; ; attempt++) {
        const reader = new StreamReader(model, shape.maxOutputTokens);
        try {
          const events = await anthropic.messages.create(body, { signal });
          for await (const event of events) yield* reader.read(event);
          // The SDK ends a stream quietly when it is aborted: that is not an answer.
          if (signal.aborted) throw new ModelError("cancelled", "The model request was cancelled.");
          yield* reader.end();
          return;
        } catch (error) {
          const failure = classifyAnthropicError(error, signal, ctx);
          // Once part of the answer was shown, a retry would show it twice.
          if (!failure.retryable || reader.shown || attempt >= maxRetries) throw failure.error;
          const delay = baseDelayMs * 2 ** attempt * (0.5 + Math.random() / 2);
          await sleep(delay, undefined, { signal }).catch(() => {
            throw new ModelError("cancelled", "The model request was cancelled.");
          });
        }
      }
    },

    async generateJson(request: JsonRequest, signal: AbortSignal): Promise<unknown> {
      const anthropic = await getClient();
      try {
        const response = await anthropic.messages.create(
          {
            model,
            // A short answer, but above a thinking budget (the API wants max_tokens over it).
            max_tokens: Math.min(
              shape.maxOutputTokens,
              Math.max(8_192, typeof shape.thinking === "number" ? shape.thinking + 4_096 : 0),
            ),
            system: `${request.system}\nAnswer with one JSON object that follows this JSON Schema, and nothing else:\n${JSON.stringify(request.schema)}`,
            messages: [{ role: "user", content: request.prompt }],
            ...thinkingParams(shape),
          },
          { signal },
        );
        const text = response.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
        return JSON.parse(text.trim().replace(/^```(?:json)?\s*|\s*```$/g, "")) as unknown;
      } catch (error) {
        if (error instanceof SyntaxError)
          throw new ModelError(
            "bad_response",
            `Claude's structured answer is not valid JSON: ${error.message}`,
          );
        throw classifyAnthropicError(error, signal, ctx).error;
      }
    },
  };
}

type Block =
  | { type: "text" }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; json: string }
  | { type: "other" };

/** One response's events turned into ours, block by block. */
class StreamReader {
  /** Whether the user has seen any of the answer (text or thoughts). */
  shown = false;
  private readonly blocks = new Map<number, Block>();
  private usage: Usage = { input_tokens: 0, output_tokens: 0 };
  private stopReason: string | null = null;
  /** A tool call whose input did not parse: an error, unless the answer was cut off. */
  private broken: string | undefined;

  constructor(
    private readonly model: string,
    private readonly maxOutputTokens: number,
  ) {}

  *read(event: Anthropic.Messages.RawMessageStreamEvent): Generator<ModelEvent> {
    switch (event.type) {
      case "message_start":
        this.usage = usageOf(event.message.usage);
        break;
      case "content_block_start": {
        const b = event.content_block;
        if (b.type === "text") {
          this.blocks.set(event.index, { type: "text" });
          if (b.text !== "") yield this.show({ type: "text", text: b.text });
        } else if (b.type === "thinking") {
          this.blocks.set(event.index, { type: "thinking", thinking: b.thinking, signature: b.signature });
          if (b.thinking !== "") yield this.show({ type: "thought", text: b.thinking });
        } else if (b.type === "redacted_thinking") {
          this.blocks.set(event.index, { type: "redacted_thinking", data: b.data });
        } else if (b.type === "tool_use") {
          this.blocks.set(event.index, { type: "tool_use", id: b.id, name: b.name, json: "" });
        } else {
          this.blocks.set(event.index, { type: "other" });
        }
        break;
      }
      case "content_block_delta": {
        const block = this.blocks.get(event.index);
        const d = event.delta;
        if (d.type === "text_delta" && d.text !== "") yield this.show({ type: "text", text: d.text });
        else if (d.type === "thinking_delta" && block?.type === "thinking") {
          block.thinking += d.thinking;
          if (d.thinking !== "") yield this.show({ type: "thought", text: d.thinking });
        } else if (d.type === "signature_delta" && block?.type === "thinking") block.signature += d.signature;
        else if (d.type === "input_json_delta" && block?.type === "tool_use") block.json += d.partial_json;
        break;
      }
      case "content_block_stop": {
        const block = this.blocks.get(event.index);
        if (block?.type === "thinking")
          yield {
            type: "reasoning",
            part: { thinking: block.thinking, signature: block.signature, model: this.model },
          };
        else if (block?.type === "redacted_thinking")
          yield { type: "reasoning", part: { redactedThinking: block.data, model: this.model } };
        else if (block?.type === "tool_use") {
          const call = parseCall(block);
          if (call === undefined) this.broken ??= block.name;
          else yield { type: "functionCall", call };
        }
        break;
      }
      case "message_delta":
        this.stopReason = event.delta.stop_reason ?? this.stopReason;
        this.usage = usageOf(event.usage, this.usage);
        break;
      case "message_stop":
        break;
    }
  }

  *end(): Generator<ModelEvent> {
    if (this.stopReason === "max_tokens") {
      const dropped =
        this.broken === undefined ? "" : ` The call to ${this.broken} it was writing was dropped.`;
      yield this.show({
        type: "text",
        text: `\n\n(The answer was cut off: it reached maxOutputTokens, ${this.maxOutputTokens} tokens, thinking included.${dropped} Raise \`maxOutputTokens\`, or ask for less.)`,
      });
    } else if (this.stopReason === "model_context_window_exceeded") {
      yield this.show({
        type: "text",
        text: "\n\n(The answer was cut off: the conversation filled the model's context. Start a new session, or mention fewer files.)",
      });
    } else if (this.stopReason === "refusal") {
      yield this.show({ type: "text", text: "\n\n(Claude declined to continue this request.)" });
    } else if (this.broken !== undefined) {
      throw new ModelError(
        "bad_response",
        `The model sent arguments for ${this.broken} that are not a JSON object.`,
      );
    }
    yield { type: "usage", usage: this.usage };
  }

  private show(event: ModelEvent): ModelEvent {
    this.shown = true;
    return event;
  }
}

interface SdkUsage {
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/**
 * Our usage from the API's: input_tokens there counts only what was neither read from nor written
 * to the cache, so the three add up to what was sent. message_delta repeats (or omits) the
 * figures message_start gave; a missing one keeps the earlier value.
 */
function usageOf(u: SdkUsage, before?: Usage): Usage {
  const read = u.cache_read_input_tokens ?? before?.cache_read_input_tokens ?? 0;
  const written = u.cache_creation_input_tokens ?? before?.cache_creation_input_tokens ?? 0;
  const fresh =
    u.input_tokens ??
    (before === undefined
      ? 0
      : before.input_tokens -
        (before.cache_read_input_tokens ?? 0) -
        (before.cache_creation_input_tokens ?? 0));
  return {
    input_tokens: fresh + read + written,
    output_tokens: u.output_tokens ?? before?.output_tokens ?? 0,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: written,
  };
}

function parseCall(block: { id: string; name: string; json: string }): FunctionCall | undefined {
  let input: unknown;
  try {
    input = block.json.trim() === "" ? {} : JSON.parse(block.json);
  } catch {
    return undefined;
  }
  if (typeof input !== "object" || input === null || Array.isArray(input)) return undefined;
  return { id: block.id, name: block.name, args: input as Record<string, unknown> };
}
