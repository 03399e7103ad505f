// Who serves the model, by the names users give it: `gemini`, `openai` (any OpenAI-compatible
// endpoint), and the local servers by name (`ollama`, `lmstudio`, `llamacpp`), which are the
// OpenAI-compatible provider with their usual local address as the default baseUrl and no key.

export const LOCAL_BASE_URLS = {
  ollama: "http://localhost:11434/v1",
  lmstudio: "http://localhost:1234/v1",
  llamacpp: "http://localhost:8080/v1",
} as const;

export type LocalProvider = keyof typeof LOCAL_BASE_URLS;

export const PROVIDERS = ["gemini", "openai", "ollama", "lmstudio", "llamacpp"] as const;

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
