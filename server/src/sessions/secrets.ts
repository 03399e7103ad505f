// The values the store must never hold: whatever the key variables a provider
// reads contain. Redacted from every line before it is written.
const KEY_VARIABLES = ["GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

/** Short values are left alone: redacting "1" would mangle every file the store keeps. */
const MIN_SECRET_LENGTH = 8;

export function keySecrets(apiKeyEnv: string | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  const names = new Set([...KEY_VARIABLES, ...(apiKeyEnv === undefined ? [] : [apiKeyEnv])]);
  return [...names].map((name) => env[name]).filter((v): v is string => v !== undefined && v.length >= MIN_SECRET_LENGTH);
}
