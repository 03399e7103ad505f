// A stored conversation as the session/update notifications that would have
// shown it live, for session/load: the user's prompts, the model's text, each
// tool call with its kind and its outcome. Pure: messages in, updates out.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { Message } from "../agent/model.js";
import type { Envelope } from "../tools/envelope.js";
import { findTool } from "../tools/registry.js";
import { kindOf, outcomeText, slim, titleOf, type Locations } from "./updates.js";

/**
 * `prompts`: what the user typed for each run, in order; a stored user message holds the prompt
 * with its mentions expanded (file contents), which the user did not type and need not see again.
 */
export function replayUpdates(
  history: readonly Message[],
  prompts: readonly string[],
  where: Locations,
): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  let userTurn = 0;
  let callCount = 0;
  const pending: { id: string; read: boolean }[] = [];
  for (const message of history) {
    if (message.role === "user") {
      const typed = prompts[userTurn++];
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
        pending.push({ id, read: event.kind === "read" });
        updates.push({
          sessionUpdate: "tool_call",
          toolCallId: id,
          title: titleOf(event),
          kind: kindOf(event),
          status: "in_progress",
          locations: where.ofArgs(part.functionCall.args),
          rawInput: part.functionCall.args,
        });
      } else if ("functionResponse" in part) {
        // Answers come in call order, one per call of the turn before.
        const call = pending.shift();
        if (call === undefined) continue;
        const result = part.functionResponse.response as unknown as Envelope;
        // As live: a read that worked shows no words (the locations say what it read), anything else its outcome.
        const content =
          call.read && result.ok
            ? []
            : [
                {
                  type: "content" as const,
                  content: { type: "text" as const, text: outcomeText(result, false) },
                },
              ];
        const locations = where.ofResult(result);
        updates.push({
          sessionUpdate: "tool_call_update",
          toolCallId: call.id,
          status: result.ok ? "completed" : "failed",
          content,
          ...(locations.length > 0 ? { locations } : {}),
          rawOutput: slim(result),
        });
      }
    }
  }
  return updates;
}
