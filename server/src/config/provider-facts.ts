// What the settings layer needs to know of each provider without loading its adapter:
// where its key is read from, and the defaults the docs and messages name.

export type ProviderName = "gemini" | "openai" | "anthropic";

/** The variables a provider reads its key from, in order, when apiKeyEnv names none. */
export function keyVariablesOf(provider: ProviderName): string[] {
  if (provider === "openai") return ["OPENAI_API_KEY"];
  if (provider === "anthropic") return ["ANTHROPIC_API_KEY"];
  return ["GEMINI_API_KEY", "GOOGLE_API_KEY"];
}

/** Claude's default: the current Sonnet, Anthropic's balance of speed and capability for coding. */
export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-5-5";

/** Room for thinking and a long answer (thinking counts toward it); every current Claude model allows it. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 32_000;
