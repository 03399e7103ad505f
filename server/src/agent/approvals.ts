// Approval of the model's modifying calls. "Always allow" is per tool and
// lives in the session: gone on restart or reset_session, never persisted.
import type { ApprovalDecision, Approver, ProposedChange } from "../tools/tool.js";
import type { Session } from "./session.js";

export type UserDecision = "apply" | "always" | "reject";

/** Asks the user about one change (a prompt in the editor, or a staged change). */
export type ApprovalPrompt = (change: ProposedChange, signal: AbortSignal) => Promise<UserDecision>;

export type ApprovalMode = "ask" | "auto";

export function sessionApprover(session: Session, mode: () => ApprovalMode, prompt: ApprovalPrompt): Approver {
  return async (change, signal): Promise<ApprovalDecision> => {
    if (mode() === "auto" || session.alwaysAllowed.has(change.tool)) return "apply";
    if (signal.aborted) return "reject";
    const decision = await prompt(change, signal);
    if (decision === "always") session.alwaysAllowed.add(change.tool);
    return decision === "reject" ? "reject" : "apply";
  };
}

/** The words of an approval prompt: tool, file and the size of the change. */
export function approvalMessage(change: ProposedChange): string {
  const what = change.before === null ? "create" : "change";
  return `lockstep wants to ${what} ${change.file_path} with ${change.tool} (+${change.added} −${change.removed}).`;
}
