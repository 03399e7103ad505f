// Approval over ACP: each modifying call asks through session/request_permission
// with the four choices ACP names. "Always" (allow or reject) holds for the tool
// for this session only, as in the editor flow (review/policy.ts); nothing is persisted.
import type {
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
  ToolCallUpdate,
} from "@agentclientprotocol/sdk";
import type { CallDecision } from "../review/call-approval.js";
import type { UserDecision } from "../review/policy.js";
import type { Undecided } from "../review/proposal.js";

export type PermissionRequester = (
  params: RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<RequestPermissionResponse>;

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
   * The user's decision on one call. Only the user's choice is a yes or a no: a request withdrawn
   * (the turn cancelled, the client answering `cancelled`) or one the client answered with an error
   * is `undecided`, nothing lands, and the model is not told the user declined. "allow always" is
   * returned as `always`, which the caller records in the session.
   */
  async ask(tool: string, toolCall: ToolCallUpdate, signal: AbortSignal): Promise<UserDecision | Undecided> {
    if (this.alwaysRejected.has(tool)) return "reject";
    const picked = await this.choose(OPTIONS(tool), toolCall, signal);
    if (typeof picked === "object") return picked;
    switch (picked) {
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

  /** A call of an MCP server's tool: allow once, always this tool, always this server, or reject. */
  async askCall(
    tool: string,
    server: string,
    toolCall: ToolCallUpdate,
    signal: AbortSignal,
  ): Promise<CallDecision | "dismissed"> {
    if (this.alwaysRejected.has(tool)) return "reject";
    const options: PermissionOption[] = [
      { optionId: "allow_once", name: "Allow", kind: "allow_once" },
      { optionId: "allow_always", name: `Always allow ${tool} in this session`, kind: "allow_always" },
      {
        optionId: "allow_always_server",
        name: `Always allow every tool of ${server} in this session`,
        kind: "allow_always",
      },
      { optionId: "reject_once", name: "Reject", kind: "reject_once" },
      { optionId: "reject_always", name: `Always reject ${tool} in this session`, kind: "reject_always" },
    ];
    // A cancel, a client error or a cancelled answer is no decision (as for a change).
    const picked = await this.choose(options, toolCall, signal);
    if (typeof picked === "object") return "dismissed";
    if (picked === "reject_always") this.alwaysRejected.add(tool);
    return picked === "allow_once"
      ? "apply"
      : picked === "allow_always"
        ? "always_tool"
        : picked === "allow_always_server"
          ? "always_server"
          : "reject";
  }
  /**
   * The option the user picked. Only the user's choice counts: a request withdrawn (the turn
   * cancelled, the client answering `cancelled`) or one the client answered with an error is
   * `undecided`.
   */
  private async choose(
    options: PermissionOption[],
    toolCall: ToolCallUpdate,
    signal: AbortSignal,
  ): Promise<string | Undecided> {
    const cancelled = { undecided: "the turn was cancelled before the user decided" };
    if (signal.aborted) return cancelled;
    let response: RequestPermissionResponse;
    try {
      response = await this.request({ sessionId: this.sessionId, toolCall, options }, signal);
    } catch (error) {
      if (signal.aborted) return cancelled;
      const why = error instanceof Error ? error.message : String(error);
      return {
        undecided: `the client could not ask the user: session/request_permission answered an error (${why})`,
      };
    }
    // A cancel the client sent before this answer may still be on its way through the connection's
    // handlers (a notification is dispatched asynchronously, an answer at once): let it arrive, then
    // any answer after a cancel is no decision; nothing lands.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (signal.aborted) return cancelled;
    if (response.outcome.outcome !== "selected")
      return { undecided: "the client withdrew the permission request (it answered cancelled)" };
    return response.outcome.optionId;
  }
}
