// Changes staged for review, hunk by hunk. The model's call waits here until
// every hunk of its change is decided. Accepting a hunk applies that hunk alone,
// placed on the file as it is now (edit/merge: the user's typing elsewhere
// stays); a hunk whose own lines the user changed is a conflict, never forced.
// Knows nothing of LSP: the editor sees this desk through `located` (where each
// hunk is now) and decides through `decide`.
//
// Cost: a decision diffs the base against the text once, however many hunks it
// takes, and each hunk finds its place by binary search (edit/merge/rebase.ts).
// Once hunks land, the base moves on with them (the pending hunks' places in it
// shift by what landed before them), so the next decision diffs only the
// user's own typing, not every hunk taken so far. Long loops yield now and
// then, so a change of thousands of hunks never holds other requests. How
// accepted hunks land on the file is land-hunks.ts's; this file stages, shows and
// queues the decisions.
import { changeHunks, hunkDiff, hunkSummary } from "../edit/merge/hunks.js";
import { MovedText } from "../edit/merge/rebase.js";
import { linesWithEol } from "../edit/shared/text.js";
import { fail, succeed, type Outcome } from "../shared/outcome.js";
import type { Workspace } from "../workspace/workspace.js";
import type { Journal } from "./journal.js";
import type { StagedOutcome } from "./policy.js";
import type { HunkOutcome, ProposedChange } from "./proposal.js";
import { landHunks, turn, YIELD_EVERY, type Landing, type StagedHunk } from "./land-hunks.js";

export type ReviewDecision = "apply" | "reject" | "always";

interface StagedChange extends Landing {
  id: string;
  always: boolean;
  /** Decisions on one change are carried out one after another. */
  queue: Promise<void>;
  /** Decisions not carried out yet: all those waiting when a turn comes are carried out together (one read, one diff, one write). */
  waiting: { decision: ReviewDecision; targets: StagedHunk[]; signal: AbortSignal }[];
  finish: () => void;
}

/** A pending hunk where it is in the file now (0-based lines of the current text). */
export interface LocatedHunk {
  change_id: string;
  hunk_id: string;
  tool: string;
  file_path: string;
  /** First and last line it covers now; an insertion covers the line it follows. */
  start: number;
  end: number;
  summary: string;
  /** Why it cannot land as it is, when its lines changed since. */
  conflict?: string;
}

export interface PendingChange {
  change_id: string;
  job_id: string | null;
  tool: string;
  file_path: string;
  /**
   * `summary`: "+a −r: first proposed line", as the diagnostic shows it; `conflict`: why the hunk
   * cannot land as it is (its lines changed since); absent when it can.
   */
  hunks: {
    hunk_id: string;
    line: number;
    end_line: number;
    diff: string;
    summary: string;
    conflict?: string;
  }[];
  /** The same label on every file of one change across files (apply_patch), staged together; absent for a change to one file. */
  group?: string;
}

export interface DeskDeps {
  workspace: () => Workspace | undefined;
  journal: Journal;
  /** The pending hunks of this file changed (staged, decided, withdrawn): show them again. */
  changed: (uri: string) => void;
  /** A job now waits for the user's review. */
  waiting?: (change: ProposedChange) => void;
}

export class ReviewDesk {
  private readonly staged = new Map<string, StagedChange>();
  private counter = 0;

  constructor(private readonly deps: DeskDeps) {}

  /** Stages `change` and resolves once each hunk is applied, rejected or in conflict (or the call is withdrawn). */
  stage(change: ProposedChange, signal: AbortSignal): Promise<StagedOutcome> {
    const id = `c${++this.counter}`;
    const base = change.before?.content ?? "";
    const hunks = changeHunks(base, change.after).map((hunk, i) => ({
      id: `${id}.${i + 1}`,
      hunk,
      at: hunk,
    }));
    return new Promise<StagedOutcome>((resolve) => {
      const withdraw = (): void => {
        for (const h of entry.hunks)
          h.outcome ??= { hunk_id: h.id, status: "rejected", message: "withdrawn: the call was cancelled" };
        entry.finish();
      };
      const entry: StagedChange = {
        id,
        change,
        base: linesWithEol(base),
        hunks,
        always: false,
        queue: Promise.resolve(),
        waiting: [],
        finish: () => {
          if (!this.staged.delete(id)) return;
          signal.removeEventListener("abort", withdraw);
          this.deps.changed(change.uri);
          resolve({
            reviewed: {
              hunks: entry.hunks.map((h) => h.outcome!),
              ...(entry.lastState ? { state: entry.lastState } : {}),
              ...(entry.lastBaseVersion !== undefined ? { lastBaseVersion: entry.lastBaseVersion } : {}),
            },
            always: entry.always,
          });
        },
      };
      if (hunks.length === 0) return resolve({ reviewed: { hunks: [] }, always: false });
      this.staged.set(id, entry);
      signal.addEventListener("abort", withdraw, { once: true });
      this.deps.changed(change.uri);
      this.deps.waiting?.(change);
    });
  }

