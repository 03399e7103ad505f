// Accepted hunks landed on the file as it is now: one diff of the change's base against the
// current text places every hunk decided together (edit/merge/rebase.ts), those that fit are
// delivered in one edit and journalled, the others are conflicts, never forced; then the base
// moves on with what landed. Knows nothing of LSP or of how decisions are asked and queued
// (review-desk.ts's).
import type { ChangeHunk } from "../edit/merge/hunks.js";
import { applyLocated, MovedText, type Located } from "../edit/merge/rebase.js";
import type { FileState } from "../workspace/file-state.js";
import type { Workspace } from "../workspace/workspace.js";
import type { Journal } from "./journal.js";
import type { HunkOutcome, ProposedChange } from "./proposal.js";

export interface StagedHunk {
  id: string;
  /** As proposed, on the text the change was computed on (what the user is shown). */
  hunk: ChangeHunk;
  /** The same hunk on `base` as it is now (its place moves as the hunks before it land). */
  at: ChangeHunk;
  outcome?: HunkOutcome;
}

/** What landing needs of a staged change, and what it moves on: its base, the hunks' outcomes, the state it left. */
export interface Landing {
  change: ProposedChange;
  /** The lines the change was computed on ("" for a file it creates), with the hunks that landed since. */
  base: readonly string[];
  hunks: StagedHunk[];
  lastState?: FileState;
  lastBaseVersion?: number | null;
}

export interface LandingDeps {
  workspace: () => Workspace | undefined;
  journal: Journal;
}

/**
 * The hunks placed on the file as it is now, in one edit (eglot cannot report one edit before the
 * next while it waits for our answer): those that fit land, the others are conflicts.
 */
export async function landHunks(
  deps: LandingDeps,
  s: Landing,
  hunks: StagedHunk[],
  signal: AbortSignal,
): Promise<void> {
  const conflict = (h: StagedHunk, message: string): void =>
    void (h.outcome = { hunk_id: h.id, status: "conflict", message });
  const ws = deps.workspace();
  const path = ws ? await ws.resolve(s.change.file_path, "write") : undefined;
  if (!ws || !path?.ok)
    return hunks.forEach((h) =>
      conflict(h, path && !path.ok ? path.error.message : "the server is not initialized"),
    );
  const read = await ws.read(path.value);
  if (!read.ok && !(read.error.code === "not_found" && s.change.before === null))
    return hunks.forEach((h) => conflict(h, read.ok ? "" : read.error.message));
  const current = read.ok ? read.value : null;
  // One diff of base → now for every hunk decided; each is placed on the text as it is, all land in one pass.
  const moved = new MovedText(s.base, current?.content ?? "");
  const landing: StagedHunk[] = [];
  const located: Located[] = [];
  for (const h of hunks) {
    if (landing.length % YIELD_EVERY === YIELD_EVERY - 1) await turn();
    const placed = moved.locate(h.at);
    if (!placed.ok) conflict(h, placed.error.message);
    else {
      landing.push(h);
      located.push(placed.value);
    }
  }
  if (landing.length === 0) return;
  const text = applyLocated(moved.now, located).join("");
  const delivered = await ws.deliver(path.value, current, text, signal);
  if (!delivered.ok) {
    const status = delivered.error.code === "rejected" ? "rejected" : "conflict";
    for (const h of landing) h.outcome = { hunk_id: h.id, status, message: delivered.error.message };
    return;
  }
  for (const h of landing) h.outcome = { hunk_id: h.id, status: "applied" };
  advanceBase(s, new Set(landing));
  s.lastState = delivered.value.state;
  s.lastBaseVersion = current?.version ?? null;
  deps.journal.record({
    job_id: s.change.job_id ?? null,
    tool: s.change.tool,
    file_path: s.change.file_path,
    uri: s.change.uri,
    before: current?.content ?? null,
    after: text,
  });
}

/** Hunks located per turn of the event loop: a change of thousands of hunks lets other requests in between. */
export const YIELD_EVERY = 256;

export const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The hunks that landed applied to the change's base too, and the pending
 * hunks' places in it moved by what landed before them: the base then differs
 * from the file only by the user's own typing, so the next decision's diff is small.
 */
function advanceBase(s: Landing, landed: ReadonlySet<StagedHunk>): void {
  const base = applyLocated(
    s.base,
    s.hunks.filter((h) => landed.has(h)).map((h) => ({ hunk: h.at, at: h.at.start })),
  );
  let shift = 0;
  for (const h of s.hunks) {
    if (landed.has(h)) shift += h.at.added.length - h.at.removed.length;
    else if (!h.outcome && shift !== 0) h.at = { ...h.at, start: h.at.start + shift, end: h.at.end + shift };
  }
  s.base = base;
}
