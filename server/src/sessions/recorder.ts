// The live server's side of the store: the SessionSink the agent calls and the
// listener the journal calls. A session file is made on the first run (a server
// that never runs the agent leaves nothing on disk), written at the end of each
// turn, and continued after a resume. A first run that never reached the model (no
// turn completed, nothing changed: a refused connection, a bad key) takes its file
// away again, so the list holds no empty session; a file made before any run (the
// ACP door's `begin`) stays. A failing write is reported once and never stops a run.
import type { Message, Usage } from "../agent/model.js";
import type { RunEnd, RunStart, SessionSink } from "../agent/session-sink.js";
import type { JournalEntry, JournalListener } from "../review/journal.js";
import { safeEndpoint, titleOf, type ShownDiff } from "./format.js";
import { changedFilesNote } from "./refresh.js";
import type { StoredSession } from "./session-reader.js";
import type { SessionWriter } from "./session-writer.js";
import type { Found, SessionStore } from "./store.js";

export interface RecorderDeps {
  /** The project's store; undefined while there is none (sessions off, no workspace yet). */
  store: () => SessionStore | undefined;
  /** Provider facts for the header: never a key, header or credentialed URL. */
  provider: () => { provider: string; model: string | null; baseUrl?: string };
  warn: (message: string) => void;
  /** The id the session's file gets when the first run makes it (the ACP door names a session before its first run); a new one when absent. */
  id?: () => string;
}

const now = (): string => new Date().toISOString();

export class SessionRecorder implements SessionSink, JournalListener {
  private writer: SessionWriter | undefined;
  /** Messages of the session's history already in the file. */
  private written = 0;
  /** Set by a resume: the next run first looks at the files the conversation showed. */
  private refresh = false;
  private failed = false;
  /** The run that made the file, until a turn of it completes or it changes a file. */
  private firstRun: string | undefined;

  constructor(private readonly deps: RecorderDeps) {}

  /** The stored session this server writes, for lockstep.session. */
  live(): { id: string; file: string } | null {
    return this.writer ? { id: this.writer.id, file: this.writer.file } : null;
  }

  /**
   * Stores the session now, before any run (the ACP door: a session exists from session/new on,
   * listed and loadable after any exit). Its title is the first prompt's, when one comes.
   */
  begin(): void {
    if (!this.writer) this.open("");
  }

  async runStarted(
    run: RunStart,
    history: readonly Message[],
    read: (file: string) => Promise<unknown>,
  ): Promise<string> {
    if (!this.writer) {
      this.open(run.prompt);
      if (this.writer) this.firstRun = run.job_id;
    }
    this.safely((w) => {
      w.add({ t: "run", job_id: run.job_id, prompt: run.prompt, model: run.model, at: now() });
      w.flush();
    });
    if (!this.refresh) return "";
    this.refresh = false;
    return changedFilesNote(history, read);
  }

  turnEnded(jobId: string, history: readonly Message[], usage: Usage): void {
    this.firstRun = undefined;
    this.safely((w) => {
      this.messages(w, history);
      w.add({ t: "turn", job_id: jobId, usage: { ...usage }, at: now() });
      w.flush();
    });
  }

  runEnded(run: RunEnd): void {
    if (this.firstRun !== undefined && this.firstRun === run.job_id) return this.discard();
    this.safely((w) => {
      // The note that closes a stopped run is part of the history too; `end` commits it.
      this.messages(w, run.history);
      w.add({
        t: "end",
        job_id: run.job_id,
        status: run.status,
        usage: { ...run.usage },
        files_changed: [...run.files_changed],
        at: now(),
      });
      w.flush();
    });
  }

  recorded(entry: JournalEntry): void {
    if (entry.job_id === null) return;
    const jobId = entry.job_id;
    this.firstRun = undefined;
    // Written at once: a change on disk must stay revertable even if the turn never completes.
    this.safely((w) => {
      const before = entry.before === null ? null : w.blob(entry.before);
      const after = w.blob(entry.after);
      w.add({
        t: "journal",
        job_id: jobId,
        tool: entry.tool,
        file_path: entry.file_path,
        uri: entry.uri,
        before,
        after,
        at: now(),
      });
      w.flush();
    });
  }

