// One copy of each file in the history. Every read and every write puts a
// file's whole state into the conversation; kept as they came, ten patches to a
// large file would send ten copies of it with every later request, and the bytes
// of a session would grow with the square of its length. Before each request,
// the content of every state that a newer state of the same file supersedes is
// replaced by a short marker naming that newer version and sha256: the model
// holds the newest state in full, and never two copies.
import type { Message, Part } from "./model.js";

/** What a file state in the history must have to be recognised as one. */
interface StateLike {
  file_path: string;
  sha256: string;
  content: string;
  version?: unknown;
  truncated?: unknown;
}

function isState(value: unknown): value is StateLike {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v["file_path"] === "string" && typeof v["sha256"] === "string" && typeof v["content"] === "string"
  );
}

/** One state found in the history, in order. */
interface Found {
  state: StateLike;
  /** A ranged read: part of the file, so it supersedes older states only when the file changed. */
  partial: boolean;
  /** For a state written in a text part: where (`message:part:line`), since the text is parsed anew each time. */
  at?: string;
}

const MARKER_PREFIX = "[superseded:";

export function supersededMarker(file: string, newest: StateLike): string {
  const version =
    newest.version === null || newest.version === undefined ? "" : `version ${String(newest.version)}, `;
  return `${MARKER_PREFIX} a newer state of ${file} is further down (${version}sha256 ${newest.sha256}); use that one]`;
}

/** The file-state lines of a text part (the @-mention and cursor-file expansions are one JSON state per line). */
function statesInText(text: string): { line: number; state: StateLike }[] {
  if (!text.includes('{"file_path":')) return [];
  const out: { line: number; state: StateLike }[] = [];
  text.split("\n").forEach((line, i) => {
    if (!line.startsWith('{"file_path":')) return;
    try {
      const parsed: unknown = JSON.parse(line);
      if (isState(parsed)) out.push({ line: i, state: parsed });
    } catch {
      // not a state after all
    }
  });
  return out;
}

/** States inside a tool's answer (data, data.files[], data.latest_file_state, …), a few levels deep. */
function statesIn(value: unknown, depth = 0, out: StateLike[] = []): StateLike[] {
  if (depth > 4 || typeof value !== "object" || value === null) return out;
  if (isState(value)) {
    out.push(value);
    return out;
  }
  for (const child of Array.isArray(value) ? value : Object.values(value)) statesIn(child, depth + 1, out);
  return out;
}

/** Copies `value` with every state in `replace` swapped for its replacement (new objects along the way only). */
function rebuild(value: unknown, replace: Map<StateLike, StateLike>, depth = 0): unknown {
  if (depth > 4 || typeof value !== "object" || value === null) return value;
  const swapped = replace.get(value as StateLike);
  if (swapped) return swapped;
  if (Array.isArray(value)) return value.map((v) => rebuild(v, replace, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rebuild(v, replace, depth + 1)]));
}

function partStates(part: Part, m: number, p: number): Found[] {
  const found = (state: StateLike, at?: string): Found =>
    at === undefined
      ? { state, partial: state.truncated === true }
      : { state, partial: state.truncated === true, at };
  if ("functionResponse" in part)
    return statesIn(part.functionResponse.response).map((state) => found(state));
  if ("text" in part)
    return statesInText(part.text).map(({ line, state }) => found(state, `${m}:${p}:${line}`));
  return [];
}

/**
 * Replaces, in place, the messages of `history` that hold superseded file
 * states with copies whose states carry the marker instead of their content.
 * Message objects are never mutated (earlier runs and job records share them).
 * Returns how many states were replaced.
 */
export function compactFileStates(history: Message[]): number {
  const all: Found[] = [];
  history.forEach((message, m) => message.parts.forEach((part, p) => all.push(...partStates(part, m, p))));

  // From the newest back: a state is superseded by any later full state of its file, or any later state with another sha256.
  const newest = new Map<string, StateLike>();
  const laterFull = new Set<string>();
  const laterShas = new Map<string, Set<string>>();
  const replace = new Map<StateLike, StateLike>();
  const replaceText = new Map<string, string>();
  for (let i = all.length - 1; i >= 0; i--) {
    const { state, partial, at } = all[i]!;
    const file = state.file_path;
    const shas = laterShas.get(file);
    const superseded =
      laterFull.has(file) || (shas !== undefined && [...shas].some((sha) => sha !== state.sha256));
    if (superseded && !state.content.startsWith(MARKER_PREFIX)) {
      const marked = { ...state, content: supersededMarker(file, newest.get(file)!) };
      if (at === undefined) replace.set(state, marked);
      else replaceText.set(at, JSON.stringify(marked));
    }
    if (!newest.has(file)) newest.set(file, state);
    if (!partial) laterFull.add(file);
    if (shas) shas.add(state.sha256);
    else laterShas.set(file, new Set([state.sha256]));
  }
  if (replace.size === 0 && replaceText.size === 0) return 0;

  for (let m = 0; m < history.length; m++) {
    const message = history[m]!;
    let changed = false;
    const parts = message.parts.map((part, p): Part => {
      if ("functionResponse" in part) {
        if (!statesIn(part.functionResponse.response).some((s) => replace.has(s))) return part;
        changed = true;
        return {
          functionResponse: {
            ...part.functionResponse,
            response: rebuild(part.functionResponse.response, replace) as Record<string, unknown>,
          },
        };
      }
      if ("text" in part) {
        const found = statesInText(part.text).filter(({ line }) => replaceText.has(`${m}:${p}:${line}`));
        if (found.length === 0) return part;
        const lines = part.text.split("\n");
        for (const { line } of found) lines[line] = replaceText.get(`${m}:${p}:${line}`)!;
        changed = true;
        return { text: lines.join("\n") };
      }
      return part;
    });
    if (changed) history[m] = { ...message, parts };
  }
  return replace.size + replaceText.size;
}
