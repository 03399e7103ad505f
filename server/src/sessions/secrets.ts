// The values the store must never hold: whatever the key variables a provider
// reads contain. Redacted from every line before it is written.
const KEY_VARIABLES = ["GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

/** Short values are left alone: redacting "1" would mangle every file the store keeps. */
const MIN_SECRET_LENGTH = 8;

/** The names of the variables that may hold a provider's key: the providers' own and `apiKeyEnv`. */
export function keyVariables(apiKeyEnv: string | undefined): string[] {
  return [...new Set([...KEY_VARIABLES, ...(apiKeyEnv === undefined ? [] : [apiKeyEnv])])];
}

export function keySecrets(apiKeyEnv: string | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  return keyVariables(apiKeyEnv).map((name) => env[name]).filter((v): v is string => v !== undefined && v.length >= MIN_SECRET_LENGTH);
}

/** Each key variable set to a value long enough to redact, with its name (a command's output names it). */
export function namedKeySecrets(apiKeyEnv: string | undefined, env: NodeJS.ProcessEnv = process.env): { name: string; value: string }[] {
  return keyVariables(apiKeyEnv).flatMap((name) => {
    const value = env[name];
    return value !== undefined && value.length >= MIN_SECRET_LENGTH ? [{ name, value }] : [];
  });
}
