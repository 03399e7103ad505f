// The session file's records (JSON Lines, format 1) and how a message's file
// contents become blobs: every text is written once per session file, named by
// its own sha256, and messages and journal entries point at it. Knows nothing of
// the disk: values in, lines out, and back.
import { redactTokens } from "./secrets.js";
import { createHash } from "node:crypto";
import type { Message, Usage } from "../agent/model.js";

export const FORMAT = 1;

export interface SessionHeader {
  t: "session";
  format: number;
  id: string;
  /** The project root's real path. */
  root: string;
  provider: string;
  model: string | null;
  /** The endpoint without user, password, query or fragment; null for the provider's own. */
  endpoint: string | null;
  started: string;
  title: string;
}

export type SessionRecord =
  | SessionHeader
  | { t: "run"; job_id: string; prompt: string; model: string; at: string }
  | { t: "blob"; id: string; content: string }
  | { t: "msg"; m: Message }
  /** A turn is complete: every msg before it is part of the conversation a resume continues. */
  | { t: "turn"; job_id: string; usage: Usage; at: string }
  | {
      t: "journal";
      job_id: string;
      tool: string;
      file_path: string;
      uri: string;
      before: string | null;
      after: string;
      at: string;
    }
  /** A job's entries for a file were reverted: a later revert finds nothing there. */
  | { t: "forget"; job_id: string; uri: string; at: string }
  | { t: "end"; job_id: string; status: string; usage: Usage; files_changed: string[]; at: string }
  | { t: "resumed"; pid: number; at: string }
  /**
   * The diffs a change's tool call showed the client before it was decided (sized as sent): what
   * session/load replays for a change that never landed. No `at`: it never dates the session.
   */
  | { t: "shown"; job_id: string; call_id: string; tool: string; files: ShownDiff[] };

/** One file's diff as it was shown: its text (whole or cut, `line` where a cut starts), or the words that named it. */
export type ShownDiff =
  | { file_path: string; old_text: string | null; new_text: string; line?: number }
  | { file_path: string; text: string };

export function blobId(content: string): string {
  return createHash("sha256").update(content).digest("hex");
}

/** The key under which a state's content is replaced by its blob id. */
const REF = "$content";

/**
 * A message as it is written: every file state's content (an object with file_path, sha256 and
 * content, a few levels into a tool's answer) swapped for the id of a blob, which `blob` is told of.
 */
export function encodeMessage(message: Message, blob: (content: string) => string): Message {
  return {
    ...message,
    parts: message.parts.map((part) =>
      "functionResponse" in part
        ? {
            functionResponse: {
              ...part.functionResponse,
              response: swapOut(part.functionResponse.response, blob, 0) as Record<string, unknown>,
            },
          }
        : part,
    ),
  };
}

export function decodeMessage(message: Message, blobs: ReadonlyMap<string, string>): Message {
  return {
    ...message,
    parts: message.parts.map((part) =>
      "functionResponse" in part
        ? {
            functionResponse: {
              ...part.functionResponse,
              response: swapIn(part.functionResponse.response, blobs, 0) as Record<string, unknown>,
            },
          }
        : part,
    ),
  };
}

function isStateWithContent(v: Record<string, unknown>): boolean {
  return (
    typeof v["file_path"] === "string" && typeof v["sha256"] === "string" && typeof v["content"] === "string"
  );
}

function swapOut(value: unknown, blob: (content: string) => string, depth: number): unknown {
  if (depth > 5 || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => swapOut(v, blob, depth + 1));
  const v = value as Record<string, unknown>;
  if (isStateWithContent(v)) {
    const { content, ...rest } = v;
    return { ...rest, [REF]: blob(content as string) };
  }
  return Object.fromEntries(Object.entries(v).map(([k, child]) => [k, swapOut(child, blob, depth + 1)]));
}

function swapIn(value: unknown, blobs: ReadonlyMap<string, string>, depth: number): unknown {
  if (depth > 5 || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => swapIn(v, blobs, depth + 1));
  const v = value as Record<string, unknown>;
  if (typeof v[REF] === "string") {
    const { [REF]: id, ...rest } = v;
    // A blob lost to a torn line: the model is told, never shown something else.
    return {
      ...rest,
      content: blobs.get(id as string) ?? `[content not stored: look at ${String(v["file_path"])} again]`,
    };
  }
  return Object.fromEntries(Object.entries(v).map(([k, child]) => [k, swapIn(child, blobs, depth + 1)]));
}

/** A title from the first prompt: its first line, shortened. */
export function titleOf(prompt: string, max = 72): string {
  const line = prompt.trim().split("\n")[0]?.trim() ?? "";
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

/** An endpoint as the store may keep it: scheme, host, port and path; no credentials, query or fragment. */
export function safeEndpoint(baseUrl: string | undefined): string | null {
  if (baseUrl === undefined) return null;
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return null;
  }
}

/**
 * Each secret's every occurrence in `line` (as written in JSON too) replaced, and every credential-shaped run
 * (secrets.ts): the store never holds one.
 */
export function redact(line: string, secrets: readonly string[]): string {
  let out = redactTokens(line);
  for (const secret of secrets) {
    for (const form of new Set([secret, JSON.stringify(secret).slice(1, -1)]))
      if (out.includes(form)) out = out.split(form).join("[redacted]");
  }
  return out;
}
