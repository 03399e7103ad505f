// apply_patch: one change across files, written as a multi-file unified diff
// (`git diff`, `diff -ruN`) or as OpenAI's `apply_patch` envelope. Every file's
// base is checked, every hunk placed by the engine, and the files are written
// all together or not at all, with one outcome per file in the answer.
import { isOpenAiCompatible } from "../config/provider-facts.js";
import * as z from "zod";
import type { ChangeOutcome, FilePlan } from "../edit/changeset/apply-change.js";
import { refKey, runEngine } from "./engine-offload.js";
import { parseChange } from "../edit/changeset/parse-change.js";
import type { FileState } from "../workspace/file-state.js";
import { checkSeen, readChangeFiles, resolveChangeFiles, withAllLocks } from "./change-files.js";
import { deliverAll, type FileDelivery } from "./change-delivery.js";
import { errorEnvelope, failureEnvelope, okEnvelope, type Envelope } from "./envelope.js";
import { changeSummary, undecidedEnvelope } from "./modify.js";
import { groupChange } from "../review/group.js";
import {
  isRejected,
  isReviewed,
  isUndecided,
  rejectionWords,
  type ApprovalDecision,
  type HunkOutcome,
  type ProposedChange,
} from "../review/proposal.js";
import { dryRun } from "./schemas.js";
import { defineTool, type ToolContext } from "./tool.js";

const MAX_INPUT_CHARS = 8 * 1024 * 1024;
const MAX_FILES = 1_000;

type FileStatus = "applied" | "validated" | "failed" | "not_applied" | "reviewed";

interface FileReport {
  file_path: string;
  op: FilePlan["op"];
  to?: string;
  status: FileStatus;
  message: string;
}

function statesOf(states: Map<string, FileState | undefined>, paths: readonly string[]): FileState[] {
  return paths.map((p) => states.get(p)).filter((s): s is FileState => s !== undefined);
}

function report(plan: FilePlan, status: FileStatus, message: string): FileReport {
  return {
    file_path: plan.path,
    op: plan.op,
    ...(plan.to !== undefined ? { to: plan.to } : {}),
    status,
    message,
  };
}

function what(plan: FilePlan): string {
  if (plan.op === "add") return "created";
  if (plan.op === "delete") return "deleted";
  if (plan.op === "move")
    return `moved to ${plan.to}${plan.hunks > 0 ? ` (${plan.hunks} hunk${plan.hunks > 1 ? "s" : ""})` : ""}`;
  return `${plan.hunks} hunk${plan.hunks === 1 ? "" : "s"}`;
}

/** The deliveries a plan makes: a move is its destination created and its source deleted. */
function deliveriesOf(
  plan: FilePlan,
  states: Map<string, FileState | undefined>,
  paths: Map<string, FileDelivery["path"]>,
): FileDelivery[] {
  const before = states.get(plan.path) ?? null;
  if (plan.op === "move") {
    return [
      { path: paths.get(plan.to!)!, before: null, after: plan.after },
      { path: paths.get(plan.path)!, before, after: null },
    ];
  }
  return [{ path: paths.get(plan.path)!, before, after: plan.after }];
}

