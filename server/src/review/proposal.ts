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

export type ApprovalDecision = "apply" | "reject" | { reviewed: Reviewed };

/** Asks whoever runs the tool whether a change may land. Direct commands always answer "apply". */
export type Approver = (change: ProposedChange, signal: AbortSignal) => Promise<ApprovalDecision>;
