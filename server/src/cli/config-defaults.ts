// What `lockstep config` shows for a key left to its default that has no value of its own: the
// value in use (the provider's model, its address, where the sessions go, which variables hold
// the key), never "(unset)", which reads as if nothing would happen.
import type { SettingKey } from "../config/load-settings.js";
import {
  baseUrlInUse,
  DEFAULT_ANTHROPIC_MODEL,
  DEFAULT_GEMINI_MODEL,
  DEFAULT_MAX_OUTPUT_TOKENS,
  keyVariablesOf,
} from "../config/provider-facts.js";
import type { Settings } from "../config/settings.js";
import { shownUrl } from "../config/shown-url.js";
import { stateDirectory } from "../sessions/index.js";

/** The value in use for `key`, left unset, in words; undefined when the key has a value of its own. */
export function defaultInUse(key: SettingKey, s: Settings, env: NodeJS.ProcessEnv): string | undefined {
  if (s[key] !== undefined) return undefined;
  switch (key) {
    case "model":
      if (s.provider === "gemini") return DEFAULT_GEMINI_MODEL;
      if (s.provider === "anthropic") return DEFAULT_ANTHROPIC_MODEL;
      return `none: ${s.provider} needs one named`;
    case "baseUrl": {
      const url = baseUrlInUse(s);
      return url !== undefined ? shownUrl(url) : `${s.provider}'s own service`;
    }
    case "apiKeyEnv":
      return keyVariablesOf(s.provider).join(" or ");
    case "sessionsDir":
      return stateDirectory(undefined, env);
    case "maxOutputTokens":
      return s.provider === "anthropic" ? String(DEFAULT_MAX_OUTPUT_TOKENS) : "the model's own limit";
    case "thinking":
    case "effort":
      return s.provider === "anthropic" ? "the model's default" : "not used by this provider";
    case "transcript":
      return "none";
    case "replay":
      return "none: a real model";
    case "testCommand":
      return "none named to the model";
    default:
      return "none";
  }
}
