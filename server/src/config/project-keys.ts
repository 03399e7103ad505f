// What a project's .lockstep.json may set. A cloned repository is input, not the user:
// until the user trusts its folder, only keys that cannot send, write or run anything apply,
// limits only up to the user's own, and safety keys only made stricter. Paths lockstep
// writes or reads on the user's behalf (replay, transcript, sessionsDir) never come from a
// project file, trusted or not. Every key has a rule here: a new key does not compile
// until someone decides what a repository may do with it.
import { settingsSchema, type Settings } from "./settings.js";

type Key = keyof Settings;

export type ProjectKeyRule =
  /** Cannot send, write or run anything: applies in any folder. */
  | "safe"
  /** A number that applies up to the user's own value. */
  | "limit"
  /** A safety key: applies when it is as strict as the user's own, or stricter. */
  | "stricter"
  /** Applies only in a trusted folder. */
  | "trusted"
  /** Never from a project file. */
  | "user-only";

export const PROJECT_KEY_RULES: Record<Key, ProjectKeyRule> = {
  provider: "trusted",
  model: "safe",
  baseUrl: "trusted",
  tools: "safe",
  apiKeyEnv: "trusted",
  approval: "stricter",
  closedFileEdits: "stricter",
  transcript: "user-only",
  replay: "user-only",
  replayDelayMs: "trusted",
  debug: "trusted",
  applyEditTimeoutMs: "trusted",
  modelTimeoutMs: "trusted",
  maxTurns: "limit",
  maxToolCalls: "limit",
  diagnosticsWaitMs: "safe",
  sessions: "stricter",
  sessionsDir: "user-only",
  patchTool: "safe",
  companion: "stricter",
  // What the user's key pays for (Claude's output and thinking budgets): the user's to choose.
  maxOutputTokens: "trusted",
  thinking: "trusted",
  effort: "trusted",
  // Running commands: the repository may ask for more caution before trust, never for less;
  // the prefixes it would have run unasked wait for trust.
  commands: "stricter",
  allowedCommands: "trusted",
  sandbox: "stricter",
  sandboxNetwork: "stricter",
  testCommand: "trusted",
};

export const USER_ONLY_KEYS = (Object.keys(PROJECT_KEY_RULES) as Key[]).filter(
  (k) => PROJECT_KEY_RULES[k] === "user-only",
);
export const SAFE_PROJECT_KEYS = (Object.keys(PROJECT_KEY_RULES) as Key[]).filter(
  (k) => PROJECT_KEY_RULES[k] !== "trusted" && PROJECT_KEY_RULES[k] !== "user-only",
);

/** How strict each value of a safety key is: a project value applies when its rank is at least the user's. */
const STRICTNESS: Partial<Record<Key, (value: unknown) => number>> = {
  approval: (v) => (v === "auto" ? 0 : 1), // ask and review both ask a person
  closedFileEdits: (v) => (v === "disk" ? 0 : 1),
  sessions: (v) => (v === true ? 0 : 1), // false keeps nothing on disk
  companion: (v) => (v === true ? 0 : 1), // false serves no other agent
  commands: (v) => (v === "auto" ? 0 : v === "ask" ? 1 : 2), // off offers no command at all
  sandbox: (v) => (v === "off" ? 0 : v === "auto" ? 1 : 2), // on refuses to run without one
  sandboxNetwork: (v) => (v === true ? 0 : 1),
};

export interface IgnoredKey {
  key: string;
  /** untrusted: applies once the folder is trusted; user-only: never from a project file; looser: weaker than the user's own. */
  reason: "untrusted" | "user-only" | "looser";
}

export interface ProjectFilter {
  /** The values that apply (unknown keys and invalid values passed on, for the loader to name). */
  accepted: Record<string, unknown>;
  ignored: IgnoredKey[];
}

/** Sorts a project file's values into those that apply over `base` (the user's own settings) and those ignored. */
export function filterProjectValues(
  values: Record<string, unknown>,
  base: Settings,
  trusted: boolean,
): ProjectFilter {
  const accepted: Record<string, unknown> = {};
  const ignored: IgnoredKey[] = [];
  for (const [key, value] of Object.entries(values)) {
    const field = settingsSchema.shape[key as Key];
    const rule = PROJECT_KEY_RULES[key as Key] as ProjectKeyRule | undefined;
    if (!field || rule === undefined) {
      accepted[key] = value;
      continue;
    }
    if (rule === "user-only") {
      ignored.push({ key, reason: "user-only" });
      continue;
    }
    const parsed = field.safeParse(value);
    if (trusted || rule === "safe" || !parsed.success) {
      accepted[key] = value;
      continue;
    }
    const k = key as Key;
    if (rule === "trusted") ignored.push({ key, reason: "untrusted" });
    else if (rule === "limit") {
      if ((parsed.data as number) <= (base[k] as number)) accepted[key] = value;
      else ignored.push({ key, reason: "looser" });
    } else {
      const rank = STRICTNESS[k]!;
      if (rank(parsed.data) >= rank(base[k])) accepted[key] = value;
      else ignored.push({ key, reason: "looser" });
    }
  }
  return { accepted, ignored };
}

/** The keys a project file sets that wait for the folder's trust (looser safety keys included). */
export function waitingForTrust(ignored: readonly IgnoredKey[]): string[] {
  return ignored.filter((i) => i.reason !== "user-only").map((i) => i.key);
}

/** One message per kind of ignored key, naming the keys once and the next step. */
export function ignoredMessages(
  file: string,
  folder: string,
  ignored: readonly IgnoredKey[],
  trustHow: string,
): string[] {
  const out: string[] = [];
  const waiting = waitingForTrust(ignored);
  if (waiting.length > 0) {
    out.push(
      `${file} sets ${waiting.join(", ")}, which apply only in a folder you trust (ignored: ${folder} is not trusted); ${trustHow}`,
    );
  }
  const userOnly = ignored.filter((i) => i.reason === "user-only").map((i) => i.key);
  if (userOnly.length > 0) {
    out.push(
      `${file} sets ${userOnly.join(", ")}, which lockstep takes only from your own settings (your user file, LOCKSTEP_* variables, flags, the editor's settings), never from a project file: ignored`,
    );
  }
  return out;
}
