// Whether the model's three settings (provider, baseUrl, model) were set in more than one place:
// an editor's `model = "gemini-2.5-pro"` over a project file's `provider: "openai"` makes a pair
// nobody wrote together, which every view must say rather than show as fine. A default is no
// place: a provider left to its default with a model set is one choice, not two.

export const MODEL_KEYS = ["provider", "baseUrl", "model"] as const;
export type ModelKey = (typeof MODEL_KEYS)[number];

/** Where one of the three was set: `place` tells places apart, `label` names it for a person. */
export interface ModelSource {
  /** The same for keys set in the same place (one file, the environment, the command line, the editor). */
  place: string;
  label: string;
}

/**
 * The warning for keys set in different places, naming each with its value and place; undefined
 * when the keys set (not left to their default) were set in one place.
 */
export function mixedModelSources(
  values: Partial<Record<ModelKey, unknown>>,
  sources: Partial<Record<ModelKey, ModelSource | undefined>>,
): string | undefined {
  const set = MODEL_KEYS.filter((k) => sources[k] !== undefined && values[k] !== undefined);
  const places = new Set(set.map((k) => sources[k]!.place));
  if (places.size < 2) return undefined;
  const named = set.map((k) => `${k} ${String(values[k])} (${sources[k]!.label})`);
  return (
    `the model's settings come from different places and may not fit together: ${named.join(", ")}. ` +
    `Set provider, baseUrl and model in one place.`
  );
}
