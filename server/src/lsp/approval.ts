// The approval prompt. A client that says it shows the change while it asks
// (`experimental.lockstepApproval`: lockstep's terminal, Neovim and Emacs clients) gets the
// `lockstep/approve` request with each file's diff, and answers apply / always / reject
// (with a reason) / stop. Other clients with window/showMessageRequest get Apply / Always
// allow / Reject / Stop the run for a whole change. Clients without either, and a prompt
// closed without a choice, get the change staged for review instead (review-view.ts).
import type { Connection } from "vscode-languageserver";
import { CancellationTokenSource, MessageType, RequestType, ShowMessageRequest } from "vscode-languageserver";
import { approvalMessage, type ApprovalPrompt, type UserDecision } from "../review/policy.js";
import { approvalQuestion, parseAnswer, type ApprovalQuestion } from "../review/question.js";

const APPLY = "Apply";
const REJECT = "Reject";
const STOP = "Stop the run";
export const alwaysTitle = (tool: string): string => `Always allow ${tool} this session`;

/** The request lockstep's own clients answer, with the change in it. */
export const approveRequest = new RequestType<ApprovalQuestion, unknown, void>("lockstep/approve");

export function messagePrompt(connection: Connection, withDiff: () => boolean): ApprovalPrompt {
  return (change, signal) =>
    asked(signal, async (token) => {
      if (withDiff()) return parseAnswer(await connection.sendRequest(approveRequest, approvalQuestion(change), token));
      const actions = [{ title: APPLY }, { title: alwaysTitle(change.tool) }, { title: REJECT }, { title: STOP }];
      const picked = await connection.sendRequest(ShowMessageRequest.type, { type: MessageType.Info, message: approvalMessage(change), actions }, token);
      if (picked?.title === APPLY) return "apply";
      if (picked?.title === alwaysTitle(change.tool)) return "always";
      if (picked?.title === REJECT) return "reject";
      if (picked?.title === STOP) return "stop";
      // No choice (closed, or a client that cannot show the menu now): the change waits for review instead.
      return "dismissed";
    });
}

/** Runs one question; a cancelled one is a rejection at once (the client may never answer). */
async function asked(signal: AbortSignal, ask: (token: CancellationTokenSource["token"]) => Promise<UserDecision | "dismissed">): Promise<UserDecision | "dismissed"> {
  if (signal.aborted) return "reject";
  const source = new CancellationTokenSource();
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
    const request = ask(source.token);
    request.catch(() => undefined);
    const answer = await Promise.race([request, aborted]);
    if (signal.aborted || answer === null) return "reject";
    return answer;
  } catch {
    return "dismissed";
  } finally {
    signal.removeEventListener("abort", cancel);
    source.dispose();
  }
}
