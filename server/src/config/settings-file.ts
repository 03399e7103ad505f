// A settings file read as JSON, with the line a mistake is on: the user file
// ($XDG_CONFIG_HOME/lockstep/config.json) and the project file (.lockstep.json).
// Knows nothing of which keys exist; load-settings.ts validates them.
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { errnoCode } from "../shared/errno.js";

export const PROJECT_FILE = ".lockstep.json";

/** The user file: $XDG_CONFIG_HOME/lockstep/config.json, else ~/.config/lockstep/config.json. */
export function userFilePath(env: NodeJS.ProcessEnv): string {
  const xdg = env["XDG_CONFIG_HOME"]?.trim();
  const home = env["HOME"]?.trim() || os.homedir();
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, ".config");
  return path.join(base, "lockstep", "config.json");
}

export function projectFilePath(root: string): string {
  return path.join(root, PROJECT_FILE);
}

export type FileRead =
  | { kind: "absent" }
  | { kind: "read"; values: Record<string, unknown>; lineOf: (key: string) => number | undefined }
  | { kind: "invalid"; message: string };

/** Reads one settings file; a file that is not there is no mistake, one that is not a JSON object is. */
export function readSettingsFile(file: string): FileRead {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = errnoCode(error) ?? "";
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "absent" };
    return { kind: "invalid", message: `${file}: cannot be read (${code || String(error)})` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    return { kind: "invalid", message: `${file}${jsonErrorPlace(text, error)}: not valid JSON (${jsonErrorReason(error)}); fix the file or delete it` };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { kind: "invalid", message: `${file}: must hold one JSON object, e.g. {"provider": "openai", "model": "qwen2.5-coder:7b"}` };
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
    const before = text.slice(0, Number(position[1]));
    const line = before.split("\n").length;
    return `:${line}:${before.length - before.lastIndexOf("\n")}`;
  }
  if (/end of JSON input/i.test(message)) return `:${text.split("\n").length}`;
  return "";
}

function jsonErrorReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/ in JSON at position \d+.*$/, "").replace(/\s*\(line \d+ column \d+\)/, "");
}

/** The line a top-level key is written on (the first `"key":`), for messages; undefined when not found. */
function lineOfKey(text: string, key: string): number | undefined {
  const at = text.search(new RegExp(`"${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}"\\s*:`));
  return at < 0 ? undefined : text.slice(0, at).split("\n").length;
}
