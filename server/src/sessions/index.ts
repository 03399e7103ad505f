// sessions/: the store. Knows nothing of protocols or models.
// The session store: conversations that outlive the process. Not the history
// (agent/) and not the journal (review/): it keeps both, on disk, behind the
// interfaces they call (agent/session-sink.ts's SessionSink, review/journal.ts's
// JournalListener). The store never holds a secret: no API key, header or
// endpoint credential is written, and the values of the key variables are
// redacted from every line before it is written.
//
// Where: `<state>/<project>/<session id>.jsonl`; <state> is the `sessionsDir` setting, else
// `$XDG_STATE_HOME/lockstep`, else `~/.local/state/lockstep` (stateDirectory); <project> is the
// root's readable name and a hash of its real path (projectFolderName). Folders 0700, files 0600.
// A live writer holds `<id>.lock` (its pid and a token); a lock whose process is gone is taken over by
// one taker (session-lock.ts).
//
// Format 1 (format.ts), one JSON record per line, append-only:
//   {t:"session", format, id, root, provider, model, endpoint, started, title}   first line
//   {t:"run", job_id, prompt, model, at}                a run begins
//   {t:"blob", id, content}                             a text, once per file (id = its sha256)
//   {t:"msg", m}                                        a history message; file contents as {"$content": blob id}
//   {t:"turn", job_id, usage, at}                       the messages before it form complete turns
//   {t:"journal", job_id, tool, file_path, uri, before, after, at}   before/after: blob ids
//   {t:"forget", job_id, uri, at}                       those entries were reverted
//   {t:"end", job_id, status, usage, files_changed, at} a run ended (commits its closing note)
//   {t:"resumed", pid, at}
// Reading (session-reader.ts): a torn last line is skipped with a note; messages after the last
// turn/end record are dropped (an unfinished turn); a newer format or a broken line refuses the
// file with its reason, and list() names it in `skipped`.
//
// API:
//   const store = new SessionStore(realRoot, stateDirectory(settings.sessionsDir), () => secrets)
//   store.create(): SessionWriter                       a new file; add(record), message(m), blob(text), flush(), close()
//   store.reopen(id): Found<{writer, session}>          continue a session (refused while another live server holds it)
//   store.list(): {sessions: SessionSummary[] (newest first: id, title, started, updated, runs,
//                  turns, files_changed, usage, provider, model, live), skipped: {file, reason}[]}
//   store.load(id): Found<StoredSession>                {header, history, journal, runs, turns, usage, updated, notes}
//   store.delete(id), store.prune(days): ids removed; store.resolveId(id or unique prefix)
//   new SessionRecorder({store, provider, warn})        the live server's SessionSink + JournalListener:
//       runStarted/turnEnded/runEnded (from agent/run.ts), recorded/forgot (from the journal),
//       resume(id) → Found<StoredSession>, then loadIntoConversation(stored, conversation, journal);
//       live() → {id, file} | null; reset(); close()
//   findRun(store, runId?, sessionId?), revertStoredRun(store, workspace, sessionId, jobId, underReview, signal)
//   keySecrets(apiKeyEnv?, env?): the values to redact (the key variables' values)
export { FORMAT, safeEndpoint, titleOf, type SessionHeader, type SessionRecord } from "./format.js";
export { SessionRecorder, type RecorderDeps } from "./recorder.js";
export { changedFilesNote, lastShownStates } from "./refresh.js";
export { loadIntoConversation } from "./resume.js";
export { keySecrets } from "./secrets.js";
export { parseSession, type StoredRun, type StoredSession } from "./session-reader.js";
export { SessionWriter } from "./session-writer.js";
export { storesUnder } from "./all-projects.js";
export {
  newSessionId,
  projectFolderName,
  SessionStore,
  stateDirectory,
  type Found,
  type SessionSummary,
  type Skipped,
} from "./store.js";
export { findRun, revertStoredRun, type RunFound } from "./stored-run.js";
