// Approval over ACP: each modifying call asks through session/request_permission
// with the four choices ACP names. "Always" (allow or reject) holds for the tool
// for this session only, as in the editor flow (review/policy.ts); nothing is persisted.
import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse, ToolCallUpdate } from "@agentclientprotocol/sdk";
import type { UserDecision } from "../review/policy.js";

export type PermissionRequester = (params: RequestPermissionRequest, signal: AbortSignal) => Promise<RequestPermissionResponse>;

const OPTIONS = (tool: string): PermissionOption[] => [
  { optionId: "allow_once", name: "Allow", kind: "allow_once" },
  { optionId: "allow_always", name: `Always allow ${tool} in this session`, kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
  { optionId: "reject_always", name: `Always reject ${tool} in this session`, kind: "reject_always" },
];

export class AcpPermissions {
  /** Tools the user chose "always reject" for in this session. */
  readonly alwaysRejected = new Set<string>();

  constructor(
    private readonly sessionId: string,
    private readonly request: PermissionRequester,
  ) {}

  /**
   * The user's decision on one call. A cancelled request (the turn was cancelled, or the client
   * withdrew it) is a rejection: nothing lands without a yes. "allow always" is returned as
   * `always`, which the caller records in the session.
   */
  async ask(tool: string, toolCall: ToolCallUpdate, signal: AbortSignal): Promise<UserDecision> {
    if (this.alwaysRejected.has(tool)) return "reject";
    if (signal.aborted) return "reject";
    let response: RequestPermissionResponse;
    try {
      response = await this.request({ sessionId: this.sessionId, toolCall, options: OPTIONS(tool) }, signal);
    } catch {
      return "reject";
    }
    // A cancel the client sent before this answer may still be on its way through the connection's
    // handlers (a notification is dispatched asynchronously, an answer at once): let it arrive, then
    // any answer after a cancel is a rejection.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (signal.aborted) return "reject";
    if (response.outcome.outcome !== "selected") return "reject";
    switch (response.outcome.optionId) {
      case "allow_once":
        return "apply";
      case "allow_always":
        return "always";
      case "reject_always":
        this.alwaysRejected.add(tool);
        return "reject";
      default:
        return "reject";
    }
  }
}
