// The one path every modifying tool takes: resolve, lock the file, read its
// current state, check the hash, compute, ask, deliver. A failure anywhere
// leaves the file as it was and carries the latest state, so the model can
// retry in one step.
import type { Failure, Outcome } from "../shared/outcome.js";
import { EMPTY_SHA256 } from "../edit/shared/text.js";
import { unifiedDiff } from "../edit/merge/unified-diff.js";
import type { FileState } from "../workspace/file-state.js";
import type { ResolvedPath } from "../workspace/sandbox.js";
import { errorEnvelope, failureEnvelope, okEnvelope, type Data, type Envelope } from "./envelope.js";
import {
  isReviewed,
  isUndecided,
  rejectionWords,
  type ProposedChange,
  type Reviewed,
} from "../review/proposal.js";
import type { DiagnosticsAfter } from "../diagnostics/types.js";
import type { ToolContext } from "./tool.js";

export interface ModifyRequest {
  tool: string;
  file_path: string;
  /** The sha256 the change was built on; undefined where the tool allows it (the current state is then the base). */
  base?: string;
  dry_run?: boolean;
  /** Whether a file that does not exist may be created by this call. */
  mayCreate: boolean;
}

/** What a tool computed from the current text: the new text and what to report beside it. */
export type Computed = Outcome<{ content: string; message: string; extra?: Data }>;

/** The state a model sees for a file that does not exist yet. */
function missingState(path: ResolvedPath): FileState {
  return {
    file_path: path.rel,
    uri: path.uri,
    version: null,
    sha256: EMPTY_SHA256,
    content: "",
    open: false,
  };
}

/**
 * The approval prompt's view of a change: its diff and +/- line counts,
 * computed only if someone looks (a direct command is approved without a prompt).
 */
