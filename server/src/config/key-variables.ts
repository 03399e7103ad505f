// The variables that may hold a provider's key: the providers' own and the one `apiKeyEnv`
// names. Their values are never stored (sessions/) and never given to a command the agent
// runs (commands/): the variables are removed, a value printed anyway is redacted.
const KEY_VARIABLES = ["GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

/** Short values are left alone: redacting "1" would mangle every text it appears in. */
const MIN_SECRET_LENGTH = 8;

export function keyVariables(apiKeyEnv: string | undefined): string[] {
  return [...new Set([...KEY_VARIABLES, ...(apiKeyEnv === undefined ? [] : [apiKeyEnv])])];
}

/** Each key variable set to a value long enough to redact, with its name. */
export function namedKeySecrets(
  apiKeyEnv: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { name: string; value: string }[] {
  return keyVariables(apiKeyEnv).flatMap((name) => {
    const value = env[name];
    return value !== undefined && value.length >= MIN_SECRET_LENGTH ? [{ name, value }] : [];
  });
}
