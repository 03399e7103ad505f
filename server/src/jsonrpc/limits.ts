// The bounds every framed input is read under: ACP and MCP lines, LSP frames (plain
// mode and the relay, both ways). One body cap and one depth cap, so a message
// one door accepts is not one another door dies of. Knows nothing of any protocol.
//
// Why a depth cap: V8 parses any depth (JSON.parse does not recurse), but nearly
// everything after it does: JSON.stringify, structuredClone, zod's validation, a
// redaction walk. A 10,000-deep value throws "Maximum call stack size exceeded" from
// wherever it is first touched, which ended `lockstep acp` without a word. So a value
// is measured once, right after it is parsed, by a walk that keeps its own stack.

/**
 * The largest message read on any stdio door. A whole-file write of a large source file fits
 * many times over; an embedded resource of tens of MB still fits (one of 48 MB used to end ACP).
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * The deepest JSON value lockstep takes from outside (a message, a stored record, a model's tool
 * arguments). Real messages stay under 30; a value many times deeper than this is still walked,
 * stringified and validated well inside the stack.
 */
export const MAX_JSON_DEPTH = 256;

/** Whether `value` nests deeper than `max` (arrays and objects count a level each); never recurses. */
export function deeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth + 1 > max) return true;
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const child of children)
      if (typeof child === "object" && child !== null) stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}

/** The sentence that names a too-deep value and what to do; `what` says whose value it was. */
export function tooDeepMessage(what: string, max = MAX_JSON_DEPTH): string {
  return `${what} nests deeper than ${max} levels of arrays and objects, the most lockstep reads; it was not read and nothing was done. Flatten it.`;
}

export const megabytes = (n: number): string => `${Math.round(n / (1024 * 1024))} MB`;

/** The sentence that names an oversized message; `door` is e.g. "lockstep acp". */
export function tooLargeMessage(door: string, max = MAX_MESSAGE_BYTES): string {
  return `${door}: a message longer than ${megabytes(max)} arrived, the most one message may be; it was not read and nothing was done. Send large content in parts, or as a file the agent reads.`;
}

export type BoundedParse =
  | { ok: true; value: unknown }
  | { ok: false; reason: "json"; message: string }
  /** The value is kept only to read its top level (a request's id): it must not be walked. */
  | { ok: false; reason: "depth"; message: string; value: unknown };

/** JSON text parsed and measured: not JSON, or deeper than `max`, is a reason, not a throw. */
export function parseBounded(text: string, max = MAX_JSON_DEPTH): BoundedParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      reason: "json",
      message: (error instanceof Error ? error.message : String(error)).split("\n")[0]!,
    };
  }
  if (deeperThan(value, max))
    return { ok: false, reason: "depth", message: `nests deeper than ${max} levels`, value };
  return { ok: true, value };
}

/**
 * The one argument a tool call whose own arguments were too deep is kept with (the turn loop swaps them,
 * so the history sent back and the store never hold them); every door that runs a call refuses it by name.
 */
export const TOO_DEEP_ARGUMENTS = "arguments_too_deep";

/** Why a tool call's arguments cannot be run for their depth, for the error envelope; undefined when they can. */
export function argumentsTooDeep(name: string, args: unknown): string | undefined {
  const marked =
    typeof args === "object" &&
    args !== null &&
    (args as Record<string, unknown>)[TOO_DEEP_ARGUMENTS] === true;
  if (!marked && !deeperThan(args)) return undefined;
  return `The arguments of ${name} nest deeper than ${MAX_JSON_DEPTH} levels of arrays and objects, the most lockstep reads; the call was not run. Send flat arguments.`;
}
