// A settings file read as JSON, with the line a mistake is on: the user file
// ($XDG_CONFIG_HOME/lockstep/config.json) and the project file (.lockstep.json).
// Knows nothing of which keys exist; load-settings.ts validates them. The file is read
// through the bounded reader (a regular file, 1 MB at most, never through a link out of the
// folder it belongs in), nested at most 64 deep, and a mistake never quotes the file's bytes:
// they may be another file's secrets.
import os from "node:os";
import path from "node:path";
import { readBoundedFile } from "./bounded-read.js";
import { lineAndColumn, nestingPastLimit } from "./json-depth.js";

export const PROJECT_FILE = ".lockstep.json";

/** A settings file's size and nesting limits: far above any real one. */
export const SETTINGS_MAX_BYTES = 1024 * 1024;
export const SETTINGS_MAX_DEPTH = 64;

/** lockstep's folder in the user's config: $XDG_CONFIG_HOME/lockstep, else ~/.config/lockstep. */
export function userConfigDir(env: NodeJS.ProcessEnv): string {
  const xdg = env["XDG_CONFIG_HOME"]?.trim();
  const home = env["HOME"]?.trim() || os.homedir();
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, ".config");
  return path.join(base, "lockstep");
}

/** The user file: $XDG_CONFIG_HOME/lockstep/config.json, else ~/.config/lockstep/config.json. */
export function userFilePath(env: NodeJS.ProcessEnv): string {
  return path.join(userConfigDir(env), "config.json");
}

export function projectFilePath(root: string): string {
  return path.join(root, PROJECT_FILE);
}

export type FileRead =
  | { kind: "absent" }
  | { kind: "read"; values: Record<string, unknown>; lineOf: (key: string) => number | undefined }
  | { kind: "invalid"; message: string };

/**
 * Reads one settings file; a file that is not there is no mistake, one that is not a JSON
 * object is. `within`: the folder the file must really be in (the project's root for
 * .lockstep.json); unset for the user's own file, which may be a link into their dotfiles.
 */
export function readSettingsFile(file: string, within?: string): FileRead {
  const read = readBoundedFile(file, {
    maxBytes: SETTINGS_MAX_BYTES,
    ...(within !== undefined ? { within } : {}),
  });
  if (read.kind === "absent") return read;
  if (read.kind === "refused") return { kind: "invalid", message: read.message };
  const text = read.text.replace(/^\uFEFF/, "");
  const deep = nestingPastLimit(text, SETTINGS_MAX_DEPTH);
  if (deep !== undefined) {
    const at = lineAndColumn(text, deep);
    return {
      kind: "invalid",
      message: `${file}:${at.line}:${at.column}: nested deeper than ${SETTINGS_MAX_DEPTH} levels; a settings file is one object of plain values`,
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return {
      kind: "invalid",
      message: `${file}${jsonErrorPlace(text, error)}: not valid JSON (${jsonErrorReason(error)}); fix the file or delete it`,
    };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return {
      kind: "invalid",
      message: `${file}: must hold one JSON object, e.g. {"provider": "openai", "model": "qwen2.5-coder:7b"}`,
    };
  }
  return { kind: "read", values: parsed as Record<string, unknown>, lineOf: (key) => lineOfKey(text, key) };
}

/** ":LINE:COLUMN" of a JSON.parse error, from the position Node reports (empty when it names none). */
function jsonErrorPlace(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : "";
  const lineCol = /line (\d+) column (\d+)/.exec(message);
  if (lineCol) return `:${lineCol[1]}:${lineCol[2]}`;
  const position = /at position (\d+)/.exec(message);
  if (position) {
    const at = lineAndColumn(text, Number(position[1]));
    return `:${at.line}:${at.column}`;
  }
  if (/end of JSON input/i.test(message)) return `:${text.split("\n").length}`;
  return "";
}

/** What JSON.parse found wrong, without the text it quotes (another file's secrets, if a link led there). */
function jsonErrorReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/end of JSON input/i.test(message)) return "the text ends too early";
  if (/^Unexpected (token|non-whitespace)/i.test(message)) return "unexpected text";
  // V8's own words (e.g. "Expected ',' or '}' after property value") never quote the file.
  return message
    .replace(/ in JSON at position \d+.*$/, "")
    .replace(/\s*\(line \d+ column \d+\)/, "")
    .replace(/,? ".*$/, "");
}

/** The line a top-level key is written on (the first `"key":`), for messages; undefined when not found. */
function lineOfKey(text: string, key: string): number | undefined {
  const at = text.search(new RegExp(`"${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}"\\s*:`));
  return at < 0 ? undefined : text.slice(0, at).split("\n").length;
}
