// Runs every tool on every case, judges each write against the merge, and after a
// refusal lets one oracle re-planner (the same for every tool) re-express the
// change on the text as it is now while the user keeps typing, up to 3 tries.
import { applyPatch, structuredPatch } from "diff";
import { runApplyPatch, type GnuPatch } from "../peers.js";
import { Rng } from "../prng.js";
import { userText, type Family, type MovingCase } from "./cases.js";
import { classify, OUTCOMES, type Attempt, type Outcome } from "./classify.js";
import { CONTEXT, spellEdit, type AgentEdit } from "./formats.js";
import { LOCKSTEP_TOOLS, type LockstepOnDisk, type LockstepTool } from "./lockstep-tools.js";
import type { LockstepOverLsp } from "./lockstep-lsp.js";
import type { Merger } from "./merge.js";
import type { Peer } from "./peer-code.js";
import { typeFar, TypedBuffer } from "./typing.js";

export interface ToolSpec {
  name: string;
  /** True when the row runs the tool's own shipped code; false for a stand-in. */
  own_code: boolean;
  version: string;
  /** What the row runs, in a few words. */
  what: string;
  run(input: { path: string; edit: AgentEdit; atCall: string; afterApproval?: string }): Promise<Attempt>;
}

export type Counts = Record<Outcome, number>;
export interface ToolTally {
  byFamily: Map<Family, Counts & { refused_clean_merge: number; retry_landed: number }>;
}

export const RETRIES = 3;

function emptyCounts(): Counts & { refused_clean_merge: number; retry_landed: number } {
  return {
    ...(Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Counts),
    refused_clean_merge: 0,
    retry_landed: 0,
  };
}

/** A tool that reads the file at write time sees the typing done during the approval too. */
function atWrite(input: { atCall: string; afterApproval?: string }): string {
  return input.afterApproval ?? input.atCall;
}

export function lockstepSpecs(disk: LockstepOnDisk, version: string): ToolSpec[] {
  const what: Record<LockstepTool, string> = {
    "lockstep safe_patch": "unified diff + base sha256, tools/modify.ts on disk",
    "lockstep edit": "old/new strings + base sha256, on disk",
    "lockstep edit, no base": "old/new strings, no sha256 (schema allows it)",
  };
  return LOCKSTEP_TOOLS.map((name) => ({
    name,
    own_code: true,
    version,
    what: what[name],
    run: (input) => disk.run(name, input),
  }));
}

export function lspSpecs(lsp: LockstepOverLsp, version: string): ToolSpec[] {
  return (["safe_patch", "edit"] as const).map((tool) => ({
    name: `lockstep ${tool} (LSP)`,
    own_code: true,
    version,
    what: `${tool} + base sha256 via the server, an editor typing didChanges`,
    run: (input) => lsp.run(tool, input),
  }));
}

export function peerSpec(name: string, peer: Peer, what: string): ToolSpec {
  return {
    name,
    own_code: true,
    version: peer.version,
    what,
    run: (input) => peer.run(atWrite(input), { path: input.path, ...input.edit }),
  };
}

export function baselineSpecs(gnu: GnuPatch, diffVersion: string, gnuVersion: string): ToolSpec[] {
  return [
    {
      name: "diff applyPatch",
      own_code: true,
      version: diffVersion,
      what: "jsdiff applyPatch, fuzzFactor 0",
      run: async (i) => asAttempt(runApplyPatch(atWrite(i), i.edit.unifiedDiff, 0)),
    },
    {
      name: "GNU patch",
      own_code: true,
      version: gnuVersion,
      what: "patch --batch --forward (fuzz 2)",
      run: async (i) => asAttempt(await gnu.run(atWrite(i), i.edit.unifiedDiff, ".txt")),
    },
  ];
}

function asAttempt(
  a: { kind: "applied"; content: string } | { kind: "refused" | "threw"; why: string },
): Attempt {
  return a.kind === "applied" ? a : { kind: "refused", why: a.why };
}

