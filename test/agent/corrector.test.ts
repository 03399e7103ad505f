import { describe, expect, it } from "vitest";
import { CORRECTION_CACHE_SIZE, ModelEditCorrector } from "../../server/src/agent/corrector.js";
import type { JsonRequest, Model } from "../../server/src/agent/model.js";
import type { CorrectionRequest } from "../../server/src/tools/tool.js";

/** A model whose structured answers come from a function; counts its calls. */
function fakeModel(
  answer: (request: JsonRequest, signal: AbortSignal) => Promise<unknown>,
): Model & { calls: JsonRequest[] } {
  const calls: JsonRequest[] = [];
  return {
    name: "fake",
    calls,
    stream: () => {
      throw new Error("not used");
    },
    generateJson: (request, signal) => {
      calls.push(request);
      return answer(request, signal);
    },
  };
}

const request = (n = 0): CorrectionRequest => ({
  instruction: "raise the tax rate",
  old_string: `const taxRate = 0.0${n};`,
  new_string: "const taxRate = 0.075;",
  error: "Edit Failed: old_string was not found",
  content: "const TAX_RATE = 0.05;\n",
});

const good = {
  search: "const TAX_RATE = 0.05;",
  replace: "const TAX_RATE = 0.075;",
  noChangesRequired: false,
  explanation: "The name is upper case.",
};

describe("ModelEditCorrector", () => {
  it("asks once with the instruction, the failed strings, the error and the file, and answers what the model said", async () => {
    const model = fakeModel(async () => good);
    const corrector = new ModelEditCorrector(async () => model);
    expect(await corrector.correct(request(), new AbortController().signal)).toEqual(good);
    const prompt = model.calls[0]!.prompt;
    for (const part of [
      "raise the tax rate",
      "const taxRate = 0.00;",
      "const taxRate = 0.075;",
      "old_string was not found",
      "const TAX_RATE = 0.05;",
    ])
      expect(prompt).toContain(part);
  });

  it("answers the same inputs from its cache, and different inputs with a new call", async () => {
    const model = fakeModel(async () => good);
    const corrector = new ModelEditCorrector(async () => model);
    const signal = new AbortController().signal;
    await corrector.correct(request(1), signal);
    await corrector.correct(request(1), signal);
    expect(model.calls).toHaveLength(1);
    await corrector.correct(request(2), signal);
    expect(model.calls).toHaveLength(2);
  });

  it(`keeps at most ${CORRECTION_CACHE_SIZE} answers, dropping the least recently used`, async () => {
    const model = fakeModel(async () => good);
    const corrector = new ModelEditCorrector(async () => model);
    const signal = new AbortController().signal;
    for (let i = 0; i <= CORRECTION_CACHE_SIZE; i++) await corrector.correct(request(100 + i), signal);
    expect(model.calls).toHaveLength(CORRECTION_CACHE_SIZE + 1);
    await corrector.correct(request(100 + CORRECTION_CACHE_SIZE), signal); // most recent: cached
    expect(model.calls).toHaveLength(CORRECTION_CACHE_SIZE + 1);
    await corrector.correct(request(100), signal); // the oldest was dropped
    expect(model.calls).toHaveLength(CORRECTION_CACHE_SIZE + 2);
  });

  it.each([
    ["a malformed answer", async () => ({ search: 1 })],
    ["a model error", async () => Promise.reject(new Error("boom"))],
  ])("gives up on %s (the original failure stands)", async (_name, answer) => {
    const corrector = new ModelEditCorrector(async () => fakeModel(answer));
    expect(await corrector.correct(request(), new AbortController().signal)).toBeUndefined();
  });

  it("gives up when the model takes longer than the timeout", async () => {
    const hanging = fakeModel(
      (_r, signal) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () => reject(new Error("aborted"))),
        ),
    );
    const corrector = new ModelEditCorrector(async () => hanging, 50);
    expect(await corrector.correct(request(), new AbortController().signal)).toBeUndefined();
  });
});
