// The Model backed by any OpenAI-compatible Chat Completions endpoint (OpenAI,
// OpenRouter, vLLM, Ollama, llama.cpp) through the official `openai` package.
// The only file that sees that SDK. The SDK retries 429 and 5xx itself, honouring
// Retry-After; this file keeps the turn loop's semantics on that protocol: text
// streamed, the tool calls of one assistant message assembled from their deltas,
// each call's result sent back as one `tool` message per call id, and every
// failure a ModelError whose message never contains the key.
import type OpenAI from "openai";
import {
  ModelError,
  type FunctionCall,
  type GenerateRequest,
  type JsonRequest,
  type Message,
  type Model,
  type ModelEvent,
} from "../model.js";
import { shownUrl } from "../../config/shown-url.js";

export interface OpenAiModelOptions {
  model: string;
  /** The endpoint, e.g. http://localhost:11434/v1 for Ollama; OpenAI's own when undefined. */
  baseUrl?: string;
  /** The environment variable that holds the key; a local server needs none. */
  apiKeyEnv?: string;
  timeoutMs?: number;
  maxRetries?: number;
  env?: NodeJS.ProcessEnv;
}

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

export function createOpenAiModel(options: OpenAiModelOptions): Model {
  const env = options.env ?? process.env;
  const keyName = options.apiKeyEnv ?? "OPENAI_API_KEY";
  const apiKey = env[keyName]?.trim() || undefined;
  const scrub = (text: string): string =>
    apiKey === undefined ? text : text.split(apiKey).join("[redacted]");
  const where = options.baseUrl !== undefined ? shownUrl(options.baseUrl) : "the OpenAI API";

  let client: OpenAI | undefined;
  const getClient = async (): Promise<OpenAI> => {
    if (client) return client;
    // A variable named on purpose and empty is a mistake, said before anything is sent (not a request with no key).
    if (apiKey === undefined && options.apiKeyEnv !== undefined) {
      throw new ModelError(
        "no_api_key",
        `apiKeyEnv names ${keyName}, which is not set or empty in the environment of the lockstep server: set it there (nothing was sent).`,
      );
    }
    if (apiKey === undefined && options.baseUrl === undefined) {
      throw new ModelError(
        "no_api_key",
        `No API key: set ${keyName} in the environment of the lockstep server, or set baseUrl to a local endpoint that needs none.`,
      );
    }
    // Loaded on first use, from node_modules: most sessions never call a model.
    const { default: OpenAiClient } = await import("openai");
    client = new OpenAiClient({
      // The SDK insists on a key (and would read OPENAI_API_KEY itself); with none, no Authorization header is sent at all.
      apiKey: apiKey ?? "unused",
      ...(apiKey === undefined ? { defaultHeaders: { Authorization: null } } : {}),
      ...(options.baseUrl === undefined ? {} : { baseURL: options.baseUrl }),
      timeout: options.timeoutMs ?? 120_000,
      maxRetries: options.maxRetries ?? 3,
    });
    return client;
  };

  const fail = (error: unknown, signal: AbortSignal): ModelError =>
    classify(error, signal, scrub, where, apiKey !== undefined);

  return {
    name: options.model,

    async *stream(request: GenerateRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      const openai = await getClient();
      let stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>;
      try {
        stream = await openai.chat.completions.create(
          {
            model: options.model,
            messages: toMessages(request),
            stream: true,
            // The last chunk then carries the request's token counts (servers that ignore it send none).
            stream_options: { include_usage: true },
            ...(request.tools.length === 0
              ? {}
              : {
                  tools: request.tools.map((t) => ({
                    type: "function" as const,
                    function: {
                      name: t.name,
                      description: t.description,
                      parameters: t.parametersJsonSchema,
                    },
                  })),
                }),
          },
          { signal },
        );
      } catch (error) {
        throw fail(error, signal);
      }
      // The calls of one message arrive in pieces, keyed by index: name first, then argument text.
      const calls = new Map<number, { id: string; name: string; args: string }>();
      let usage: ModelEvent | undefined;
      try {
        for await (const chunk of stream) {
          if (chunk.usage)
            usage = {
              type: "usage",
              usage: {
                input_tokens: chunk.usage.prompt_tokens,
                output_tokens: chunk.usage.completion_tokens,
              },
            };
          const delta = chunk.choices[0]?.delta;
          if (!delta) continue;
          if (delta.content) yield { type: "text", text: delta.content };
          for (const piece of delta.tool_calls ?? []) {
            const call = calls.get(piece.index) ?? { id: "", name: "", args: "" };
            if (piece.id) call.id = piece.id;
            if (piece.function?.name) call.name += piece.function.name;
            if (piece.function?.arguments) call.args += piece.function.arguments;
            calls.set(piece.index, call);
          }
        }
      } catch (error) {
        throw fail(error, signal);
      }
      const ordered = [...calls.entries()].sort((a, b) => a[0] - b[0]);
      for (const [index, call] of ordered) yield { type: "functionCall", call: parseCall(call, index) };
      if (usage) yield usage;
    },

    async generateJson(request: JsonRequest, signal: AbortSignal): Promise<unknown> {
      const openai = await getClient();
      try {
        const response = await openai.chat.completions.create(
          {
            model: options.model,
            messages: [
              {
                role: "system",
                content: `${request.system}\nAnswer with one JSON object that follows this JSON Schema, and nothing else:\n${JSON.stringify(request.schema)}`,
              },
              { role: "user", content: request.prompt },
            ],
            response_format: { type: "json_object" },
          },
          { signal },
        );
        const text = response.choices[0]?.message.content ?? "";
        return JSON.parse(text.replace(/^```(?:json)?\s*|\s*```$/g, "")) as unknown;
      } catch (error) {
        throw fail(error, signal);
      }
    },
  };
}

