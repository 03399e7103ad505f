// The settings in force outside an editor, and where each came from.
//
//   loadSettings({ root, env?, flags?, flagNames?, editor?, cwd? }) → LoadedSettings
//
// Sources, each over the one before (a key set by a later source wins):
//   1. default        the schema's defaults (config/settings.ts, the one schema every surface uses)
//   2. user file      $XDG_CONFIG_HOME/lockstep/config.json, else ~/.config/lockstep/config.json
//   3. project file   .lockstep.json at `root`: in full only when the user trusts the folder
//                     (config/trust.ts); before that only the keys config/project-keys.ts
//                     lets a repository set, and never replay, transcript or sessionsDir
//   4. environment    LOCKSTEP_ + the key in upper snake case, for every key:
//                     LOCKSTEP_PROVIDER, LOCKSTEP_MODEL, LOCKSTEP_BASE_URL, LOCKSTEP_API_KEY_ENV,
//                     LOCKSTEP_APPROVAL, LOCKSTEP_TRANSCRIPT, LOCKSTEP_TOOLS (true/false), …
//   5. flags          `flags` (key → value as parsed from the command line; strings are read
//                     like variables), named in messages by `flagNames` (default --kebab-case)
//   6. editor         `editor`: initializationOptions or workspace/configuration, when a caller has them
//
// The result holds the settings, the origin of every key, and the problems: a bad value keeps
// the value from the source below it and is named where it was written (file:line, variable,
// flag); errors (a malformed file, a bad value, a combination that cannot run, an API-key
// variable that is named but empty) stop `lockstep ask` before anything is sent; warnings
// (an unknown key) do not. Paths (replay, transcript) from a file are relative to its directory.
import path from "node:path";
import { DEFAULT_SETTINGS, settingsSchema, type Settings } from "./settings.js";
import { scrubUrls, shownUrl } from "./shown-url.js";
import { filterProjectValues, ignoredMessages, type IgnoredKey } from "./project-keys.js";
import {
  baseUrlInUse,
  DEFAULT_MAX_OUTPUT_TOKENS,
  isOpenAiCompatible,
  keyVariablesOf,
  LOCAL_MODEL_LINE,
} from "./provider-facts.js";
import { projectFilePath, readSettingsFile, userFilePath } from "./settings-file.js";
import { MCP_SERVERS_KEY } from "./mcp-servers.js";
import { realFolder, trustedBy } from "./trust.js";
import { MODEL_KEYS, type ModelKey, type ModelSource } from "./model-sources.js";

export type SettingKey = keyof Settings;

export type Origin =
  | { kind: "default" }
  | { kind: "user" | "project"; file: string; line?: number | undefined }
  | { kind: "env"; variable: string }
  | { kind: "flag"; flag: string }
  | { kind: "editor" };

export interface SettingsProblem {
  severity: "error" | "warning";
  message: string;
  key?: SettingKey;
}

export interface LoadSettingsOptions {
  /** The workspace: where .lockstep.json is read. */
  root: string;
  /** Where LOCKSTEP_*, HOME, XDG_CONFIG_HOME and the API key variables are read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Values from the command line; undefined entries are skipped. */
  flags?: Partial<Record<SettingKey, unknown>>;
  /** How the command line spells each key's flag, for messages (default `--` + kebab-case). */
  flagNames?: Partial<Record<SettingKey, string>>;
  /** An editor's own settings, over everything else. */
  editor?: unknown;
  /** Relative paths from the environment and flags resolve here (default process.cwd()). */
  cwd?: string;
}

export interface LoadedSettings {
  settings: Settings;
  origins: Record<SettingKey, Origin>;
  problems: SettingsProblem[];
  /** The files looked at, whether or not they exist. */
  files: { user: string; project: string };
  /** The variables the API key is read from, in order, and the first that is set (its name, never its value). */
  key: { variables: string[]; found: string | undefined; needed: boolean };
  /** The root's trust, and the project file's keys that were not applied. */
  trust: ProjectTrust;
}

export interface ProjectTrust {
  /** The root's real path. */
  folder: string;
  trusted: boolean;
  /** The recorded folder that trusts it (itself or an ancestor). */
  by?: string;
  ignored: IgnoredKey[];
}

