// What one tool's write did to a buffer the user kept typing in, judged against
// the three-way merge of the agent's base, the agent's result and the user's text.
// Pure: strings in, one outcome out.
import { diffArrays } from "diff";

export const OUTCOMES = [
  "correct",
  "refused",
  "lost_user_edit",
  "wrong_write",
  "partial_write",
  "silent_noop",
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** What a tool did: wrote this text (or reported success and left it), or refused and left the file. */
export type Attempt = { kind: "applied"; content: string } | { kind: "refused"; why: string };

export interface Judged {
  /** The text the agent read (version A). */
  base: string;
  /** The text the user has now: A plus everything typed since the agent read it. */
  user: string;
  /** The agent's post-image of `base`: what it meant to change. */
  agent: string;
  /** The clean three-way merge of base, the agent's result and `user`; null when they conflict (refusing is right). */
  expected: string | null;
  /** Merges of strict subsets of the agent's hunks onto `user`: a write equal to one of them is partial. */
  partials?: readonly string[];
}

/** Lines with their end, so a line that lost its trailing spaces or newline differs. */
export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Count of each line in a list. */
function tally(lines: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const l of lines) counts.set(l, (counts.get(l) ?? 0) + 1);
  return counts;
}

/**
 * Whether `written` dropped a line the user typed: a line the user added or changed
 * (base → user) that the write removed (user → written).
 */
export function lostUserLines(base: string, user: string, written: string): boolean {
  const typed = tally(
    diffArrays(splitLines(base), splitLines(user)).flatMap((p) => (p.added ? p.value : [])),
  );
  if (typed.size === 0) return false;
  for (const part of diffArrays(splitLines(user), splitLines(written))) {
    if (part.removed && part.value.some((l) => typed.has(l))) return true;
  }
  return false;
}

/** The lines a change removes and adds, each list sorted: the change's content, wherever it sits. */
function changeLines(from: string, to: string): string {
  const parts = diffArrays(splitLines(from), splitLines(to));
  const removed = parts.flatMap((p) => (p.removed ? p.value : [])).sort();
  const added = parts.flatMap((p) => (p.added ? p.value : [])).sort();
  return JSON.stringify([removed, added]);
}

/**
 * One outcome per run. A write that is exactly the agent's change made somewhere other than
 * where the merge puts it (in a pasted copy, say) is a wrong write, even when the place it
 * hit was the user's text; any other write that drops a line the user typed loses it.
 */
export function classify(judged: Judged, attempt: Attempt): Outcome {
  if (attempt.kind === "refused") return "refused";
  const written = attempt.content;
  if (judged.expected !== null && written === judged.expected) return "correct";
  if (written === judged.user) return "silent_noop";
  if (changeLines(judged.user, written) === changeLines(judged.base, judged.agent)) return "wrong_write";
  if (lostUserLines(judged.base, judged.user, written)) return "lost_user_edit";
  if (judged.partials?.includes(written)) return "partial_write";
  return "wrong_write";
}