/** Merges of each strict subset of the agent's hunks onto the user's text: what a partial write would leave. */
function partialMerges(edit: AgentEdit, user: string, merger: Merger): string[] {
  const patch = structuredPatch("f", "f", edit.base, edit.after, "", "", { context: CONTEXT });
  if (patch.hunks.length < 2 || patch.hunks.length > 3) return [];
  const out: string[] = [];
  for (let mask = 1; mask < (1 << patch.hunks.length) - 1; mask++) {
    const partial = applyPatch(edit.base, { ...patch, hunks: patch.hunks.filter((_, i) => (mask >> i) & 1) });
    const merged = partial === false ? null : merger.merge(edit.base, partial, user);
    if (merged !== null) out.push(merged);
  }
  return out;
}

/** One more burst of typing (or none), away from where `plan` changes `current`. */
function typeDuringRetry(current: string, plan: AgentEdit, rng: Rng): string {
  if (!rng.chance(0.5)) return current;
  const buf = new TypedBuffer(current.split("\n"));
  buf.protect({ lo: buf.lines.length - 1, hi: buf.lines.length });
  for (const h of structuredPatch("f", "f", plan.base, plan.after, "", "", { context: CONTEXT }).hunks) {
    buf.protect({ lo: h.oldStart - 1, hi: h.oldStart - 1 + h.oldLines }, 6);
  }
  typeFar(buf, rng);
  return buf.text();
}

export interface CaseResult {
  outcome: Outcome;
  cleanMerge: boolean;
  retryLanded: boolean;
}

/** One tool on one case, with the retries after a refusal. */
export async function runCase(tool: ToolSpec, c: MovingCase, merger: Merger): Promise<CaseResult> {
  const user = userText(c);
  const expected = merger.merge(c.edit.base, c.edit.after, user);
  const attempt = await tool.run(c);
  const outcome = classify(
    { base: c.edit.base, agent: c.edit.after, user, expected, partials: partialMerges(c.edit, user, merger) },
    attempt,
  );
  let retryLanded = false;
  if (outcome === "refused" && expected !== null) {
    // The oracle knows what the agent meant: the merge of its change onto the text it now reads.
    // The same typing for every tool: the retries differ only by what the tool does.
    const rng = new Rng(0).fork(c.id);
    let current = user;
    for (let attemptNo = 0; attemptNo < RETRIES && !retryLanded; attemptNo++) {
      const target = merger.merge(c.edit.base, c.edit.after, current);
      if (target === null || target === current) break;
      const plan = spellEdit(c.path, current, target);
      const next = typeDuringRetry(current, plan, rng);
      const want = merger.merge(current, target, next);
      const again = classify(
        { base: current, agent: target, user: next, expected: want },
        await tool.run({ path: c.path, edit: plan, atCall: next }),
      );
      if (again === "correct") retryLanded = true;
      else if (again !== "refused") break;
      current = next;
    }
  }
  return { outcome, cleanMerge: expected !== null, retryLanded };
}

export async function runAll(
  tools: readonly ToolSpec[],
  cases: readonly MovingCase[],
  merger: Merger,
  log: (s: string) => void,
): Promise<Map<string, ToolTally>> {
  const tallies = new Map<string, ToolTally>();
  for (const tool of tools) {
    const started = performance.now();
    const tally: ToolTally = { byFamily: new Map() };
    for (const c of cases) {
      const r = await runCase(tool, c, merger);
      const counts = tally.byFamily.get(c.family) ?? emptyCounts();
      counts[r.outcome]++;
      if (r.outcome === "refused" && r.cleanMerge) counts.refused_clean_merge++;
      if (r.retryLanded) counts.retry_landed++;
      tally.byFamily.set(c.family, counts);
    }
    log(`${tool.name}: ${cases.length} cases in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    tallies.set(tool.name, tally);
  }
  return tallies;
}

export function totals(tally: ToolTally): Counts & { refused_clean_merge: number; retry_landed: number } {
  const sum = emptyCounts();
  for (const counts of tally.byFamily.values())
    for (const key of Object.keys(sum) as (keyof typeof sum)[]) sum[key] += counts[key];
  return sum;
}
