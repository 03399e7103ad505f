// lockstep.review, lockstep.decide and lockstep.revert: the review desk and the
// journal behind the editor's commands and code actions.
import * as z from "zod";
import { revertJob } from "../../review/revert.js";
import { errorEnvelope, failureEnvelope, okEnvelope, type Envelope } from "../../tools/envelope.js";
import type { ServerContext } from "../server-context.js";

const reviewArgs = z
  .object({ file_path: z.string().min(1).optional(), show: z.boolean().optional() })
  .strict();
const decideArgs = z.union([
  z.object({ id: z.string().min(1), decision: z.enum(["apply", "always", "reject"]) }).strict(),
  z.object({ file_path: z.string().min(1), decision: z.enum(["apply", "reject"]) }).strict(),
]);
const revertArgs = z
  .object({ job_id: z.string().min(1).optional(), session_id: z.string().min(1).optional() })
  .strict();

/** Reverts a run of a stored session this server does not hold. */
type StoredRevert = (
  sessionId: string | undefined,
  jobId: string | undefined,
  signal: AbortSignal,
) => Promise<Envelope>;

export type ReviewCommand = "review" | "decide" | "revert";

export function reviewCommands(ctx: ServerContext, revertStored: StoredRevert) {
  /** A file argument as the desk knows it: its real-path URI. */
  const uriOf = async (filePath: string): Promise<{ uri: string; rel: string } | Envelope> => {
    const resolved = await ctx.state.workspace!.resolve(filePath, "read");
    return resolved.ok
      ? { uri: resolved.value.uri, rel: resolved.value.rel }
      : failureEnvelope(resolved.error);
  };
  const isEnvelope = (v: unknown): v is Envelope => typeof v === "object" && v !== null && "ok" in v;

  return async (command: ReviewCommand, args: unknown, signal: AbortSignal): Promise<Envelope> => {
    switch (command) {
      case "review": {
        const parsed = reviewArgs.safeParse(args);
        if (!parsed.success)
          return errorEnvelope(
            "invalid_argument",
            "Invalid Argument: lockstep.review takes {file_path?, show?}.",
            ["Call it with {} for every pending change."],
          );
        const file = parsed.data.file_path === undefined ? undefined : await uriOf(parsed.data.file_path);
        if (isEnvelope(file)) return file;
        if (parsed.data.show && file) await ctx.reviewView.show(file.uri, file.rel);
        return okEnvelope({ pending: await ctx.review.pending(file?.uri) });
      }
      case "decide": {
        const parsed = decideArgs.safeParse(args);
        if (!parsed.success) {
          return errorEnvelope(
            "invalid_argument",
            "Invalid Argument: lockstep.decide needs {id, decision: apply | always | reject} (id: a change or a hunk) or {file_path, decision: apply | reject}.",
            ["Take the id from the code action or from lockstep.review."],
          );
        }
        const { decision } = parsed.data;
        let ids: string[];
        if ("id" in parsed.data) {
          // A command waiting as code actions (pending-commands.ts) is decided here too.
          const command = ctx.pendingCommands.decide(parsed.data.id, decision);
          if (command !== undefined) return command;
          ids = [parsed.data.id];
        } else {
          const file = await uriOf(parsed.data.file_path);
          if (isEnvelope(file)) return file;
          ids = ctx.review.changesIn(file.uri);
          if (ids.length === 0)
            return errorEnvelope(
              "not_found",
              `Not Found: no change to ${parsed.data.file_path} waits for review.`,
              ["lockstep.review lists what still waits for a decision."],
            );
        }
        const hunks = [];
        for (const id of ids) {
          const decided = await ctx.review.decide(id, decision, signal);
          if (!decided.ok) return failureEnvelope(decided.error);
          hunks.push(...decided.value);
        }
        return okEnvelope({ decision, hunks });
      }
      case "revert": {
        const parsed = revertArgs.safeParse(args);
        if (!parsed.success)
          return errorEnvelope(
            "invalid_argument",
            "Invalid Argument: lockstep.revert takes {job_id?, session_id?}; without them, the last job is reverted.",
            [],
          );
        const live = ctx.recorder.live()?.id;
        if (
          parsed.data.session_id !== undefined &&
          !(live !== undefined && live.startsWith(parsed.data.session_id))
        )
          return revertStored(parsed.data.session_id, parsed.data.job_id, signal);
        const jobId = parsed.data.job_id ?? ctx.journal.lastJob();
        if (jobId === undefined)
          return errorEnvelope(
            "not_found",
            "Not Found: no job has changed a file in this session; nothing to revert.",
            [
              "A run of a stored session: lockstep.revert {session_id, job_id?} (lockstep.sessions lists them).",
            ],
          );
        // A job this process never ran nor resumed: one of a stored session.
        if (parsed.data.job_id !== undefined && ctx.journal.byFile(jobId).size === 0)
          return revertStored(undefined, jobId, signal);
        const files = await revertJob(
          ctx.state.workspace!,
          ctx.journal,
          jobId,
          (uri) => ctx.review.uris().includes(uri),
          signal,
        );
        if (files.length === 0)
          return errorEnvelope(
            "not_found",
            `Not Found: job ${jobId} changed no file that is still to revert.`,
            ["lockstep.job {job_id} says what the job did."],
          );
        return okEnvelope({ job_id: jobId, files });
      }
    }
  };
}
