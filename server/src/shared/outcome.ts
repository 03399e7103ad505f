// The project's one error vocabulary: the closed set of codes, and a result that is a
// value or a failure. Expected failures are values, never exceptions: the engine (edit/)
// and the workspace say what went wrong, the tools turn it into envelopes. Types and two
// constructors, nothing else: every folder imports it, the pure engine included. shared/
// knows nothing of the rest of the project: its files import nothing outside it.

/** The closed set of error codes every tool, command and CLI call reports. */
export type ErrorCode =
  | "invalid_argument"
  | "not_found"
  | "permission_denied"
  | "io_error"
  | "state_mismatch"
  | "invalid_diff"
  | "ambiguous"
  | "no_change"
  | "binary_file"
  | "rejected"
  | "cancelled"
  | "timeout"
  | "internal_error";

export interface Failure {
  code: ErrorCode;
  /** Starts with the protocol label where one applies (`Invalid Diff:`), says what to do next. */
  message: string;
  suggestions: string[];
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: Failure };

export function succeed<T>(value: T): Outcome<T> {
  return { ok: true, value };
}

export function fail<T = never>(code: ErrorCode, message: string, suggestions: string[] = []): Outcome<T> {
  return { ok: false, error: { code, message, suggestions } };
}
