// The result envelope every tool, command and CLI call answers with.
import type { ErrorCode, Failure } from "../shared/outcome.js";

export type Data = Record<string, unknown>;

export type Envelope = { ok: true; data: Data } | { ok: false; error: Failure; data?: Data };

export function okEnvelope(data: Data): Envelope {
  return { ok: true, data };
}

export function errorEnvelope(
  code: ErrorCode,
  message: string,
  suggestions: string[] = [],
  data?: Data,
): Envelope {
  return data === undefined
    ? { ok: false, error: { code, message, suggestions } }
    : { ok: false, error: { code, message, suggestions }, data };
}

export function failureEnvelope(error: Failure, data?: Data): Envelope {
  return data === undefined ? { ok: false, error } : { ok: false, error, data };
}