  /** Files with pending hunks (real-path URIs). */
  uris(): string[] {
    return [...new Set([...this.staged.values()].map((s) => s.change.uri))];
  }

  /** The pending hunks of a file, where they are in its current text. */
  async located(uri: string): Promise<LocatedHunk[]> {
    const out: LocatedHunk[] = [];
    for (const s of this.staged.values()) {
      if (s.change.uri !== uri) continue;
      const now = await this.currentText(s);
      const moved = now === undefined ? undefined : new MovedText(s.base, now);
      let n = 0;
      for (const h of s.hunks) {
        if (h.outcome) continue;
        if (++n % YIELD_EVERY === 0) await turn();
        const placed = moved?.locate(h.at);
        const start = placed?.ok
          ? placed.value.at
          : Math.min(h.at.start, Math.max(0, (moved?.now.length ?? 1) - 1));
        const span = h.hunk.removed.length;
        out.push({
          change_id: s.id,
          hunk_id: h.id,
          tool: s.change.tool,
          file_path: s.change.file_path,
          start: span === 0 ? Math.max(0, start - 1) : start,
          end: span === 0 ? Math.max(0, start - 1) : start + span - 1,
          summary: hunkSummary(h.hunk),
          ...(placed && !placed.ok ? { conflict: placed.error.message } : {}),
        });
      }
    }
    return out;
  }

  /** lockstep.review: what waits for a decision, in one file or everywhere. */
  async pending(uri?: string): Promise<PendingChange[]> {
    const out: PendingChange[] = [];
    const byFile = new Map<string, Map<string, LocatedHunk>>();
    for (const s of [...this.staged.values()]) {
      if (uri !== undefined && s.change.uri !== uri) continue;
      let where = byFile.get(s.change.uri);
      if (!where)
        byFile.set(
          s.change.uri,
          (where = new Map((await this.located(s.change.uri)).map((l) => [l.hunk_id, l]))),
        );
      out.push({
        change_id: s.id,
        job_id: s.change.job_id ?? null,
        tool: s.change.tool,
        file_path: s.change.file_path,
        ...(s.change.group !== undefined ? { group: s.change.group } : {}),
        hunks: s.hunks
          .filter((h) => !h.outcome)
          .map((h) => {
            const at = where.get(h.id);
            const conflict = at?.conflict;
            return {
              hunk_id: h.id,
              line: (at?.start ?? h.hunk.start) + 1,
              end_line: (at?.end ?? h.hunk.start) + 1,
              diff: hunkDiff(h.hunk),
              summary: hunkSummary(h.hunk),
              ...(conflict ? { conflict } : {}),
            };
          }),
      });
    }
    return out;
  }

  /** The ids of the pending changes to a file. */
  changesIn(uri: string): string[] {
    return [...this.staged.values()].filter((s) => s.change.uri === uri).map((s) => s.id);
  }

