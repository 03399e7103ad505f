// The approval prompt where the client has window/showMessageRequest: Apply /
// Always allow / Reject for a whole change. Clients without it, and a prompt
// closed without a choice, get the change staged for review instead
// (review-view.ts), decided through code actions.
import type { Connection } from "vscode-languageserver";
import { CancellationTokenSource, MessageType, ShowMessageRequest } from "vscode-languageserver";
import { approvalMessage, type ApprovalPrompt, type UserDecision } from "../review/policy.js";
import type { ProposedChange } from "../review/proposal.js";

const APPLY = "Apply";
const REJECT = "Reject";
export const alwaysTitle = (tool: string): string => `Always allow ${tool} this session`;

export function messagePrompt(connection: Connection): ApprovalPrompt {
  return async (change: ProposedChange, signal: AbortSignal): Promise<UserDecision | "dismissed"> => {
    if (signal.aborted) return "reject";
    const source = new CancellationTokenSource();
    // A cancelled prompt is a rejection at once: the client may never answer the request.
    let onAbort = (): void => undefined;
    const aborted = new Promise<null>((resolve) => {
      onAbort = () => {
        source.cancel();
        resolve(null);
      };
    });
    const cancel = (): void => onAbort();
    signal.addEventListener("abort", cancel, { once: true });
    try {
      const request = connection.sendRequest(
        ShowMessageRequest.type,
        { type: MessageType.Info, message: approvalMessage(change), actions: [{ title: APPLY }, { title: alwaysTitle(change.tool) }, { title: REJECT }] },
        source.token,
      );
      request.catch(() => undefined);
      const picked = await Promise.race([request, aborted]);
      if (signal.aborted) return "reject";
      if (picked?.title === APPLY) return "apply";
      if (picked?.title === alwaysTitle(change.tool)) return "always";
      if (picked?.title === REJECT) return "reject";
      // No choice (closed, or a client that cannot show the menu now): the change waits for review instead.
      return "dismissed";
    } catch {
      return "dismissed";
    } finally {
      signal.removeEventListener("abort", cancel);
      source.dispose();
    }
  };
}