const KEYS = Object.keys(settingsSchema.shape) as SettingKey[];
const PATH_KEYS: ReadonlySet<SettingKey> = new Set(["replay", "transcript"]);

export const envVariableOf = (key: SettingKey): string =>
  `LOCKSTEP_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
export const flagOf = (key: SettingKey): string => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** A key's value written as text (a variable, a flag) read as the schema's type: booleans and numbers from their words. */
function fromText(key: SettingKey, text: string): unknown {
  const sample = DEFAULT_SETTINGS[key];
  if (typeof sample === "boolean")
    return /^(1|true|yes|on)$/i.test(text.trim())
      ? true
      : /^(0|false|no|off)$/i.test(text.trim())
        ? false
        : text;
  if (typeof sample === "number")
    return text.trim() !== "" && Number.isFinite(Number(text)) ? Number(text) : text;
  if (Array.isArray(sample))
    return text
      .split(",")
      .map((t) => t.trim())
      .filter((t) => t !== "");
  return text;
}

/** How a message names a key where it was written: `--model`, `LOCKSTEP_MODEL`, `"model" in FILE:3`. */
export function whereSet(key: SettingKey, origin: Origin): string {
  switch (origin.kind) {
    case "default":
      return `\`${key}\` (default)`;
    case "user":
    case "project":
      return `"${key}" in ${origin.file}${origin.line !== undefined ? `:${origin.line}` : ""}`;
    case "env":
      return origin.variable;
    case "flag":
      return origin.flag;
    case "editor":
      return `the editor's setting \`${key}\``;
  }
}

/** The origin in a few words, for `lockstep config`. */
export function originLabel(origin: Origin): string {
  switch (origin.kind) {
    case "default":
      return "default";
    case "user":
    case "project":
      return `${origin.file}${origin.line !== undefined ? `:${origin.line}` : ""}`;
    case "env":
      return origin.variable;
    case "flag":
      return origin.flag;
    case "editor":
      return "editor";
  }
}

/** Where provider, baseUrl and model were set, for `mixedModelSources`; a default is no place. */
export function modelSourcesOf(origins: Record<SettingKey, Origin>): Partial<Record<ModelKey, ModelSource>> {
  const out: Partial<Record<ModelKey, ModelSource>> = {};
  for (const key of MODEL_KEYS) {
    const o = origins[key];
    if (o.kind === "default") continue;
    const place = o.kind === "user" || o.kind === "project" ? `${o.kind}:${o.file}` : o.kind;
    out[key] = { place, label: originLabel(o) };
  }
  return out;
}

