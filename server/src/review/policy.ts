// The session's approval policy for the model's modifying calls: `auto` lets
// them land, `ask` asks once per change (a prompt where the editor has one, else
// the change is staged for review), `review` stages every change hunk by hunk.
// A change across files is one change: one prompt for all its files; staged,
// each file is reviewed as its own change, all at once, under one group label.
// "Always allow" is per tool and lives in the session: gone on restart or
// reset_session, never persisted.
import type { ApprovalDecision, Approver, ProposedChange, Reviewed, Undecided } from "./proposal.js";

/**
 * What the user answers to a question: `stop` rejects the change and ends the run at once
 * (nothing more is asked of the model); a `reason` rejects it and tells the model why.
 */
export type UserDecision = "apply" | "always" | "reject" | "stop" | { reason: string };

/**
 * Asks the user about one whole change (a prompt in the editor). `dismissed`: the prompt was
 * closed without a choice (or the editor could not show it): the change is staged for review instead.
 */
export type ApprovalPrompt = (
  change: ProposedChange,
  signal: AbortSignal,
) => Promise<UserDecision | Undecided | "dismissed">;

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

/** `stop`: ends the run a change belongs to (the door's agent); absent where there is no run to end. */
export function sessionApprover(
  session: AllowedTools,
  mode: () => ApprovalMode,
  channels: ApprovalChannels,
  stop?: (jobId: string) => void,
): Approver {
  return async (change, signal): Promise<ApprovalDecision> => {
    const m = mode();
    if (m === "auto" || session.alwaysAllowed.has(change.tool)) return "apply";
    if (signal.aborted) return "reject";
    const prompt = m === "ask" ? channels.prompt() : undefined;
    const decision = prompt ? await prompt(change, signal) : "dismissed";
    // Nobody decided (a withdrawn question, a client error): said as such, never as a rejection.
    if (typeof decision === "object" && "undecided" in decision) return decision;
    if (decision !== "dismissed") return decided(decision, change, session, stop);
    if (signal.aborted) return "reject";
    if (change.files && change.files.length > 0)
      return reviewEach(change, change.files, session, channels, signal);
    const staged = await channels.review(change, signal);
    if (staged.always) session.alwaysAllowed.add(change.tool);
    return { reviewed: staged.reviewed };
  };
}

function decided(
  decision: UserDecision,
  change: ProposedChange,
  session: AllowedTools,
  stop?: (jobId: string) => void,
): ApprovalDecision {
  if (typeof decision === "object") {
    const reason = decision.reason.trim();
    return reason === "" ? "reject" : { rejected: { reason } };
  }
  if (decision === "stop" && change.job_id !== undefined) stop?.(change.job_id);
  if (decision === "always") session.alwaysAllowed.add(change.tool);
  return decision === "apply" || decision === "always" ? "apply" : "reject";
}

let groups = 0;

/** Every file of a change across files staged at once, each hunk by hunk; the call waits for all of them. */
async function reviewEach(
  change: ProposedChange,
  files: ProposedChange[],
  session: AllowedTools,
  channels: ApprovalChannels,
  signal: AbortSignal,
): Promise<ApprovalDecision> {
  const group = `${change.job_id ?? "change"}/g${++groups}`;
  // Each file under the whole change's tool name (the one "always allow" is about); its own fields stay lazy.
  const staged = await Promise.all(
    files.map((f) =>
      channels.review(
        Object.create(f, {
          tool: { value: change.tool, enumerable: true },
          group: { value: group, enumerable: true },
        }) as ProposedChange,
        signal,
      ),
    ),
  );
  if (staged.some((s) => s.always)) session.alwaysAllowed.add(change.tool);
  return {
    reviewed: { hunks: staged.flatMap((s) => s.reviewed.hunks) },
    files: staged.map((s) => ({ reviewed: s.reviewed })),
  };
}

/** How many files a prompt names one by one; the rest are counted. */
const NAMED_FILES = 20;

/** The words of an approval prompt: tool, file (every file of a change across files) and the size of the change. */
export function approvalMessage(change: ProposedChange): string {
  const files = change.files ?? [];
  if (files.length === 0) {
    const what = change.before === null ? "create" : "change";
    return `lockstep wants to ${what} ${change.file_path} with ${change.tool} (+${change.added} −${change.removed}).`;
  }
  const named = files.slice(0, NAMED_FILES).map(fileWords);
  const rest = files.slice(NAMED_FILES);
  if (rest.length > 0)
    named.push(`and ${rest.length} more (+${sum(rest, "added")} −${sum(rest, "removed")})`);
  return `lockstep wants to change ${files.length} files with ${change.tool}: ${named.join(", ")}.`;
}

function fileWords(f: ProposedChange): string {
  if (f.op === "delete") return `deleted ${f.file_path} (−${f.removed})`;
  if (f.op === "move") return `${f.moved_from ?? "?"} moved to ${f.file_path} (+${f.added} −${f.removed})`;
  if (f.before === null) return `new ${f.file_path} (+${f.added})`;
  return `${f.file_path} (+${f.added} −${f.removed})`;
}

const sum = (files: readonly ProposedChange[], key: "added" | "removed"): number =>
  files.reduce((n, f) => n + f[key], 0);
