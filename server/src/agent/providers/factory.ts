// Which model the agent talks to: a recorded session (offline demo, tests),
// Gemini, an OpenAI-compatible endpoint, or Claude. Built on first use and kept while the settings that
// shape it hold; each SDK is loaded only then, since most sessions never ask the model.
import { nestingPastLimit } from "../../config/json-depth.js";
import { readBoundedFile } from "../../config/bounded-read.js";
import { ModelError, type Model } from "../model.js";
import type { Effort, ThinkingSetting } from "./anthropic-request.js";
import { baseUrlInUse, isOpenAiCompatible, type ProviderName } from "../../config/provider-facts.js";
import { createReplayModel, loadReplayScript } from "./replay.js";

export interface ModelSettings {
  provider: ProviderName;
  model?: string | undefined;
  baseUrl?: string | undefined;
  apiKeyEnv?: string | undefined;
  modelTimeoutMs: number;
  replay?: string | undefined;
  replayDelayMs: number;
  maxOutputTokens?: number | undefined;
  thinking?: ThinkingSetting | undefined;
  effort?: Effort | undefined;
}

const REPLAY_MAX_BYTES = 64 * 1024 * 1024;
const REPLAY_MAX_DEPTH = 256;

export class ModelFactory {
  private cached: { key: string; model: Model } | undefined;

  constructor(private readonly settings: () => ModelSettings) {}

  /** The model for the current settings; throws a ModelError (no_api_key) or an Error for a bad replay script. */
  async current(): Promise<Model> {
    const s = this.settings();
    // Keyed by every setting that shapes a model, as a whole: a change to any of them builds a new one.
    const key = JSON.stringify([
      s.provider,
      s.model,
      s.baseUrl,
      s.apiKeyEnv,
      s.modelTimeoutMs,
      s.replay,
      s.replayDelayMs,
      s.maxOutputTokens,
      s.thinking,
      s.effort,
    ]);
    if (this.cached?.key === key) return this.cached.model;
    let model: Model;
    if (s.replay) {
      // Through the bounded reader: a FIFO or a device is refused at once, never waited on; a giant file is refused.
      const read = readBoundedFile(s.replay, { maxBytes: REPLAY_MAX_BYTES });
      const hint = "Give a JSON file recorded by lockstep, such as demo/session.json.";
      if (read.kind === "absent")
        throw new Error(`The replay script ${s.replay} cannot be read: no such file. ${hint}`);
      if (read.kind === "refused") throw new Error(`The replay script ${read.message}. ${hint}`);
      if (nestingPastLimit(read.text, REPLAY_MAX_DEPTH) !== undefined)
        throw new Error(
          `The replay script ${s.replay} is nested deeper than ${REPLAY_MAX_DEPTH} levels. ${hint}`,
        );
      let json: unknown;
      try {
        json = JSON.parse(read.text);
      } catch {
        // Not the parser's message: it quotes the file's first bytes, which may be another file's secrets.
        throw new Error(`The replay script ${s.replay} cannot be read: it is not valid JSON. ${hint}`);
      }
      const script = loadReplayScript(json);
      if (!script.ok) throw new Error(`The replay script ${s.replay} is invalid: ${script.error.message}`);
      model = createReplayModel(script.value, { chunkDelayMs: s.replayDelayMs });
    } else if (s.provider === "anthropic") {
      const { createAnthropicModel } = await import("./anthropic.js");
      model = createAnthropicModel({
        timeoutMs: s.modelTimeoutMs,
        ...definedOnly({
          model: s.model,
          baseUrl: s.baseUrl,
          apiKeyEnv: s.apiKeyEnv,
          maxOutputTokens: s.maxOutputTokens,
          thinking: s.thinking,
          effort: s.effort,
        }),
      });
    } else if (isOpenAiCompatible(s.provider)) {
      if (s.model === undefined) {
        throw new ModelError(
          "bad_response",
          `The ${s.provider} provider needs the model named: set \`model\` (e.g. qwen2.5-coder:7b on Ollama, gpt-4.1-mini on OpenAI).`,
        );
      }
      const { createOpenAiModel } = await import("./openai.js");
      const baseUrl = baseUrlInUse(s);
      model = createOpenAiModel({
        model: s.model,
        timeoutMs: s.modelTimeoutMs,
        ...(baseUrl === undefined ? {} : { baseUrl }),
        ...(s.apiKeyEnv === undefined ? {} : { apiKeyEnv: s.apiKeyEnv }),
      });
    } else {
      const { createGeminiModel } = await import("./gemini.js");
      const apiKey = s.apiKeyEnv === undefined ? undefined : process.env[s.apiKeyEnv]?.trim();
      // A variable named on purpose and empty is a mistake, not a cue to fall back on another key.
      if (s.apiKeyEnv !== undefined && !apiKey) {
        throw new ModelError(
          "no_api_key",
          `apiKeyEnv names ${s.apiKeyEnv}, which is not set or empty in the environment of the lockstep server: set it there (nothing was sent).`,
        );
      }
      model = createGeminiModel({
        ...(s.model === undefined ? {} : { model: s.model }),
        timeoutMs: s.modelTimeoutMs,
        ...(apiKey ? { apiKey } : {}),
      });
    }
    this.cached = { key, model };
    return model;
  }
}

/** The entries whose value is set (exactOptionalPropertyTypes: an option is absent, not undefined). */
function definedOnly<T extends Record<string, unknown>>(
  values: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
