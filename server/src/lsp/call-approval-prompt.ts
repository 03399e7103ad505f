// The prompt for a call of an MCP server's tool where the client has window/showMessageRequest:
// Allow / Always allow the tool / Always allow the server / Reject. Without the request, or
// closed without a choice, the call is declined (a call has nothing to stage for review).
import type { Connection } from "vscode-languageserver";
import { CancellationTokenSource, MessageType, ShowMessageRequest } from "vscode-languageserver";
import {
  callMessage,
  type CallDecision,
  type CallPrompt,
  type CallRequest,
} from "../review/call-approval.js";

const ALLOW = "Apply";
const REJECT = "Reject";
export const alwaysToolTitle = (request: CallRequest): string => `Always allow ${request.name} this session`;
export const alwaysServerTitle = (request: CallRequest): string =>
  `Always allow server ${request.server} this session`;

export function callPrompt(connection: Connection): CallPrompt {
  return async (request, signal): Promise<CallDecision | "dismissed"> => {
    if (signal.aborted) return "reject";
    const source = new CancellationTokenSource();
    const cancel = (): void => source.cancel();
    signal.addEventListener("abort", cancel, { once: true });
    try {
      const actions = [
        { title: ALLOW },
        { title: alwaysToolTitle(request) },
        { title: alwaysServerTitle(request) },
        { title: REJECT },
      ];
      const aborted = new Promise<null>((resolve) =>
        signal.addEventListener("abort", () => resolve(null), { once: true }),
      );
      const sent = connection.sendRequest(
        ShowMessageRequest.type,
        { type: MessageType.Info, message: callMessage(request), actions },
        source.token,
      );
      sent.catch(() => undefined);
      const picked = await Promise.race([sent, aborted]);
      if (signal.aborted) return "reject";
      if (picked?.title === ALLOW) return "apply";
      if (picked?.title === alwaysToolTitle(request)) return "always_tool";
      if (picked?.title === alwaysServerTitle(request)) return "always_server";
      if (picked?.title === REJECT) return "reject";
      return "dismissed";
    } catch {
      return "dismissed";
    } finally {
      signal.removeEventListener("abort", cancel);
      source.dispose();
    }
  };
}
