// A job's tool calls as ACP session updates: a `tool_call` when the call starts
// (its kind, title and the files it touches, so the editor follows the agent),
// a `diff` for every change before it is applied, and a `tool_call_update` with
// the envelope's outcome when it ends. Pure: events in, updates out.
import path from "node:path";
import type {
  ToolCall,
  ToolCallContent,
  ToolCallLocation,
  ToolCallUpdate,
  ToolKind,
} from "@agentclientprotocol/sdk";
import type { ToolCallEvent } from "../agent/events.js";
import type { Envelope } from "../tools/envelope.js";
import type { ProposedChange } from "../review/proposal.js";
import { sizedDiffs, type SizedDiff } from "./diff-content.js";

/** How many places of a search's result are listed as locations. */
const MAX_LOCATIONS = 20;

/** ACP's kind: a change is an edit; a read given a pattern is a search; an MCP server's tool is the client's business. */
export function kindOf(event: Pick<ToolCallEvent, "kind" | "call">): ToolKind {
  if (event.kind === "modify") return "edit";
  if (event.kind === "external") return "other";
  if (event.kind === "execute") return "execute";
  return typeof event.call.args["pattern"] === "string" ? "search" : "read";
}

/** "read_file app.py": the tool and what it works on, as the live tool_call and the replay name it. */
export function titleOf(event: Pick<ToolCallEvent, "call">): string {
  const a = event.call.args;
  const what = [
    a["command"],
    a["file_path"],
    a["pattern"],
    Array.isArray(a["file_paths"]) ? a["file_paths"].join(", ") : undefined,
    a["path"],
  ].find((v) => typeof v === "string" && v !== "");
  return what === undefined ? event.call.name : `${event.call.name} ${String(what)}`;
}

export class Locations {
  constructor(private readonly clientRoot: string) {}

  /** An absolute path as the client knows it, for a root-relative one. */
  abs(rel: string): string {
    return path.isAbsolute(rel) ? rel : path.join(this.clientRoot, rel);
  }

  ofArgs(args: Record<string, unknown>): ToolCallLocation[] {
    const out: ToolCallLocation[] = [];
    if (typeof args["file_path"] === "string") out.push({ path: this.abs(args["file_path"]) });
    if (Array.isArray(args["file_paths"]))
      for (const f of args["file_paths"])
        if (typeof f === "string" && !/[*?[{]/.test(f)) out.push({ path: this.abs(f) });
    return out.slice(0, MAX_LOCATIONS);
  }

  ofResult(result: Envelope): ToolCallLocation[] {
    const data = result.data ?? {};
    const out: ToolCallLocation[] = [];
    const states = [
      data,
      data["latest_file_state"],
      ...(Array.isArray(data["files"]) ? data["files"] : []),
    ] as ({ file_path?: unknown } | undefined)[];
    for (const state of states)
      if (typeof state?.file_path === "string") out.push({ path: this.abs(state.file_path) });
    if (Array.isArray(data["matches"])) {
      for (const m of data["matches"] as { file_path?: unknown; line?: unknown }[]) {
        if (typeof m.file_path === "string")
          out.push({ path: this.abs(m.file_path), ...(typeof m.line === "number" ? { line: m.line } : {}) });
      }
    }
    return out.slice(0, MAX_LOCATIONS);
  }
}

export function toolCallStarted(event: ToolCallEvent, where: Locations): ToolCall {
  return {
    toolCallId: event.call_id,
    title: titleOf(event),
    kind: kindOf(event),
    status: "in_progress",
    locations: where.ofArgs(event.call.args),
    rawInput: slimArgs(event.call.args),
  };
}

/** The diffs of a change (one per file of a change across files), each sized for a client's line (diff-content.ts). */
export function diffsOf(change: ProposedChange, where: Locations): SizedDiff[] {
  return sizedDiffs(change.files && change.files.length > 0 ? change.files : [change], (rel) =>
    where.abs(rel),
  );
}

/** The files a change touches, as locations. */
export function locationsOf(change: ProposedChange, where: Locations): ToolCallLocation[] {
  const files = change.files && change.files.length > 0 ? change.files : [change];
  return files.slice(0, MAX_LOCATIONS).map((f) => ({ path: where.abs(f.file_path) }));
}

/** The envelope's outcome in words: applied, refused and why, or stale (the model retries from the state attached). */
export function outcomeText(result: Envelope, retried: boolean): string {
  if (result.ok) {
    const message = String(result.data["message"] ?? "Done.");
    return result.data["applied"] === true && retried
      ? `Applied on the current state, after a stale attempt was refused: ${message}`
      : message;
  }
  const { code, message } = result.error;
  if (code === "state_mismatch")
    return `Stale, not applied: ${message} The agent retries from the current state.`;
  if (code === "rejected") return `Rejected, not applied: ${message}`;
  return `Refused (${code}): ${message}`;
}

/**
 * The call's end. `shown`: a diff of it went out already (the update before the change); a
 * change that landed then keeps that content in view (an update without `content` leaves it),
 * and one that did not land replaces it with the words saying why: a diff is never sent twice.
 */
export function toolCallEnded(
  event: ToolCallEvent & { phase: "end" },
  shown: { title: string } | undefined,
  retried: boolean,
  where: Locations,
  /** Content that stays (the terminal the command ran in, which shows its output). */
  embedded: ToolCallContent[] = [],
): ToolCallUpdate {
  const { result } = event;
  const text: ToolCallContent = {
    type: "content",
    content: { type: "text", text: outcomeText(result, retried) },
  };
  const locations = where.ofResult(result);
  const kept = shown !== undefined && result.ok;
  return {
    toolCallId: event.call_id,
    status: result.ok ? "completed" : "failed",
    ...(kept
      ? retried
        ? { title: `${shown.title} (applied on the current state, after a stale attempt was refused)` }
        : {}
      : {
          content:
            event.kind === "read" && result.ok
              ? []
              : [...embedded, text, ...(embedded.length > 0 ? [] : commandOutput(result))],
        }),
    ...(locations.length > 0 ? { locations } : {}),
    rawOutput: slim(result),
  };
}

/** A command's output (head and tail), shown under its outcome. */
function commandOutput(result: Envelope): ToolCallContent[] {
  const output = result.data?.["output"];
  return typeof output === "string" && output !== ""
    ? [{ type: "content", content: { type: "text", text: output } }]
    : [];
}

/** A call's arguments with any long string (a whole file to write) named by its size: the update stays small. */
export function slimArgs(args: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(args, (_key, value: unknown) =>
      typeof value === "string" && value.length > 2000 ? `(${value.length} characters)` : value,
    ),
  ) as Record<string, unknown>;
}

/** The envelope without file contents over a few lines: the client has the files, the update stays small. */
export function slim(result: Envelope): unknown {
  return JSON.parse(
    JSON.stringify(result, (key, value: unknown) =>
      key === "content" && typeof value === "string" && value.length > 2000
        ? `(${value.length} characters)`
        : value,
    ),
  ) as unknown;
}