export function changeSummary(
  tool: string,
  path: string,
  before: string,
  after: string,
): Omit<ProposedChange, "before" | "uri"> {
  let summary: { diff: string; added: number; removed: number } | undefined;
  const summarize = (): { diff: string; added: number; removed: number } => {
    // Cut by the review's anchored line changes: near-linear on a change of thousands of hunks.
    summary ??= unifiedDiff(path, before, after, 3);
    return summary;
  };
  return {
    tool,
    file_path: path,
    after,
    get diff() {
      return summarize().diff;
    },
    get added() {
      return summarize().added;
    },
    get removed() {
      return summarize().removed;
    },
  };
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function withState(error: Failure, state: FileState | undefined): Envelope {
  return failureEnvelope(error, state ? { latest_file_state: state } : undefined);
}

export async function modifyFile(
  ctx: ToolContext,
  request: ModifyRequest,
  compute: (current: FileState, exists: boolean) => Computed | Promise<Computed>,
): Promise<Envelope> {
  const resolved = await ctx.workspace.resolve(request.file_path, "write");
  if (!resolved.ok) return failureEnvelope(resolved.error);
  const path = resolved.value;
  // Wrap mode: the wrapped server's verdict on the new text, waited for once the file's lock is released.
  let diagnosticsAfter: ((signal: AbortSignal) => Promise<DiagnosticsAfter>) | undefined;

  const result = await ctx.workspace.withLock(path, async () => {
    const read = await ctx.workspace.read(path);
    if (!read.ok && (read.error.code !== "not_found" || !request.mayCreate))
      return failureEnvelope(read.error);
    const exists = read.ok;
    const current = read.ok ? read.value : missingState(path);

    if (request.base !== undefined && request.base.toLowerCase() !== current.sha256) {
      const what = exists
        ? `the file is now at sha256 ${current.sha256}${current.version !== null ? ` (editor version ${current.version})` : ""}`
        : "the file does not exist (create it with the sha256 of the empty string)";
      // A base for a file that does not exist is most likely a wrong path: name the near ones.
      const near = exists ? [] : await ctx.workspace.sandbox.suggest(path.rel);
      return errorEnvelope(
        "state_mismatch",
        `State Mismatch: ${request.file_path} has changed since the version you read (base_content_sha256 ${request.base}); ${what}. Nothing was applied.`,
        [
          ...near.map((n) => `Did you mean ${n}?`),
          "Rebuild the change from latest_file_state (attached) and pass its sha256 as base_content_sha256.",
        ],
        { latest_file_state: current },
      );
    }

    const computed = await compute(current, exists);
    if (!computed.ok) return withState(computed.error, current);
    const { content, message, extra } = computed.value;
    const lone = LONE_SURROGATE.exec(content);
    if (lone) {
      // UTF-8 cannot store it: the disk would hold U+FFFD, and the sha256 reported would not be the file's.
      const code = lone[0].charCodeAt(0).toString(16).toUpperCase();
      return errorEnvelope(
        "invalid_argument",
        `Invalid Argument: the new text of ${path.rel} holds a lone UTF-16 surrogate (U+${code}, at character ${lone.index}), which a UTF-8 file cannot store. Nothing was applied.`,
        ["Send the text with that character removed or written as a whole character."],
        { latest_file_state: current },
      );
    }

    if (request.dry_run) {
      // The protocol's success label would claim a write: a dry run says what would happen.
      // Only the detail in brackets is kept: "applied", "Created" or "landed" would say that something was written.
      const detail = /\(([^()]*)\)\.?$/.exec(message)?.[1];
      return okEnvelope({
        message: `Dry run: the change applies cleanly${detail ? ` (${detail})` : ""}; nothing was written.`,
        applied: false,
        latest_file_state: current,
        ...extra,
      });
    }
    const change = changeSummary(request.tool, path.rel, current.content, content);
    // Object.assign keeps the summary's getters lazy (a spread would compute them now).
    const decision = await ctx.approve(
      Object.assign(
        change,
        { uri: path.uri, before: exists ? current : null },
        ctx.jobId !== undefined ? { job_id: ctx.jobId } : {},
      ),
      ctx.signal,
    );
    if (isUndecided(decision))
      return undecidedEnvelope(path.rel, decision.undecided, { latest_file_state: current });
    if (isReviewed(decision)) {
      // Reviewed hunk by hunk: what the user took has landed already.
      const reviewed = decision.reviewed;
      if (reviewed.state)
        diagnosticsAfter = ctx.diagnostics?.watch(path.uri, reviewed.lastBaseVersion ?? null);
      return reviewedEnvelope(ctx, path.rel, message, reviewed, exists ? current : undefined, extra);
    }
    if (decision !== "apply") {
      const { said, next } = rejectionWords(decision);
      return errorEnvelope(
        "rejected",
        `Rejected: the user declined the change to ${path.rel}. Nothing was applied.${said}`,
        [next],
        {
          latest_file_state: current,
        },
      );
    }
    if (ctx.signal.aborted)
      return errorEnvelope("cancelled", "Cancelled: nothing was applied.", [], {
        latest_file_state: current,
      });
    // The user may have typed while deciding: the change was computed on `current`, so it lands only on `current`.
    const now = await ctx.workspace.read(path);
    const nowState = now.ok ? now.value : undefined;
    if ((nowState?.sha256 ?? null) !== (exists ? current.sha256 : null)) {
      return errorEnvelope(
        "state_mismatch",
        `State Mismatch: ${path.rel} changed while the change was waiting for approval; nothing was applied.`,
        ["Rebuild the change from latest_file_state (attached) and pass its sha256 as base_content_sha256."],
        nowState ? { latest_file_state: nowState } : undefined,
      );
    }
    diagnosticsAfter = ctx.diagnostics?.watch(path.uri, exists ? current.version : null);
    const delivered = await ctx.workspace.deliver(path, exists ? current : null, content, ctx.signal);
    if (!delivered.ok) {
      const latest = await ctx.workspace.read(path);
      return withState(delivered.error, latest.ok ? latest.value : current);
    }
    ctx.journal?.record({
      job_id: ctx.jobId ?? null,
      tool: request.tool,
      file_path: path.rel,
      uri: path.uri,
      before: exists ? current.content : null,
      after: content,
    });
    ctx.conversation?.seenSha256?.set(path.rel, delivered.value.state.sha256);
    return okEnvelope({
      message,
      applied: delivered.value.applied,
      latest_file_state: delivered.value.state,
      ...extra,
    });
  });
  if (!result.ok || result.data["applied"] !== true || !diagnosticsAfter) return result;
  return okEnvelope({ ...result.data, diagnostics_after: await diagnosticsAfter(ctx.signal) });
}

/**
 * Nobody decided on the change (the request was withdrawn, or the client could not ask): not the
 * user's "no", so no "do not retry"; the change may be offered again when the user wants it.
 */
export function undecidedEnvelope(rel: string, reason: string, data?: Data): Envelope {
  return errorEnvelope(
    "cancelled",
    `Cancelled: no decision on the change to ${rel} (${reason}). Nothing was applied; the user did not reject it.`,
    ["Tell the user the change was not decided; offer it again if they still want it."],
    data,
  );
}

/** The model's answer for a change the user reviewed hunk by hunk: which parts landed, and the file as it is. */
async function reviewedEnvelope(
  ctx: ToolContext,
  rel: string,
  message: string,
  reviewed: Reviewed,
  before: FileState | undefined,
  extra: Data | undefined,
): Promise<Envelope> {
  const count = (status: string): number => reviewed.hunks.filter((h) => h.status === status).length;
  const applied = count("applied");
  const total = reviewed.hunks.length;
  const latest = reviewed.state ?? (await latestState(ctx, rel)) ?? before;
  const data = { hunks: reviewed.hunks, ...(latest ? { latest_file_state: latest } : {}) };
  const rest = [
    count("rejected") > 0 ? `${count("rejected")} rejected by the user` : "",
    count("conflict") > 0
      ? `${count("conflict")} not applied because the user edited those lines meanwhile`
      : "",
  ]
    .filter((s) => s !== "")
    .join(", ");
  if (ctx.signal.aborted && applied < total)
    return errorEnvelope(
      "cancelled",
      `Cancelled while the change to ${rel} was under review; ${applied} of ${total} hunks had landed.`,
      [],
      data,
    );
  if (applied === total)
    return okEnvelope({
      ...extra,
      message: `${message} The user accepted all ${total} hunk${total === 1 ? "" : "s"}.`,
      applied: true,
      ...data,
    });
  if (applied > 0) {
    return okEnvelope({
      ...extra,
      message: `Partly applied: the user took ${applied} of ${total} hunks of the change to ${rel}; ${rest}. latest_file_state is the file now; see hunks for each part.`,
      applied: true,
      ...data,
    });
  }
  if (count("rejected") > 0) {
    return errorEnvelope(
      "rejected",
      `Rejected: the user declined the change to ${rel} (${rest}). Nothing was applied.`,
      ["Ask the user what they want instead; do not retry the same change."],
      data,
    );
  }
  return errorEnvelope(
    "state_mismatch",
    `State Mismatch: ${rel} changed where the change was meant to go while it was under review (${rest}). Nothing was applied.`,
    ["Rebuild the change from latest_file_state (attached) and pass its sha256 as base_content_sha256."],
    data,
  );
}

async function latestState(ctx: ToolContext, rel: string): Promise<FileState | undefined> {
  const resolved = await ctx.workspace.resolve(rel, "read");
  const read = resolved.ok ? await ctx.workspace.read(resolved.value) : undefined;
  return read?.ok ? read.value : undefined;
}
