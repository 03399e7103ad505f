// Which model the agent talks to: a recorded session (offline demo, tests) or
// Gemini. Built on first use and kept while the settings that shape it hold;
// the Gemini SDK is loaded only then, since most sessions never ask the model.
import { readFileSync } from "node:fs";
import type { Model } from "./model.js";
import { createReplayModel, loadReplayScript } from "./replay-model.js";

export interface ModelSettings {
  model: string;
  modelTimeoutMs: number;
  replay?: string | undefined;
  replayDelayMs: number;
}

export class ModelFactory {
  private cached: { key: string; model: Model } | undefined;

  constructor(private readonly settings: () => ModelSettings) {}

  /** The model for the current settings; throws a ModelError (no_api_key) or an Error for a bad replay script. */
  async current(): Promise<Model> {
    const s = this.settings();
    const key = JSON.stringify([s.replay, s.replayDelayMs, s.model, s.modelTimeoutMs]);
    if (this.cached?.key === key) return this.cached.model;
    let model: Model;
    if (s.replay) {
      let json: unknown;
      try {
        json = JSON.parse(readFileSync(s.replay, "utf8"));
      } catch (error) {
        const why = error instanceof SyntaxError ? `it is not valid JSON (${error.message})` : error instanceof Error ? error.message : String(error);
        throw new Error(`The replay script ${s.replay} cannot be read: ${why}. Give a JSON file recorded by lockstep, such as demo/session.json.`);
      }
      const script = loadReplayScript(json);
      if (!script.ok) throw new Error(`The replay script ${s.replay} is invalid: ${script.error.message}`);
      model = createReplayModel(script.value, { chunkDelayMs: s.replayDelayMs });
    } else {
      const { createGeminiModel } = await import("./gemini-model.js");
      model = createGeminiModel({ model: s.model, timeoutMs: s.modelTimeoutMs });
    }
    this.cached = { key, model };
    return model;
  }
}