async function applyChange(text: string, dry: boolean, ctx: ToolContext): Promise<Envelope> {
  const parsed = parseChange(text);
  if (!parsed.ok) return failureEnvelope(parsed.error);
  const ops = parsed.value.operations;
  if (ops.length > MAX_FILES) {
    return errorEnvelope(
      "invalid_argument",
      `Invalid Argument: the change touches ${ops.length} files, over the limit of ${MAX_FILES} for one call. Nothing was applied.`,
      ["Split it into several calls."],
    );
  }
  const files = await resolveChangeFiles(ctx, ops);
  if (!files.ok) return failureEnvelope(files.error);
  const { relOf, resolved } = files.value;
  return withAllLocks(ctx, [...resolved.values()], async () => {
    const read = await readChangeFiles(ctx, files.value);
    if (!read.ok) return failureEnvelope(read.error);
    const states = read.value;
    const edited = ops.filter((o) => o.op !== "add").map((o) => relOf(o.path));
    const unseen = checkSeen(ctx, edited, states);
    if (unseen) return failureEnvelope(unseen, { latest_file_states: statesOf(states, edited) });

    // Large changes are computed where a cancellation can stop them (see engine-offload).
    const texts = Object.fromEntries([...states].map(([rel, s]) => [rel, s?.content ?? null]));
    const paths = Object.fromEntries(
      ops
        .flatMap((o) => (o.op === "update" && o.moveTo ? [o.path, o.moveTo] : [o.path]))
        .map((r) => [refKey(r), relOf(r)]),
    );
    const computed = await runEngine({ kind: "change", ops, files: texts, paths }, ctx.signal);
    if ("error" in computed) return failureEnvelope(computed.error);
    const outcome = computed as ChangeOutcome;
    if (!outcome.ok) {
      const refusedPaths = new Set(outcome.refused.map((r) => r.path));
      const reports: FileReport[] = [
        ...outcome.refused.map((r) => ({
          file_path: r.path,
          op: r.op,
          status: "failed" as const,
          message: r.error.message,
        })),
        ...outcome.planned
          .filter((p) => !refusedPaths.has(p.path))
          .map((p) =>
            report(p, "not_applied", "Fits, but not applied: the change applies to all files or none."),
          ),
      ];
      const first = outcome.refused[0]!;
      const others =
        outcome.refused.length > 1 ? ` (${outcome.refused.length} files refused; see files)` : "";
      return failureEnvelope(
        {
          code: first.error.code,
          message: `${first.path}: ${first.error.message}${others} Nothing was applied to any file.`,
          suggestions: first.error.suggestions,
        },
        {
          files: reports,
          latest_file_states: statesOf(states, [...refusedPaths]),
          ...(states.get(first.path) ? { latest_file_state: states.get(first.path) } : {}),
        },
      );
    }
    const plans = outcome.files;
    if (dry) {
      return okEnvelope({
        message: `Dry run: the change applies cleanly to ${plans.length} file${plans.length === 1 ? "" : "s"}; nothing was written.`,
        applied: false,
        files: plans.map((p) => report(p, "validated", `Fits (${what(p)}); nothing written.`)),
      });
    }
    return approveAndDeliver(ctx, plans, states, resolved);
  });
}

/** Each file's change as the user is shown it: a move is its destination, created, with its diff from the source's text. */
function proposalOf(
  ctx: ToolContext,
  plan: FilePlan,
  states: Map<string, FileState | undefined>,
  resolved: Map<string, FileDelivery["path"]>,
): ProposedChange {
  const target = plan.to ?? plan.path;
  const source = states.get(plan.path) ?? null;
  const change = changeSummary("apply_patch", target, source?.content ?? "", plan.after ?? "");
  // Object.assign keeps the summary's getters lazy.
  const fields = { uri: resolved.get(target)!.uri, before: plan.op === "move" ? null : source, op: plan.op };
  return Object.assign(
    change,
    fields,
    plan.op === "move" ? { moved_from: plan.path } : {},
    ctx.jobId !== undefined ? { job_id: ctx.jobId } : {},
  );
}

/**
 * Asks once for the whole change before anything is written: a change across files is one
 * prompt naming every file; a rejection leaves every file as it was. Reviewed, each file is
 * decided hunk by hunk, and what the user took has landed through the review desk already.
 */
