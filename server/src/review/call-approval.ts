// The session's approval for a call of another server's tool (MCP): nothing to show as a
// diff, so it is asked about per call, with "always allow this tool" and "always allow this
// server" for the session (kept with the session's other "always", never persisted).
// `approval: auto` covers such a call only for a server the user's own file trusts. A
// door without a prompt cannot stage a call for review: the call is declined, and said.
import type { AllowedTools, ApprovalMode } from "./policy.js";

export interface CallRequest {
  /** The name the model called: what "always allow this tool" remembers. */
  name: string;
  server: string;
  tool: string;
  args: Record<string, unknown>;
  /** `trust: true` on the server in the user's file. */
  trusted: boolean;
  /** The run that made the call, when there is one (a door may offer to stop it). */
  job_id?: string;
}

/** `{ reason }`: rejected, with the user's words for the model. */
export type CallDecision = "apply" | "always_tool" | "always_server" | "reject" | { reason: string };

/** Asks the user about one call; `dismissed`: no choice was made (or the door cannot ask). */
export type CallPrompt = (request: CallRequest, signal: AbortSignal) => Promise<CallDecision | "dismissed">;

/** The key "always allow this server" is kept under, beside the tools' names. */
export const serverKey = (server: string): string => `mcp-server:${server}`;

export function callApprover(
  session: AllowedTools,
  mode: () => ApprovalMode,
  prompt: () => CallPrompt | undefined,
) {
  // A question withdrawn (cancel) or never answered is no decision: the model is not told "rejected".
  return async (
    request: CallRequest,
    signal: AbortSignal,
  ): Promise<boolean | "undecided" | { reason: string }> => {
    if (mode() === "auto" && request.trusted) return true;
    if (session.alwaysAllowed.has(request.name) || session.alwaysAllowed.has(serverKey(request.server)))
      return true;
    if (signal.aborted) return "undecided";
    const ask = prompt();
    const decision = ask ? await ask(request, signal) : "dismissed";
    if (signal.aborted || decision === "dismissed") return "undecided";
    if (typeof decision === "object") return { reason: decision.reason };
    if (decision === "always_tool") session.alwaysAllowed.add(request.name);
    if (decision === "always_server") session.alwaysAllowed.add(serverKey(request.server));
    return decision === "apply" || decision === "always_tool" || decision === "always_server";
  };
}

/** The words of a call's prompt: the server, the tool and its arguments (cut). */
export function callMessage(request: CallRequest): string {
  let args = JSON.stringify(request.args);
  if (args.length > 300) args = `${args.slice(0, 300)}…`;
  return `lockstep wants to call ${request.tool} on the MCP server ${request.server} with ${args}.`;
}
