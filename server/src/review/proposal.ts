// review/: approval, hunks under review, the journal. Knows nothing of protocols or models.
// What the user decides about: a change a modifying tool is about to deliver,
// and, when it was reviewed hunk by hunk, what became of each hunk.
import type { FileState } from "../workspace/file-state.js";

export interface ProposedChange {
  tool: string;
  file_path: string;
  /** `file://` URI of the file (real path). */
  uri: string;
  /** `null` when the change creates the file. */
  before: FileState | null;
  after: string;
  /** Unified diff of before → after, for the approval prompt. */
  diff: string;
  added: number;
  removed: number;
  /** The agent job that proposes it; absent for a command the user ran. */
  job_id?: string;
  /** What the change does to its file, where a change across files says so: `add` creates it, `move` creates it from `moved_from`. */
  op?: "add" | "update" | "delete" | "move";
  /** For a move: the file it is moved from (deleted when the change lands); `diff`, `added` and `removed` are from that file's text. */
  moved_from?: string;
  /**
   * A change across files, decided as one (apply_patch): each file's own change, in order,
   * as it would be staged alone. `diff`, `added` and `removed` then sum up every file; the
   * other fields are the first file's, for readers that know one file only.
   */
  files?: ProposedChange[];
  /** Set on each file's change when a change across files is staged for review: the same label for all of them. */
  group?: string;
}

/** applied: it landed; rejected: the user declined it; conflict: its lines changed meanwhile, so it was not forced. */
export type HunkStatus = "applied" | "rejected" | "conflict";

export interface HunkOutcome {
  hunk_id: string;
  status: HunkStatus;
  /** Why, for a conflict. */
  message?: string;
}

/** A change decided hunk by hunk: the hunks that were taken have landed already. */
export interface Reviewed {
  hunks: HunkOutcome[];
  /** The file after the last hunk that landed; absent when none did. */
  state?: FileState;
  /** The buffer version the last landed hunk was built on (for the wrapped server's verdict on it). */
  lastBaseVersion?: number | null;
}

/**
 * `files`: a change across files reviewed file by file, one decision per entry of
 * `ProposedChange.files`, in order; `reviewed` then holds every file's hunks.
 */
export type ApprovalDecision =
  | "apply"
  | "reject"
  | Rejection
  | Undecided
  | { reviewed: Reviewed; files?: ApprovalDecision[] };

/**
 * Nobody decided: the request was withdrawn (the turn was cancelled, the client answered
 * `cancelled`) or the client could not ask (it answered an error). Not a rejection: `undecided`
 * says what happened, in words the model reads.
 */
export interface Undecided {
  undecided: string;
}

export function isUndecided(decision: ApprovalDecision | undefined): decision is Undecided {
  return typeof decision === "object" && "undecided" in decision;
}

/** A rejection with the user's words for the model: why, or what to do instead. */
export interface Rejection {
  rejected: { reason: string };
}

/** A decision that a change was reviewed hunk by hunk (what the user took has landed). */
export function isReviewed(
  d: ApprovalDecision | undefined,
): d is { reviewed: Reviewed; files?: ApprovalDecision[] } {
  return typeof d === "object" && "reviewed" in d;
}

/** A decision that nothing of the change lands: a plain "no", or a "no" with the user's reason. */
export function isRejected(d: ApprovalDecision | undefined): d is "reject" | Rejection {
  return d === "reject" || (typeof d === "object" && "rejected" in d);
}

/** What a rejection tells the model besides "declined": the user's own words, when they gave some. */
export function rejectionWords(d: ApprovalDecision | undefined): { said: string; next: string } {
  if (typeof d === "object" && "rejected" in d) {
    return {
      said: ` The user said: ${JSON.stringify(d.rejected.reason)}`,
      next: "Do what the user said instead; do not retry the same change.",
    };
  }
  return { said: "", next: "Ask the user what they want instead; do not retry the same change." };
}

/** Asks whoever runs the tool whether a change may land. Direct commands always answer "apply". */
export type Approver = (change: ProposedChange, signal: AbortSignal) => Promise<ApprovalDecision>;