async function approveAndDeliver(
  ctx: ToolContext,
  plans: FilePlan[],
  states: Map<string, FileState | undefined>,
  resolved: Map<string, FileDelivery["path"]>,
): Promise<Envelope> {
  const proposals = plans.map((p) => proposalOf(ctx, p, states, resolved));
  const decision = await ctx.approve(
    proposals.length === 1 ? proposals[0]! : groupChange(proposals),
    ctx.signal,
  );
  if (isUndecided(decision)) {
    const names = plans.length === 1 ? (plans[0]!.to ?? plans[0]!.path) : `${plans.length} files`;
    return undecidedEnvelope(names, decision.undecided, {
      files: plans.map((p) => report(p, "not_applied", "Not decided.")),
    });
  }
  if (isRejected(decision)) {
    const names =
      plans.length === 1
        ? (plans[0]!.to ?? plans[0]!.path)
        : `${plans.length} files (${plans.map((p) => p.to ?? p.path).join(", ")})`;
    const { said, next } = rejectionWords(decision);
    return errorEnvelope(
      "rejected",
      `Rejected: the user declined the change to ${names}. Nothing was applied to any file.${said}`,
      [next],
      {
        files: plans.map((p) => report(p, "not_applied", "Declined by the user.")),
      },
    );
  }
  // Per file: reviewed, or to be delivered. An approver that knows one file only reviewed the first (the fields it saw).
  const perFile = isReviewed(decision) ? (decision.files ?? [decision]) : plans.map(() => decision);
  const reviewed = new Set(plans.filter((_, i) => isReviewed(perFile[i])));
  const declined = new Set(plans.filter((_, i) => perFile[i] === undefined || isRejected(perFile[i])));
  if (ctx.signal.aborted) {
    // Hunks accepted in review before the cancel have landed: the answer says so rather than "nothing".
    const landed = plans.filter(
      (p, i) => reviewed.has(p) && hunksOf(perFile[i]).some((h) => h.status === "applied"),
    );
    if (landed.length === 0) return errorEnvelope("cancelled", "Cancelled: nothing was applied to any file.");
    return errorEnvelope(
      "cancelled",
      `Cancelled: the hunks the user accepted in review have landed in ${landed.map((p) => p.to ?? p.path).join(", ")}; nothing else was applied.`,
      ["Read those files again before the next change."],
    );
  }
  const toDeliver = plans.filter((p) => !reviewed.has(p) && !declined.has(p));
  // The user may have typed while deciding: the change lands only on the texts it was computed on.
  for (const [rel, path] of resolved) {
    const now = await ctx.workspace.read(path);
    const was = states.get(rel);
    if (
      (now.ok ? now.value.sha256 : undefined) !== was?.sha256 &&
      toDeliver.some((p) => p.path === rel || p.to === rel)
    ) {
      return errorEnvelope(
        "state_mismatch",
        `State Mismatch: ${rel} changed while the change was waiting for approval; nothing was applied to any file.`,
        ["Rebuild the change from latest_file_state (attached) and send it again."],
        now.ok ? { latest_file_state: now.value } : undefined,
      );
    }
  }
  const deliveries = toDeliver.flatMap((p) => deliveriesOf(p, states, resolved));
  const delivered = deliveries.length === 0 ? undefined : await deliverAll(ctx, deliveries);
  if (delivered && !delivered.ok) {
    return failureEnvelope(
      { ...delivered.error, message: `${delivered.error.message} Nothing was applied to any file.` },
      {
        files: plans.map((p) => report(p, "not_applied", "Not applied: the change could not be delivered.")),
      },
    );
  }
  const latest: FileState[] = [];
  deliveries.forEach((d, i) => {
    const state = delivered?.ok ? delivered.value.states[i] : undefined;
    if (state) {
      latest.push(state);
      ctx.conversation?.seenSha256?.set(state.file_path, state.sha256);
    }
    if (d.after !== null)
      ctx.journal?.record({
        job_id: ctx.jobId ?? null,
        tool: "apply_patch",
        file_path: d.path.rel,
        uri: d.path.uri,
        before: d.before?.content ?? null,
        after: d.after,
      });
  });
  const reports: FileReport[] = [];
  for (const [i, p] of plans.entries()) {
    if (reviewed.has(p)) reports.push(await finishReviewed(ctx, p, perFile[i], states, resolved));
    else
      reports.push(
        declined.has(p)
          ? report(p, "not_applied", "Declined by the user.")
          : report(p, "applied", `Applied (${what(p)}).`),
      );
  }
  return okEnvelope({
    message: `Patch applied successfully: ${plans.length} file${plans.length === 1 ? "" : "s"} (${plans.map((p) => `${p.path} ${what(p)}`).join("; ")}).`,
    applied: true,
    files: reports,
    latest_file_states: latest,
  });
}

