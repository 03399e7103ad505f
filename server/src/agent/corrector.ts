// The edit tool's last resort: one structured-output call that repairs an
// old_string which matched nothing. Bounded in time and cached by its inputs.
import { sha256 } from "../edit/shared/text.js";
import type { CorrectionAnswer, CorrectionRequest, EditCorrector } from "../tools/tool.js";
import type { Model } from "./model.js";

export const CORRECTION_TIMEOUT_MS = 40_000;
export const CORRECTION_CACHE_SIZE = 50;

const SYSTEM = `You repair failed search-and-replace edits. You get what the edit was for, the search text that matched nothing, its replacement, the error, and the file's full current content.
Answer with a search string copied exactly from the file (same whitespace and indentation) that stands for what the original search meant, as close to it as possible, and the replacement, usually unchanged. If the file already contains the intended change, set noChangesRequired to true. Explain in one sentence what was wrong.`;

const SCHEMA = {
  type: "object",
  properties: {
    search: { type: "string" },
    replace: { type: "string" },
    noChangesRequired: { type: "boolean" },
    explanation: { type: "string" },
  },
  required: ["search", "replace", "noChangesRequired", "explanation"],
};

function isAnswer(value: unknown): value is CorrectionAnswer {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v["search"] === "string" &&
    typeof v["replace"] === "string" &&
    typeof v["noChangesRequired"] === "boolean" &&
    typeof v["explanation"] === "string"
  );
}

export class ModelEditCorrector implements EditCorrector {
  /** Map keeps insertion order: the first key is the least recently used. */
  private readonly cache = new Map<string, CorrectionAnswer | undefined>();

  constructor(
    private readonly model: () => Promise<Model>,
    private readonly timeoutMs = CORRECTION_TIMEOUT_MS,
  ) {}

  async correct(request: CorrectionRequest, signal: AbortSignal): Promise<CorrectionAnswer | undefined> {
    const key = sha256(
      JSON.stringify([
        request.instruction,
        request.old_string,
        request.new_string,
        request.error,
        request.content,
      ]),
    );
    if (this.cache.has(key)) {
      const hit = this.cache.get(key);
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const prompt = [
      `What the edit is for: ${request.instruction || "(not given)"}`,
      `Search text that failed:\n${request.old_string}`,
      `Replacement:\n${request.new_string}`,
      `Error: ${request.error}`,
      `Current file content:\n${request.content}`,
    ].join("\n\n");
    let answer: CorrectionAnswer | undefined;
    try {
      const json = await (
        await this.model()
      ).generateJson(
        { system: SYSTEM, prompt, schema: SCHEMA },
        AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]),
      );
      answer = isAnswer(json) ? json : undefined;
    } catch {
      // A timeout or a model error leaves the original failure to stand.
      return undefined;
    }
    this.cache.set(key, answer);
    if (this.cache.size > CORRECTION_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    return answer;
  }
}
