// What the settings layer needs to know of each provider without loading its adapter:
// where its key is read from, and the defaults the docs and messages name. The local model
// servers by name (`ollama`, `lmstudio`, `llamacpp`) are the OpenAI-compatible provider with
// their usual local address as the default baseUrl, and need no key.

export const LOCAL_BASE_URLS = {
  ollama: "http://localhost:11434/v1",
  lmstudio: "http://localhost:1234/v1",
  llamacpp: "http://localhost:8080/v1",
} as const;

export type LocalProvider = keyof typeof LOCAL_BASE_URLS;

export const PROVIDERS = ["gemini", "openai", "anthropic", "ollama", "lmstudio", "llamacpp"] as const;

export type ProviderName = (typeof PROVIDERS)[number];

export function isLocalProvider(provider: string): provider is LocalProvider {
  return Object.hasOwn(LOCAL_BASE_URLS, provider);
}

/** Whether the provider speaks OpenAI's Chat Completions (openai and the local servers). */
export function isOpenAiCompatible(provider: string): boolean {
  return provider === "openai" || isLocalProvider(provider);
}

/** The base URL in use: the one set, else the local server's usual one; undefined is the provider's own service. */
export function baseUrlInUse(s: { provider: string; baseUrl?: string | undefined }): string | undefined {
  return s.baseUrl ?? (isLocalProvider(s.provider) ? LOCAL_BASE_URLS[s.provider] : undefined);
}

/** The one line of .lockstep.json that sets up a local model, for the no-key messages. */
export const LOCAL_MODEL_LINE = '{"provider": "ollama", "model": "qwen2.5-coder:7b"}';

/** The variables a provider reads its key from, in order, when apiKeyEnv names none. */
export function keyVariablesOf(provider: ProviderName): string[] {
  if (isOpenAiCompatible(provider)) return ["OPENAI_API_KEY"];
  if (provider === "anthropic") return ["ANTHROPIC_API_KEY"];
  return ["GEMINI_API_KEY", "GOOGLE_API_KEY"];
}

/** Gemini's default: fast and cheap, with tool calling. */
export const DEFAULT_GEMINI_MODEL = "gemini-2.5-flash";

/** Claude's default: the current Sonnet, Anthropic's balance of speed and capability for coding. */
export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-5-5";

/** Room for thinking and a long answer (thinking counts toward it); every current Claude model allows it. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 32_000;