  /** A change or hunk id decided: apply, reject, or (for a change) always allow its tool and apply. */
  async decide(id: string, decision: ReviewDecision, signal: AbortSignal): Promise<Outcome<HunkOutcome[]>> {
    const changeId = id.split(".")[0]!;
    const s = this.staged.get(changeId);
    // A hunk id is its change's id and its 1-based number: found by index, not by a scan of every hunk.
    const one = id === changeId ? undefined : s?.hunks[Number(id.slice(changeId.length + 1)) - 1];
    const targets =
      id === changeId ? s?.hunks.filter((h) => !h.outcome) : one?.id === id && !one.outcome ? [one] : [];
    if (!s || !targets || targets.length === 0) {
      return fail(
        "not_found",
        `Not Found: nothing pending under ${id}; it was decided or withdrawn already.`,
        ["lockstep.review lists what still waits for a decision."],
      );
    }
    if (decision === "always" && id !== changeId) {
      return fail(
        "invalid_argument",
        `Invalid Argument: "always" is decided for a whole change (${changeId}), not for one hunk.`,
        [`Decide ${changeId} with always, or ${id} with apply.`],
      );
    }
    s.waiting.push({ decision, targets, signal });
    const run = s.queue.then(() => this.carryOut(s));
    s.queue = run.then(
      () => undefined,
      () => undefined,
    );
    if (await run) {
      this.deps.changed(s.change.uri);
      if (s.hunks.every((h) => h.outcome)) s.finish();
    }
    // "Always allow" on one file of a change across files answers for the whole change: its other files apply too.
    if (decision === "always" && s.change.group !== undefined) {
      for (const other of [...this.staged.values()])
        if (other !== s && other.change.group === s.change.group)
          await this.decide(other.id, "apply", signal);
    }
    return succeed(targets.map((h) => h.outcome!));
  }

  /**
   * The decisions waiting on a change, in the order they came: rejections mark
   * their hunks at once, and the hunks to apply land together, placed on the
   * file as it is now. The same outcome as one decision after another (nothing
   * changes the file between decisions queued together), at the cost of one.
   * False when an earlier turn carried them out already.
   */
  private async carryOut(s: StagedChange): Promise<boolean> {
    const batch = s.waiting.splice(0);
    if (batch.length === 0) return false;
    const signal = allAborted(batch.map((b) => b.signal));
    const toApply = new Set<StagedHunk>();
    for (const { decision, targets } of batch) {
      for (const h of targets) {
        if (h.outcome || toApply.has(h)) continue;
        if (decision === "reject") h.outcome = { hunk_id: h.id, status: "rejected" };
        else toApply.add(h);
      }
      if (decision === "always") s.always = true;
    }
    if (toApply.size > 0)
      await landHunks(
        this.deps,
        s,
        s.hunks.filter((h) => toApply.has(h)),
        signal,
      );
    return true;
  }

  /** Server shutdown or session reset: whatever waits is declined. */
  rejectAll(): void {
    for (const s of [...this.staged.values()]) {
      for (const h of s.hunks)
        h.outcome ??= { hunk_id: h.id, status: "rejected", message: "withdrawn: the session ended" };
      s.finish();
    }
  }

  /** The whole proposed diff of the pending changes to a file. */
  diffOf(uri: string): string {
    return [...this.staged.values()]
      .filter((s) => s.change.uri === uri)
      .map(
        (s) =>
          `--- ${s.change.file_path}\n+++ ${s.change.file_path} (proposed by ${s.change.tool}, ${s.id})\n${s.hunks
            .filter((h) => !h.outcome)
            .map((h) => hunkDiff(h.hunk))
            .join("")}`,
      )
      .join("\n");
  }

  private async currentText(s: StagedChange): Promise<string | undefined> {
    const ws = this.deps.workspace();
    const path = ws ? await ws.resolve(s.change.file_path, "read") : undefined;
    if (!ws || !path?.ok) return undefined;
    const read = await ws.read(path.value);
    return read.ok ? read.value.content : read.error.code === "not_found" ? "" : undefined;
  }
}

/** Aborts once every one of `signals` has: a decision carried out with others is cancelled only when all of them are. */
function allAborted(signals: readonly AbortSignal[]): AbortSignal {
  // One listener per distinct signal: a caller deciding many hunks under one signal adds one, not one per hunk.
  const distinct = [...new Set(signals)];
  if (distinct.length === 1) return distinct[0]!;
  const all = new AbortController();
  let left = distinct.filter((sg) => !sg.aborted).length;
  if (left === 0) all.abort();
  for (const sg of distinct)
    if (!sg.aborted) sg.addEventListener("abort", () => --left === 0 && all.abort(), { once: true });
  return all.signal;
}