/**
 * A reviewed delete or move ends as it would have unreviewed: once every hunk of it landed, the
 * file (a move's source) is removed, if it still holds what the change left it. Otherwise kept.
 */
const hunksOf = (decision: ApprovalDecision | undefined): HunkOutcome[] =>
  typeof decision === "object" && "reviewed" in decision ? decision.reviewed.hunks : [];

async function finishReviewed(
  ctx: ToolContext,
  plan: FilePlan,
  decision: ApprovalDecision | undefined,
  states: Map<string, FileState | undefined>,
  resolved: Map<string, FileDelivery["path"]>,
): Promise<FileReport> {
  const landed = "Reviewed hunk by hunk: the hunks the user accepted have landed.";
  if (plan.op !== "delete" && plan.op !== "move") return report(plan, "reviewed", landed);
  const hunks = hunksOf(decision);
  if (hunks.length === 0 || hunks.some((h) => h.status !== "applied"))
    return report(plan, "reviewed", `${landed} Not every hunk was, so ${plan.path} was kept.`);
  const path = resolved.get(plan.path)!;
  const expected = plan.op === "delete" ? "" : (states.get(plan.path)?.content ?? "");
  const now = await ctx.workspace.read(path);
  if (!now.ok || now.value.content !== expected)
    return report(plan, "reviewed", `${landed} ${plan.path} changed meanwhile, so it was kept.`);
  const removed = await ctx.workspace.remove(path, expected, ctx.signal);
  if (!removed.ok) return report(plan, "reviewed", `${landed} ${removed.error.message}`);
  return report(
    plan,
    "reviewed",
    `${landed} Every hunk was, so ${plan.path} was ${plan.op === "delete" ? "deleted" : `removed (moved to ${plan.to})`}.`,
  );
}

export const applyPatch = defineTool({
  name: "apply_patch",
  kind: "modify",
  // A command and a CLI verb for everyone; offered to the model where the settings ask (OpenAI models are trained on it).
  audience: "commands",
  offered: (conditions) => conditions.patchTool === "apply_patch",
  description: [
    "Change several files at once, all or none: create, delete, rename and edit files in one call.",
    "input is either OpenAI's apply_patch envelope (`*** Begin Patch`, then `*** Update File: PATH` with `@@ anchor` lines and hunks of context ( ), removed (-) and added (+) lines, `*** Add File: PATH` with + lines, `*** Delete File: PATH`, `*** Move to: PATH` after an update, `*** End Patch`) or a unified diff across files as `git diff` writes it.",
    "Build every hunk from the newest state of its file in the conversation (read files first); each anchor and each hunk must match exactly one place. If any file's hunk does not fit, or a file changed since you read it, nothing is written and the current states come back.",
  ].join(" "),
  params: z
    .object({
      input: z
        .string()
        .min(1, "must contain the patch")
        .max(MAX_INPUT_CHARS, `is too large (over ${MAX_INPUT_CHARS / 1024 / 1024} MB); split the change`)
        .describe(
          "The whole patch: an apply_patch envelope (*** Begin Patch … *** End Patch) or a unified diff across files.",
        ),
      dry_run: dryRun,
    })
    .strict(),
  run(args, ctx) {
    return applyChange(args.input, args.dry_run ?? false, ctx);
  },
});

/** The tool condition the settings ask for: the apply_patch tool is offered to OpenAI models when `patchTool` says so. */
export function patchToolCondition(settings: { provider: string; patchTool: string }): {
  patchTool?: "apply_patch";
} {
  return isOpenAiCompatible(settings.provider) && settings.patchTool === "apply_patch"
    ? { patchTool: "apply_patch" }
    : {};
}
