// A run found in the store and reverted from it: by content, through the same
// revertJob as lockstep.revert (what was typed since is kept, a conflicting part
// is shown and the file left). The reverted entries are forgotten in the session
// file, so a second revert finds nothing there.
import { Journal } from "../review/journal.js";
import { revertJob, type RevertedFile } from "../review/revert.js";
import type { Workspace } from "../workspace/workspace.js";
import type { StoredRun, StoredSession } from "./session-reader.js";
import { MIN_PREFIX, type Found, type SessionStore } from "./store.js";

export interface RunFound {
  session: StoredSession;
  run: StoredRun;
}

/**
 * The run `runId` names (a job id or a unique prefix, in any session of the project), or without
 * one the latest run with changes still to revert. `sessionId` narrows the search to one session.
 */
export function findRun(store: SessionStore, runId?: string, sessionId?: string): Found<RunFound> {
  const sessions: StoredSession[] = [];
  if (sessionId !== undefined) {
    const loaded = store.load(sessionId);
    if (!loaded.ok) return loaded;
    sessions.push(loaded.value);
  } else {
    for (const summary of store.list().sessions) {
      const loaded = store.load(summary.id);
      if (loaded.ok) sessions.push(loaded.value);
    }
  }
  const candidates: RunFound[] = sessions.flatMap((session) => session.runs.map((run) => ({ session, run })));
  if (runId !== undefined) {
    if (runId.length < MIN_PREFIX)
      return {
        ok: false,
        message: `'${runId}' is too short to name a run: give at least ${MIN_PREFIX} characters of its job id ('lockstep sessions --json' lists them).`,
      };
    const matches = candidates.filter(({ run }) => run.job_id === runId || run.job_id.startsWith(runId));
    const exact = matches.filter(({ run }) => run.job_id === runId);
    if (exact.length === 1 || matches.length === 1) return { ok: true, value: (exact[0] ?? matches[0])! };
    if (matches.length > 1)
      return { ok: false, message: `'${runId}' names ${matches.length} runs; give more of the id.` };
    return {
      ok: false,
      message: `No stored run '${runId}' for this project. 'lockstep sessions --json' lists the sessions and their runs.`,
    };
  }
  const withChanges = candidates.filter(({ session, run }) =>
    session.journal.some((e) => e.job_id === run.job_id),
  );
  withChanges.sort((a, b) => (a.run.started < b.run.started ? 1 : -1));
  const latest = withChanges[0];
  if (!latest) return { ok: false, message: "No stored run of this project has changes left to revert." };
  return { ok: true, value: latest };
}

/** Reverts a stored run of a session no live server holds; refused while one does. */
export async function revertStoredRun(
  store: SessionStore,
  workspace: Workspace,
  sessionId: string,
  jobId: string,
  underReview: (uri: string) => boolean,
  signal: AbortSignal,
): Promise<Found<RevertedFile[]>> {
  const opened = store.reopen(sessionId);
  if (!opened.ok) return opened;
  const { writer, session } = opened.value;
  try {
    const journal = new Journal();
    journal.load(session.journal);
    journal.listen({
      recorded: () => undefined,
      forgot: (job, uri) => {
        writer.add({ t: "forget", job_id: job, uri, at: new Date().toISOString() });
        writer.flush();
      },
    });
    return { ok: true, value: await revertJob(workspace, journal, jobId, underReview, signal) };
  } finally {
    writer.close();
  }
}
