// A stored conversation as the session/update notifications that showed it live, for
// session/load: the user's prompts, the model's text, each tool call with its title, kind and
// locations, a change's diff as it was shown before its decision (kept by the store; in an
// older file, a landed change's from the journal, sized as live) and the outcome as first
// sent (a retry after a stale attempt named in the title). A change that did not land shows
// its diff, then its outcome in its place, as live. Pure: messages in, updates out.
import path from "node:path";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { Message } from "../agent/model.js";
import type { JournalEntry } from "../review/journal.js";
import type { ShownCall } from "../sessions/shown-record.js";
import type { Envelope } from "../tools/envelope.js";
import { shownUpdate } from "./shown-diffs.js";
import { findTool } from "../tools/registry.js";
import { sizedDiffs } from "./diff-content.js";
import { kindOf, outcomeText, slim, slimArgs, titleOf, type Locations } from "./updates.js";

/**
 * `prompts`: what the user typed for each run, in order; a stored user message holds the prompt
 * with its mentions expanded (file contents), which the user did not type and need not see again.
 */
export function replayUpdates(
  history: readonly Message[],
  prompts: readonly string[],
  where: Locations,
  journal: readonly JournalEntry[] = [],
  /** Each run's job id, in order, and by call id (`job:n`) what each change's call showed. */
  stored: { jobs: readonly string[]; shown: ReadonlyMap<string, ShownCall> } = { jobs: [], shown: new Map() },
): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  let userTurn = 0;
  let callCount = 0;
  /** The n-th call of the run: its id as live named it. */
  let runCalls = 0;
  const pending: {
    id: string;
    read: boolean;
    title: string;
    file: string | undefined;
    shown: ShownCall | undefined;
  }[] = [];
  const used = new Set<number>();
  /** Files whose last change was refused as stale: the next one that lands is a retry (as live). */
  const stale = new Set<string>();
  for (const message of history) {
    if (message.role === "user") {
      const typed = prompts[userTurn++];
      runCalls = 0;
      const text = typed ?? message.parts.map((p) => ("text" in p ? p.text : "")).join("");
      if (text !== "") updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text } });
      continue;
    }
    for (const part of message.parts) {
      if ("text" in part && part.text !== "")
        updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: part.text } });
      else if ("functionCall" in part) {
        const id = `stored:${++callCount}`;
        const tool = findTool(part.functionCall.name);
        const event = { kind: tool?.kind ?? "external", call: part.functionCall } as const;
        const file = part.functionCall.args["file_path"];
        const job = stored.jobs[userTurn - 1];
        const shown = job === undefined ? undefined : stored.shown.get(`${job}:${++runCalls}`);
        pending.push({
          id,
          read: event.kind === "read",
          title: titleOf(event),
          file: typeof file === "string" ? file : undefined,
          // Only a record of this very call: its tool, and the file it names first.
          shown: shown && sameCall(shown, part.functionCall.name, file) ? shown : undefined,
        });
        updates.push({
          sessionUpdate: "tool_call",
          toolCallId: id,
          title: titleOf(event),
          kind: kindOf(event),
          status: "in_progress",
          locations: where.ofArgs(part.functionCall.args),
          rawInput: slimArgs(part.functionCall.args),
        });
      } else if ("functionResponse" in part) {
        // Answers come in call order, one per call of the turn before.
        const call = pending.shift();
        if (call === undefined) continue;
        const result = part.functionResponse.response as unknown as Envelope;
        const landed = result.ok && result.data["applied"] === true;
        const entries = landed ? takeEntries(journal, used, changedFiles(result)) : [];
        if (call.shown !== undefined) {
          updates.push({
            sessionUpdate: "tool_call_update",
            toolCallId: call.id,
            ...shownUpdate(call.shown.files, where),
          });
        } else if (entries.length > 0) {
          const sized = sizedDiffs(
            entries.map((e) => ({
              file_path: e.file_path,
              before: e.before === null ? null : { content: e.before },
              after: e.after,
            })),
            (rel) => where.abs(rel),
          );
          updates.push({
            sessionUpdate: "tool_call_update",
            toolCallId: call.id,
            content: sized.map((d) => d.content),
          });
        }
        const retried = landed && call.file !== undefined && stale.has(call.file);
        if (call.file !== undefined) {
          if (!result.ok && result.error.code === "state_mismatch") stale.add(call.file);
          else if (result.ok) stale.delete(call.file);
        }
        // As live: a read that worked shows no words (the locations say what it read); a change that
        // landed keeps its diff in view; anything else shows its outcome (in place of its diff).
        const kept = result.ok && (call.shown !== undefined || entries.length > 0);
        const words = [
          {
            type: "content" as const,
            content: { type: "text" as const, text: outcomeText(result, retried) },
          },
        ];
        const locations = where.ofResult(result);
        updates.push({
          sessionUpdate: "tool_call_update",
          toolCallId: call.id,
          status: result.ok ? "completed" : "failed",
          ...(kept
            ? retried
              ? { title: `${call.title} (applied on the current state, after a stale attempt was refused)` }
              : {}
            : { content: call.read && result.ok ? [] : words }),
          ...(locations.length > 0 ? { locations } : {}),
          rawOutput: slim(result),
        });
      }
    }
  }
  return updates;
}

/** Whether a stored record is of this call: the same tool, and the file it names (when it names one) first. */
function sameCall(shown: ShownCall, tool: string, file: unknown): boolean {
  if (shown.tool !== tool) return false;
  if (typeof file !== "string") return true;
  const first = shown.files[0]?.file_path;
  return first === undefined || path.posix.normalize(first) === path.posix.normalize(file);
}

/** The files a change's result names as written (one file, or each file of a change across files). */
function changedFiles(result: Envelope & { ok: true }): string[] {
  const data = result.data;
  const files = Array.isArray(data["files"]) ? (data["files"] as { file_path?: unknown }[]) : [];
  const named = [data["latest_file_state"] as { file_path?: unknown } | undefined, ...files]
    .map((f) => f?.file_path)
    .filter((f): f is string => typeof f === "string");
  return [...new Set(named)];
}

/** The journal's entries for these files, the first not yet replayed of each, in the journal's order. */
function takeEntries(journal: readonly JournalEntry[], used: Set<number>, files: string[]): JournalEntry[] {
  const picked: number[] = [];
  for (const file of files) {
    const i = journal.findIndex((e, at) => !used.has(at) && e.file_path === file);
    if (i >= 0) picked.push(i);
  }
  for (const i of picked) used.add(i);
  return picked.sort((a, b) => a - b).map((i) => journal[i]!);
}