export function loadSettings(options: LoadSettingsOptions): LoadedSettings {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const values: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  const origins = Object.fromEntries(KEYS.map((k) => [k, { kind: "default" }])) as Record<SettingKey, Origin>;
  const problems: SettingsProblem[] = [];

  const set = (key: string, value: unknown, origin: Origin, baseDir: string): void => {
    if (key === MCP_SERVERS_KEY) {
      // The files' servers are read by mcp-servers.ts (a project's only when trusted); no other source names any.
      if (origin.kind !== "user" && origin.kind !== "project")
        problems.push({
          severity: "warning",
          message: `${originLabel(origin)}: ${key} ignored; MCP servers are read from the user file (${userFilePath(env)}) and a trusted project's files only`,
        });
      return;
    }
    const field = settingsSchema.shape[key as SettingKey];
    if (!field) {
      const place =
        origin.kind === "user" || origin.kind === "project"
          ? `"${key}" in ${originLabel(origin)}`
          : origin.kind === "editor"
            ? `the editor's setting \`${key}\``
            : originLabel(origin);
      problems.push({
        severity: "warning",
        message: `${place}: unknown setting; the settings are ${KEYS.join(", ")}`,
      });
      return;
    }
    const k = key as SettingKey;
    const parsed = field.safeParse(value);
    if (!parsed.success) {
      problems.push({
        severity: "error",
        key: k,
        message: `${whereSet(k, origin)}: ${parsed.error.issues[0]?.message ?? "invalid value"} (${scrubUrls(JSON.stringify(value) ?? String(value))})`,
      });
      return;
    }
    values[k] =
      PATH_KEYS.has(k) && typeof parsed.data === "string" ? path.resolve(baseDir, parsed.data) : parsed.data;
    origins[k] = origin;
  };

  const files = { user: userFilePath(env), project: projectFilePath(options.root) };
  const user = readSettingsFile(files.user);
  if (user.kind === "invalid") problems.push({ severity: "error", message: user.message });
  if (user.kind === "read")
    for (const [key, value] of Object.entries(user.values))
      set(key, value, { kind: "user", file: files.user, line: user.lineOf(key) }, path.dirname(files.user));
  // The project file: read only inside the root, and only what the folder's trust lets it set.
  const folder = realFolder(options.root);
  const by = trustedBy(folder, env);
  const trust: ProjectTrust = {
    folder,
    trusted: by !== undefined,
    ...(by !== undefined ? { by } : {}),
    ignored: [],
  };
  const project = readSettingsFile(files.project, options.root);
  if (project.kind === "invalid") problems.push({ severity: "error", message: project.message });
  if (project.kind === "read") {
    const filtered = filterProjectValues(project.values, settingsSchema.parse(values), trust.trusted);
    trust.ignored = filtered.ignored;
    for (const message of ignoredMessages(
      files.project,
      folder,
      filtered.ignored,
      `run \`lockstep trust ${folder}\` to trust it`,
    ))
      problems.push({ severity: "warning", message });
    for (const [key, value] of Object.entries(filtered.accepted))
      set(
        key,
        value,
        { kind: "project", file: files.project, line: project.lineOf(key) },
        path.dirname(files.project),
      );
  }
  for (const key of KEYS) {
    const variable = envVariableOf(key);
    const text = env[variable];
    if (text !== undefined && text !== "") set(key, fromText(key, text), { kind: "env", variable }, cwd);
  }
  for (const [key, value] of Object.entries(options.flags ?? {})) {
    if (value === undefined) continue;
    const k = key as SettingKey;
    set(
      key,
      typeof value === "string" ? fromText(k, value) : value,
      { kind: "flag", flag: options.flagNames?.[k] ?? flagOf(k) },
      cwd,
    );
  }
  if (
    options.editor !== undefined &&
    options.editor !== null &&
    typeof options.editor === "object" &&
    !Array.isArray(options.editor)
  ) {
    for (const [key, value] of Object.entries(options.editor))
      set(key, value, { kind: "editor" }, options.root);
  }

  const settings = settingsSchema.parse(values);
  const flagNames = (k: SettingKey): string => options.flagNames?.[k] ?? flagOf(k);
  // A bad provider, base URL or key variable is the one thing to say: what follows from the
  // default put in its place (another provider's key, say) would name what is not wrong.
  const unsure = problems.some((p) => p.key === "provider" || p.key === "baseUrl" || p.key === "apiKeyEnv");
  if (!unsure) problems.push(...combinationProblems(settings, origins, flagNames));
  const key = keyVariables(settings, env);
  if (!unsure) problems.push(...keyProblems(settings, origins, key));
  return { settings, origins, problems, files, key, trust };
}

/** Where to set a missing key, in the words of the source that made it necessary. */
function whereToAdd(key: SettingKey, because: Origin, flagName: (k: SettingKey) => string): string {
  switch (because.kind) {
    case "flag":
      return `add ${flagName(key)}`;
    case "env":
      return `set ${envVariableOf(key)}`;
    case "user":
    case "project":
      return `add "${key}" to ${because.file} (or ${flagName(key)})`;
    default:
      return `set \`${key}\``;
  }
}

