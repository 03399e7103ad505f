// lockstep.sessions, lockstep.resume and the stored half of lockstep.revert: the
// session store behind the editor's commands.
import * as z from "zod";
import { findRun, loadIntoConversation, revertStoredRun } from "../../sessions/index.js";
import { errorEnvelope, okEnvelope, type Envelope } from "../../tools/envelope.js";
import type { ServerContext } from "../server-context.js";

const sessionsArgs = z.object({ limit: z.number().int().positive().optional() }).strict();
const resumeArgs = z.object({ session_id: z.string().min(1) }).strict();

const NO_STORE = "Sessions are not kept: the `sessions` setting is false (or the server is not initialized).";

export function sessionCommands(ctx: ServerContext) {
  return {
    async list(args: unknown): Promise<Envelope> {
      const parsed = sessionsArgs.safeParse(args);
      if (!parsed.success)
        return errorEnvelope("invalid_argument", "Invalid Argument: lockstep.sessions takes {limit?}.", [
          "Call it with {}.",
        ]);
      const store = ctx.sessions();
      if (!store) return errorEnvelope("not_found", NO_STORE, ["Set `sessions` to true to keep them."]);
      const { sessions, skipped } = await store.listAsync();
      return okEnvelope({
        live: ctx.recorder.live()?.id ?? null,
        sessions: sessions.slice(0, parsed.data.limit),
        skipped,
      });
    },

    resume(args: unknown): Envelope {
      const parsed = resumeArgs.safeParse(args);
      if (!parsed.success)
        return errorEnvelope("invalid_argument", "Invalid Argument: lockstep.resume needs {session_id}.", [
          "lockstep.sessions lists the ids.",
        ]);
      if (ctx.agent.running())
        return errorEnvelope(
          "invalid_argument",
          "A run is going on in this session; resume once it ends (or lockstep.cancel it).",
          [],
        );
      // Nothing else is touched: changes other agents (the companion) staged for review stay.
      const resumed = ctx.recorder.resume(parsed.data.session_id);
      if (!resumed.ok)
        return errorEnvelope("not_found", resumed.message, [
          "lockstep.sessions lists the sessions of this project.",
        ]);
      const stored = resumed.value;
      loadIntoConversation(stored, ctx.conversation, ctx.journal);
      return okEnvelope({
        session_id: stored.header.id,
        title: stored.header.title,
        turns: stored.turns,
        history_messages: stored.history.length,
        runs: stored.runs.map((r) => ({
          job_id: r.job_id,
          prompt: r.prompt,
          status: r.status,
          files_changed: r.files_changed,
        })),
        notes: stored.notes,
        message: `Resumed ${stored.header.id} (${stored.header.title}): ${stored.turns} turns. The next request continues it; files that changed since are shown to the model as they are now.`,
      });
    },

    /** lockstep.revert {session_id, job_id?} for a session this server does not hold. */
    async revertStored(
      sessionId: string | undefined,
      jobId: string | undefined,
      signal: AbortSignal,
    ): Promise<Envelope> {
      const store = ctx.sessions();
      if (!store) return errorEnvelope("not_found", NO_STORE, []);
      const found = findRun(store, jobId, sessionId);
      if (!found.ok)
        return errorEnvelope("not_found", found.message, [
          "lockstep.sessions lists the sessions and lockstep.resume shows their runs.",
        ]);
      const { session, run } = found.value;
      if (session.header.id === ctx.recorder.live()?.id)
        return errorEnvelope("not_found", `Not Found: run ${run.job_id} has no change left to revert.`, []);
      const files = await revertStoredRun(
        store,
        ctx.state.workspace!,
        session.header.id,
        run.job_id,
        (uri) => ctx.review.uris().includes(uri),
        signal,
      );
      if (!files.ok) return errorEnvelope("invalid_argument", files.message, []);
      if (files.value.length === 0)
        return errorEnvelope(
          "not_found",
          `Not Found: run ${run.job_id} of session ${session.header.id} has no change left to revert.`,
          [],
        );
      return okEnvelope({ session_id: session.header.id, job_id: run.job_id, files: files.value });
    },
  };
}
