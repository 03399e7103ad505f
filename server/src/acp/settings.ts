// The settings an ACP session starts from, from the places the terminal reads
// them: the user file, the project's `.lockstep.json`, `LOCKSTEP_*` variables,
// then the command's flags, each over the one before. The one function the ACP
// door reads settings through, so the shared loader can replace it in one place.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { readSettings, settingsSchema, DEFAULT_SETTINGS, type Settings } from "../lsp/settings.js";

export interface SettingsSources {
  root: string;
  env: NodeJS.ProcessEnv;
  /** Flags of `lockstep acp`, already in settings' names. */
  flags: Record<string, unknown>;
}

/** `replayDelayMs` → `LOCKSTEP_REPLAY_DELAY_MS`. */
export function envName(key: string): string {
  return "LOCKSTEP_" + key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();
}

function fileSettings(file: string, problems: string[]): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    problems.push(`${file} is not valid JSON (${error instanceof Error ? error.message : String(error)}); its settings were ignored`);
    return undefined;
  }
}

function envSettings(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(settingsSchema.shape)) {
    const raw = env[envName(key)];
    if (raw === undefined || raw === "") continue;
    // A variable is text: a number or a boolean is written as JSON.
    if (field.safeParse(raw).success) out[key] = raw;
    else {
      try {
        out[key] = JSON.parse(raw) as unknown;
      } catch {
        out[key] = raw;
      }
    }
  }
  return out;
}

export function loadAcpSettings(sources: SettingsSources): { settings: Settings; problems: string[] } {
  const problems: string[] = [];
  const configHome = sources.env["XDG_CONFIG_HOME"] || path.join(homedir(), ".config");
  const layers = [
    fileSettings(path.join(configHome, "lockstep", "config.json"), problems),
    fileSettings(path.join(sources.root, ".lockstep.json"), problems),
    envSettings(sources.env),
    sources.flags,
  ];
  const merged: Record<string, unknown> = {};
  for (const layer of layers) {
    if (layer === undefined) continue;
    if (typeof layer !== "object" || layer === null || Array.isArray(layer)) problems.push("a settings file must hold a JSON object; it was ignored");
    else Object.assign(merged, layer);
  }
  const read = readSettings(merged, DEFAULT_SETTINGS);
  problems.push(...read.problems);
  const settings = read.settings;
  return { settings, problems };
}
