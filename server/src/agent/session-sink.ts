// Where a run's conversation goes as it happens, besides memory: the narrow
// interface the session store (sessions/) implements. agent/ knows nothing of
// files or formats; it says when a run starts, when a turn is complete and when
// the run ends, and hands over the history as the turn loop holds it.
import type { Message, Usage } from "./model.js";

export interface RunStart {
  job_id: string;
  prompt: string;
  /** The model's name as the provider knows it. */
  model: string;
}

export interface RunEnd {
  job_id: string;
  status: string;
  usage: Usage;
  files_changed: string[];
  /** The session's whole history after the run (what the next run continues from). */
  history: readonly Message[];
}

export interface SessionSink {
  /**
   * A run begins. Resolves to text to put before the user's prompt: after a resume, the files
   * the stored conversation showed the model that changed since, with their current states.
   * `read` is the run's own read_file (sandboxed, the editor's buffers first).
   */
  runStarted(
    run: RunStart,
    history: readonly Message[],
    read: (file: string) => Promise<unknown>,
  ): Promise<string>;
  /** A turn is complete (the model's message and every answer to its calls): its messages are kept. */
  turnEnded(jobId: string, history: readonly Message[], usage: Usage): void;
  runEnded(run: RunEnd): void;
}
