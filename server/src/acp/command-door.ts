// run_command over ACP: the question as a session/request_permission on the running tool
// call (run once, always allow its prefix for the session, reject). Where the client offers
// `terminal`, the allowed command runs in the client's terminal (terminal-run.ts), embedded in
// the call so the client shows it live; otherwise lockstep runs it and its output is the
// call's content while it runs (kind `execute`, set in updates.ts).
import type { PermissionOption, SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import {
  alwaysTitleFor,
  commandQuestionText,
  type CommandDecision,
  type CommandDoor,
} from "../tools/command-question.js";
import type { PermissionRequester } from "./permission.js";
import { runInClientTerminal, type ClientTerminals } from "./terminal-run.js";

/** The live output a tool call shows: its last characters (the result keeps head and tail). */
const LIVE_TAIL = 16_000;

export interface AcpCommandParts {
  sessionId: string;
  request: PermissionRequester;
  /** The tool call running now (run_command's own). */
  callId: () => string | undefined;
  /** Resolves once every update sent so far is out (a permission request must follow its tool call). */
  sent: () => Promise<void>;
  send: (update: SessionUpdate) => void;
  /** The client's terminals, where it offers `terminal`. */
  terminals?: ClientTerminals | undefined;
  /** Adds content to the running call that stays in it to its end (an embedded terminal). */
  embed: (content: ToolCallContent) => void;
}

export function acpCommandDoor(parts: AcpCommandParts): CommandDoor {
  let live = { id: "", text: "" };
  const terminals = parts.terminals;
  return {
    run: () =>
      terminals
        ? (request) =>
            runInClientTerminal(terminals, request, (terminalId) =>
              parts.embed({ type: "terminal", terminalId }),
            )
        : undefined,
    prompt:
      () =>
      async (question, signal): Promise<CommandDecision> => {
        const toolCallId = parts.callId();
        if (toolCallId === undefined || signal.aborted) return "reject";
        const options: PermissionOption[] = [
          { optionId: "allow_once", name: "Run once", kind: "allow_once" },
          ...(question.prefixes.length > 0
            ? [
                {
                  optionId: "allow_always",
                  name: alwaysTitleFor(question.prefixes),
                  kind: "allow_always",
                } as const,
              ]
            : []),
          { optionId: "reject_once", name: "Reject", kind: "reject_once" },
        ];
        await parts.sent();
        const text = {
          type: "content",
          content: { type: "text", text: commandQuestionText(question) },
        } as const;
        try {
          const answer = await parts.request(
            {
              sessionId: parts.sessionId,
              toolCall: {
                toolCallId,
                title: `run_command ${question.command}`,
                kind: "execute",
                status: "pending",
                content: [text],
              },
              options,
            },
            signal,
          );
          if (answer.outcome.outcome !== "selected") return "reject";
          return answer.outcome.optionId === "allow_once"
            ? "once"
            : answer.outcome.optionId === "allow_always"
              ? "always"
              : "reject";
        } catch {
          return "reject";
        }
      },
    output: (_job, chunk) => {
      const id = parts.callId();
      if (id === undefined) return;
      live =
        live.id === id
          ? { id, text: (live.text + chunk).slice(-LIVE_TAIL) }
          : { id, text: chunk.slice(-LIVE_TAIL) };
      parts.send({
        sessionUpdate: "tool_call_update",
        toolCallId: id,
        status: "in_progress",
        content: [{ type: "content", content: { type: "text", text: live.text } }],
      });
    },
  };
}
