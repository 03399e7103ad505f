// A stored conversation as the session/update notifications that would have
// shown it live, for session/load: the user's prompts, the model's text, each
// tool call with its kind and its outcome. Pure: messages in, updates out.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { Message } from "../agent/model.js";
import type { Envelope } from "../tools/envelope.js";
import { findTool } from "../tools/registry.js";
import { kindOf, outcomeText, slim, type Locations } from "./updates.js";

/**
 * `prompts`: what the user typed for each run, in order; a stored user message holds the prompt
 * with its mentions expanded (file contents), which the user did not type and need not see again.
 */
export function replayUpdates(history: readonly Message[], prompts: readonly string[], where: Locations): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  let userTurn = 0;
  let callCount = 0;
  const pendingIds: string[] = [];
  for (const message of history) {
    if (message.role === "user") {
      const typed = prompts[userTurn++];
      const text = typed ?? message.parts.map((p) => ("text" in p ? p.text : "")).join("");
      if (text !== "") updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text } });
      continue;
    }
    for (const part of message.parts) {
      if ("text" in part && part.text !== "") updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: part.text } });
      else if ("functionCall" in part) {
        const id = `stored:${++callCount}`;
        pendingIds.push(id);
        const tool = findTool(part.functionCall.name);
        const event = { kind: tool?.kind ?? "external", call: part.functionCall } as const;
        updates.push({ sessionUpdate: "tool_call", toolCallId: id, title: part.functionCall.name, kind: kindOf(event), status: "in_progress", locations: where.ofArgs(part.functionCall.args), rawInput: part.functionCall.args });
      } else if ("functionResponse" in part) {
        // Answers come in call order, one per call of the turn before.
        const id = pendingIds.shift();
        if (id === undefined) continue;
        const result = part.functionResponse.response as unknown as Envelope;
        updates.push({ sessionUpdate: "tool_call_update", toolCallId: id, status: result.ok ? "completed" : "failed", content: [{ type: "content", content: { type: "text", text: outcomeText(result, false) } }], rawOutput: slim(result) });
      }
    }
  }
  return updates;
}