  /**
   * The diffs a change's call showed the client before its decision, so session/load can show a
   * change that never landed as it was sent. Written with the turn; redacted as every line is.
   */
  shown(jobId: string, callId: string, tool: string, files: ShownDiff[]): void {
    this.safely((w) => w.add({ t: "shown", job_id: jobId, call_id: callId, tool, files }));
  }

  forgot(jobId: string, uri: string): void {
    this.safely((w) => {
      w.add({ t: "forget", job_id: jobId, uri, at: now() });
      w.flush();
    });
  }

  /**
   * Continues a stored session: this server appends to its file from now on. The caller puts the
   * returned history and journal into the live session. A run the server stopped during is closed
   * with a note, so the conversation alternates.
   */
  resume(id: string): Found<StoredSession> {
    const store = this.deps.store();
    if (!store)
      return {
        ok: false,
        message: "Sessions are not kept (the `sessions` setting is false), so none can be resumed.",
      };
    const resolved = store.resolveId(id);
    if (!resolved.ok) return resolved;
    // The live session itself is closed first (its lock is this process's); another is opened
    // first, so a refusal leaves the live one as it was.
    if (resolved.value === this.writer?.id) this.close();
    const opened = store.reopen(resolved.value);
    if (!opened.ok) return opened;
    this.close();
    const { writer, session } = opened.value;
    this.writer = writer;
    this.failed = false;
    const unfinished = session.runs.filter((r) => r.ended === null);
    const last = session.history[session.history.length - 1];
    if (last !== undefined && last.role !== "assistant")
      session.history.push({
        role: "assistant",
        parts: [{ text: "(This request ended: the server stopped during it.)" }],
      });
    this.written = session.history.length;
    this.safely((w) => {
      if (last !== undefined && last.role !== "assistant")
        w.message(session.history[session.history.length - 1]!);
      for (const run of unfinished)
        w.add({
          t: "end",
          job_id: run.job_id,
          status: "interrupted",
          usage: { input_tokens: 0, output_tokens: 0 },
          files_changed: run.files_changed,
          at: now(),
        });
      w.add({ t: "resumed", pid: process.pid, at: now() });
      w.flush();
    });
    this.refresh = true;
    return { ok: true, value: session };
  }

  /** The first run never reached the model: its file goes, and the next run makes a new one. */
  private discard(): void {
    const id = this.writer?.id;
    this.firstRun = undefined;
    this.close();
    if (id === undefined) return;
    try {
      this.deps.store()?.delete(id);
    } catch (error) {
      this.report(error);
    }
  }

  /** The session was cleared: the next run starts a new stored session. */
  reset(): void {
    this.close();
    this.refresh = false;
  }

  close(): void {
    this.firstRun = undefined;
    try {
      this.writer?.close();
    } catch {
      // the file is closed either way; a last flush that failed was reported by safely()
    }
    this.writer = undefined;
    this.written = 0;
  }

  private open(prompt: string): void {
    const store = this.deps.store();
    if (!store) return;
    const facts = this.deps.provider();
    try {
      const writer = store.create(this.deps.id?.());
      writer.add({
        t: "session",
        format: 1,
        id: writer.id,
        root: store.realRoot,
        provider: facts.provider,
        model: facts.model,
        endpoint: safeEndpoint(facts.baseUrl),
        started: now(),
        title: titleOf(prompt),
      });
      writer.flush();
      this.writer = writer;
      this.written = 0;
      this.failed = false;
    } catch (error) {
      this.report(error);
    }
  }

  private messages(w: SessionWriter, history: readonly Message[]): void {
    // A history shorter than what was written was replaced (a new conversation): nothing to add.
    for (let i = this.written; i < history.length; i++) w.message(history[i]!);
    this.written = Math.max(this.written, history.length);
  }

  private safely(write: (w: SessionWriter) => void): void {
    if (!this.writer || this.failed) return;
    try {
      write(this.writer);
    } catch (error) {
      this.report(error);
    }
  }

  private report(error: unknown): void {
    this.failed = true;
    this.deps.warn(
      `lockstep could not write the session store (${error instanceof Error ? error.message : String(error)}); this session is not kept on disk from here on.`,
    );
  }
}
