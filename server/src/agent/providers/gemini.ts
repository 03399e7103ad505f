// The Model backed by Gemini through @google/genai. Only this file and its two parts see
// the SDK's types. It owns what the SDK leaves to callers: reading the key from
// the environment, retries with backoff, an overall deadline, and turning every
// failure into a ModelError whose message never contains the key. The shapes are
// gemini-messages.ts's; the deadline, the failures' meaning and the backoff gemini-errors.ts's.
import { DEFAULT_GEMINI_MODEL, LOCAL_MODEL_LINE } from "../../config/provider-facts.js";
import { GoogleGenAI } from "@google/genai";
import { ModelError } from "../model.js";
import type { GenerateRequest, JsonRequest, Model, ModelEvent } from "../model.js";
import { backoff, classify, startDeadline, type RetryPolicy } from "./gemini-errors.js";
import { eventsOf, parseJsonAnswer, toContent } from "./gemini-messages.js";

export { DEFAULT_GEMINI_MODEL };
const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_RETRY_BASE_DELAY_MS = 1_000;

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
