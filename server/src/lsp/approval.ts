// The approval prompts where the client has window/showMessageRequest: Apply / Always
// allow / Reject for a whole change, Run once / Always allow its prefix / Reject for a
// command. Clients without it, and a change's prompt closed without a choice, get the change
// staged for review instead (review-view.ts), decided through code actions; a command is not
// run.
import type { Connection } from "vscode-languageserver";
import { CancellationTokenSource, MessageType, ShowMessageRequest } from "vscode-languageserver";
import { approvalMessage, type ApprovalPrompt, type UserDecision } from "../review/policy.js";
import type { ProposedChange } from "../review/proposal.js";
import { alwaysTitleFor, commandQuestionText, type CommandDecision, type CommandPrompt, type CommandQuestion } from "../tools/command-question.js";

const APPLY = "Apply";
const REJECT = "Reject";
const RUN_ONCE = "Run once";
export const alwaysTitle = (tool: string): string => `Always allow ${tool} this session`;

export function messagePrompt(connection: Connection): ApprovalPrompt {
  return async (change: ProposedChange, signal: AbortSignal): Promise<UserDecision | "dismissed"> => {
    const picked = await pick(connection, approvalMessage(change), [APPLY, alwaysTitle(change.tool), REJECT], signal);
    if (picked === "aborted") return "reject";
    if (picked === APPLY) return "apply";
    if (picked === alwaysTitle(change.tool)) return "always";
    if (picked === REJECT) return "reject";
    // No choice (closed, or a client that cannot show the menu now): the change waits for review instead.
    return "dismissed";
  };
}

export function commandPrompt(connection: Connection): CommandPrompt {
  return async (question: CommandQuestion, signal: AbortSignal): Promise<CommandDecision | "dismissed"> => {
    const always = question.prefixes.length > 0 ? [alwaysTitleFor(question.prefixes)] : [];
    const picked = await pick(connection, commandQuestionText(question), [RUN_ONCE, ...always, REJECT], signal);
    if (picked === "aborted" || picked === REJECT) return "reject";
    if (picked === RUN_ONCE) return "once";
    if (picked !== undefined && always.includes(picked)) return "always";
    return "dismissed";
  };
}

/** The title the user picked; undefined for no choice; "aborted" when the call was cancelled meanwhile. */
async function pick(connection: Connection, message: string, titles: string[], signal: AbortSignal): Promise<string | undefined | "aborted"> {
  if (signal.aborted) return "aborted";
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
    const request = connection.sendRequest(ShowMessageRequest.type, { type: MessageType.Info, message, actions: titles.map((title) => ({ title })) }, source.token);
    request.catch(() => undefined);
    const picked = await Promise.race([request, aborted]);
    if (signal.aborted) return "aborted";
    return picked?.title;
  } catch {
    return undefined;
  } finally {
    signal.removeEventListener("abort", cancel);
    source.dispose();
  }
}