/** Settings that are each valid but do not go together, named where the user wrote them. */
function combinationProblems(
  s: Settings,
  origins: Record<SettingKey, Origin>,
  flagName: (k: SettingKey) => string,
): SettingsProblem[] {
  const out: SettingsProblem[] = [];
  if (isOpenAiCompatible(s.provider) && s.model === undefined && s.replay === undefined) {
    out.push({
      severity: "error",
      key: "model",
      message: `${whereSet("provider", origins.provider)} (${s.provider}) needs the endpoint's model named: ${whereToAdd("model", origins.provider, flagName)} NAME (e.g. qwen2.5-coder:7b on Ollama, gpt-4.1-mini on OpenAI)`,
    });
  }
  if (s.provider === "gemini" && s.baseUrl !== undefined) {
    out.push({
      severity: "error",
      key: "baseUrl",
      message: `${whereSet("baseUrl", origins.baseUrl)} applies to providers openai and anthropic only (provider is gemini, ${originLabel(origins.provider)}): ${whereToAdd("provider", origins.baseUrl, flagName)} openai, or for Gemini set GOOGLE_GEMINI_BASE_URL instead`,
    });
  }
  if (typeof s.thinking === "number" && s.thinking >= (s.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS)) {
    out.push({
      severity: "error",
      key: "thinking",
      message: `${whereSet("thinking", origins.thinking)} (${s.thinking} tokens) must be below maxOutputTokens (${s.maxOutputTokens ?? `${DEFAULT_MAX_OUTPUT_TOKENS} by default`}), which thinking counts toward: lower it, or raise maxOutputTokens`,
    });
  }
  return out;
}

/** The variables the provider reads its key from, in order: apiKeyEnv when named, else the provider's own. */
export function keyVariables(s: Settings, env: NodeJS.ProcessEnv): LoadedSettings["key"] {
  const variables = s.apiKeyEnv !== undefined ? [s.apiKeyEnv] : keyVariablesOf(s.provider);
  const found = variables.find((v) => (env[v] ?? "").trim() !== "");
  // A recorded session needs no key; an openai endpoint of one's own (baseUrl) may need none unless one is named.
  const needed =
    s.replay === undefined &&
    (s.apiKeyEnv !== undefined || !isOpenAiCompatible(s.provider) || baseUrlInUse(s) === undefined);
  return { variables, found, needed };
}

/** Loopback and private-network hosts: a model server of one's own, which may need no key. */
function isLocalUrl(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  return /^(localhost|127\.\d+\.\d+\.\d+|::1|10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|172\.(1[6-9]|2\d|3[01])\.\d+\.\d+|[^.]+|.*\.local)$/i.test(
    host,
  );
}

function keyProblems(
  s: Settings,
  origins: Record<SettingKey, Origin>,
  key: LoadedSettings["key"],
): SettingsProblem[] {
  // A hosted endpoint and no key to send: it will most likely answer 401; said before the request.
  if (
    !key.needed &&
    key.found === undefined &&
    s.replay === undefined &&
    s.baseUrl !== undefined &&
    !isLocalUrl(s.baseUrl)
  ) {
    return [
      {
        severity: "warning",
        key: "apiKeyEnv",
        message: `no API key will be sent to ${shownUrl(s.baseUrl)} (${whereSet("baseUrl", origins.baseUrl)}): if it needs one, set apiKeyEnv (${flagOf("apiKeyEnv")}) to the variable that holds it, e.g. OPENROUTER_API_KEY`,
      },
    ];
  }
  if (!key.needed || key.found !== undefined) return [];
  if (s.apiKeyEnv !== undefined) {
    return [
      {
        severity: "error",
        key: "apiKeyEnv",
        message: `${whereSet("apiKeyEnv", origins.apiKeyEnv)} names ${s.apiKeyEnv}, which is not set or empty in this environment: export ${s.apiKeyEnv}=… first (nothing was sent)`,
      },
    ];
  }
  const names = key.variables.join(" or ");
  const hint =
    s.provider === "openai"
      ? `; for a local endpoint that needs no key, set baseUrl (${flagOf("baseUrl")}); for another key variable, apiKeyEnv (${flagOf("apiKeyEnv")})`
      : s.provider === "anthropic"
        ? ` (an API key from console.anthropic.com), or name another variable with apiKeyEnv (${flagOf("apiKeyEnv")})`
        : `, or name another variable with apiKeyEnv (${flagOf("apiKeyEnv")})`;
  return [
    {
      severity: "error",
      key: "apiKeyEnv",
      message: `No API key for provider ${s.provider}: set ${names}${hint}. A local model needs no key: .lockstep.json ${LOCAL_MODEL_LINE}`,
    },
  ];
}
