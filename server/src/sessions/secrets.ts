// What the store, the transcript and the logs must never hold: whatever the key
// variables a provider reads contain, and anything shaped like a common credential
// (a key typed into a prompt, pasted from a file, echoed by a tool). Redacted from
// every line before it is written.
const KEY_VARIABLES = ["GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

/** Short values are left alone: redacting "1" would mangle every file the store keeps. */
const MIN_SECRET_LENGTH = 8;

export function keySecrets(apiKeyEnv: string | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  const names = new Set([...KEY_VARIABLES, ...(apiKeyEnv === undefined ? [] : [apiKeyEnv])]);
  return [...names].map((name) => env[name]).filter((v): v is string => v !== undefined && v.length >= MIN_SECRET_LENGTH);
}

export const REDACTED = "[redacted]";

/**
 * Credential shapes as their issuers document them, long enough not to match ordinary words: OpenAI
 * (`sk-`, `sk-proj-`, `sk-svcacct-`) and Anthropic (`sk-ant-`), Google (`AIza` + 35), GitHub (`ghp_`,
 * `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), AWS access key ids (`AKIA`/`ASIA` + 16), Slack
 * (`xoxb-`, `xoxp-`, …), JWTs (three base64url parts, the first two JSON objects), and what follows `Bearer`.
 */
/** Where a token may start: not inside a word, or right after an escape in JSON text (`\n`, `\t`, …). */
const START = String.raw`(?:(?<![A-Za-z0-9_])|(?<=\\[nrtbf]))`;
const shape = (body: string): RegExp => new RegExp(START + body, "g");
const TOKEN_SHAPES: readonly RegExp[] = [
  shape(String.raw`sk-[A-Za-z0-9_-]{32,}`),
  shape(String.raw`AIza[0-9A-Za-z_-]{35}`),
  shape(String.raw`gh[pousr]_[A-Za-z0-9]{30,}`),
  shape(String.raw`github_pat_[A-Za-z0-9_]{22,}`),
  shape(String.raw`(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z])`),
  shape(String.raw`xox[abposr]-[A-Za-z0-9-]{10,}`),
  shape(String.raw`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`),
];
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{16,}/g;

/** `text` with every credential-shaped run replaced by [redacted]. */
export function redactTokens(text: string): string {
  let out = text;
  for (const token of TOKEN_SHAPES) out = out.replace(token, REDACTED);
  return out.replace(BEARER, `$1${REDACTED}`);
}