/** A call as the turn loop wants it; arguments that are not a JSON object are the model's error, reported as such. */
function parseCall(call: { id: string; name: string; args: string }, index: number): FunctionCall {
  let args: unknown;
  try {
    args = call.args.trim() === "" ? {} : JSON.parse(call.args);
  } catch {
    throw new ModelError(
      "bad_response",
      `The model sent arguments for ${call.name || "a tool"} that are not JSON.`,
    );
  }
  if (typeof args !== "object" || args === null || Array.isArray(args))
    throw new ModelError("bad_response", `The model sent arguments for ${call.name} that are not an object.`);
  return { id: call.id || `call_${index}`, name: call.name, args: args as Record<string, unknown> };
}

/** Our history in Chat Completions form: one assistant message per model turn, one `tool` message per call id, in call order. */
function toMessages(request: GenerateRequest): ChatMessage[] {
  const out: ChatMessage[] = request.system === "" ? [] : [{ role: "system", content: request.system }];
  for (const message of request.history) out.push(...fromMessage(message));
  return out;
}

function fromMessage(message: Message): ChatMessage[] {
  if (message.role === "assistant") {
    const text = message.parts.flatMap((p) => ("text" in p ? [p.text] : [])).join("");
    const calls = message.parts.flatMap((p, i) =>
      "functionCall" in p
        ? [
            {
              id: p.functionCall.id ?? `call_${i}`,
              type: "function" as const,
              function: { name: p.functionCall.name, arguments: JSON.stringify(p.functionCall.args) },
            },
          ]
        : [],
    );
    return [
      {
        role: "assistant",
        content: text === "" ? null : text,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      },
    ];
  }
  const out: ChatMessage[] = [];
  const text = message.parts.flatMap((p) => ("text" in p ? [p.text] : [])).join("");
  message.parts.forEach((p, i) => {
    if ("functionResponse" in p)
      out.push({
        role: "tool",
        tool_call_id: p.functionResponse.id ?? `call_${i}`,
        content: JSON.stringify(p.functionResponse.response),
      });
  });
  if (text !== "") out.push({ role: "user", content: text });
  return out;
}

/** Nothing answered at the URL: say so, with the likely fix (a local server not started, or a wrong baseUrl). */
function unreachable(where: string, error: unknown, message: string): string {
  // fetch wraps the socket's error: APIConnectionError → TypeError "fetch failed" → the Error (or, for a name with two addresses, an AggregateError) with the code.
  const chain: unknown[] = [];
  for (
    let e: unknown = error;
    e !== undefined && e !== null && chain.length < 4;
    e = (e as { cause?: unknown }).cause
  )
    chain.push(e, ...((e as { errors?: unknown[] }).errors ?? []));
  const refused = chain.some((e) => (e as { code?: unknown }).code === "ECONNREFUSED");
  if (!refused)
    return `Could not reach ${where}: ${message}. Check that the server runs and baseUrl is right.`;
  const ollama = /:11434\b/.test(where)
    ? " For Ollama: run `ollama serve`, and `ollama pull MODEL` for the model named in `model`."
    : " Start the model server (Ollama: `ollama serve`, and the model pulled with `ollama pull MODEL`), or correct baseUrl.";
  return `Nothing answered at ${where} (connection refused): no server is listening there.${ollama}`;
}

function classify(
  error: unknown,
  signal: AbortSignal,
  scrub: (text: string) => string,
  where: string,
  keySent: boolean,
): ModelError {
  if (signal.aborted) return new ModelError("cancelled", "The model request was cancelled.");
  if (error instanceof ModelError) return error;
  const e = error as { status?: number; name?: string; message?: string };
  const message = scrub(String(e.message ?? error));
  // The SDK's errors keep the name "Error": their class tells them apart.
  const kind = (error as { constructor?: { name?: string } }).constructor?.name ?? e.name;
  if (kind === "APIConnectionTimeoutError" || e.name === "APIConnectionTimeoutError")
    return new ModelError("timeout", `${where} did not answer in time. Try again, or raise modelTimeoutMs.`);
  if ([kind, e.name].some((n) => n === "APIConnectionError" || n === "APIUserAbortError"))
    return new ModelError("network", unreachable(where, error, message));
  if (typeof e.status === "number") {
    if (e.status === 401 || e.status === 403) {
      const sent = keySent
        ? "Check the key in the environment variable apiKeyEnv names."
        : "No key was sent: set apiKeyEnv to the environment variable that holds the endpoint's key (e.g. OPENROUTER_API_KEY).";
      return new ModelError(
        "no_api_key",
        `${where} refused the request (HTTP ${e.status}): ${message}. ${sent}`,
      );
    }
    // Ollama: "… does not support tools"; vLLM and others say it in their own words, all with "tool".
    if (
      e.status === 400 &&
      /\btools?\b/i.test(message) &&
      /support|not enabled|unsupported|not available/i.test(message)
    ) {
      return new ModelError("tools_unsupported", `${where} says the model cannot call tools: ${message}`);
    }
    if (e.status === 429)
      return new ModelError(
        "rate_limited",
        `${where} rate limit reached (HTTP 429) after retries: ${message}. Wait, or use a key with more quota.`,
      );
    if (e.status >= 500)
      return new ModelError(
        "server",
        `${where} failed on its side (HTTP ${e.status}) after retries: ${message}. Try again shortly.`,
      );
    return new ModelError("bad_response", `${where} rejected the request (HTTP ${e.status}): ${message}`);
  }
  return new ModelError("bad_response", `Unexpected answer from ${where}: ${message}`);
}
