// The session's approval policy for the model's modifying calls: `auto` lets
// them land, `ask` asks once per change (a prompt where the editor has one, else
// the change is staged for review), `review` stages every change hunk by hunk.
// "Always allow" is per tool and lives in the session: gone on restart or
// reset_session, never persisted.
import type { ApprovalDecision, Approver, ProposedChange, Reviewed } from "./proposal.js";

export type UserDecision = "apply" | "always" | "reject";

/**
 * Asks the user about one whole change (a prompt in the editor). `dismissed`: the prompt was
 * closed without a choice (or the editor could not show it): the change is staged for review instead.
 */
export type ApprovalPrompt = (change: ProposedChange, signal: AbortSignal) => Promise<UserDecision | "dismissed">;

export type ApprovalMode = "ask" | "auto" | "review";

/** A staged change once every hunk is decided; `always`: the user chose "always allow" for its tool. */
export interface StagedOutcome {
  reviewed: Reviewed;
  always: boolean;
}

export interface ApprovalChannels {
  /** A prompt for the whole change where the editor can show one; undefined where it cannot. */
  prompt: () => ApprovalPrompt | undefined;
  /** Stages the change for review and resolves when every hunk is decided (or the call is cancelled). */
  review: (change: ProposedChange, signal: AbortSignal) => Promise<StagedOutcome>;
}

/** What the policy keeps of a session: the tools the user allowed for it. */
export interface AllowedTools {
  readonly alwaysAllowed: Set<string>;
}

export function sessionApprover(session: AllowedTools, mode: () => ApprovalMode, channels: ApprovalChannels): Approver {
  return async (change, signal): Promise<ApprovalDecision> => {
    const m = mode();
    if (m === "auto" || session.alwaysAllowed.has(change.tool)) return "apply";
    if (signal.aborted) return "reject";
    const prompt = m === "ask" ? channels.prompt() : undefined;
    const decision = prompt ? await prompt(change, signal) : "dismissed";
    if (decision !== "dismissed") {
      if (decision === "always") session.alwaysAllowed.add(change.tool);
      return decision === "reject" ? "reject" : "apply";
    }
    if (signal.aborted) return "reject";
    const staged = await channels.review(change, signal);
    if (staged.always) session.alwaysAllowed.add(change.tool);
    return { reviewed: staged.reviewed };
  };
}

/** The words of an approval prompt: tool, file and the size of the change. */
export function approvalMessage(change: ProposedChange): string {
  const what = change.before === null ? "create" : "change";
  return `lockstep wants to ${what} ${change.file_path} with ${change.tool} (+${change.added} −${change.removed}).`;
}
