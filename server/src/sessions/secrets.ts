// The values the store must never hold: whatever the key variables a provider
// reads contain. Redacted from every line before it is written.
import { namedKeySecrets } from "../config/key-variables.js";

export function keySecrets(apiKeyEnv: string | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  return namedKeySecrets(apiKeyEnv, env).map((s) => s.value);
}
