// Every change lockstep applied in this process, in order: by the agent, by a
// command or a code action, by an accepted hunk. A job's entries are what
// `lockstep.revert` undoes. Held in memory; a listener (the session store) keeps
// it on disk, and a resumed session loads it back.

export interface JournalEntry {
  /** The agent job the change belongs to; null for a command or code action the user ran. */
  job_id: string | null;
  tool: string;
  file_path: string;
  /** `file://` URI (real path). */
  uri: string;
  /** The text the change was applied to; null when it created the file. */
  before: string | null;
  after: string;
}

/** Entries kept at most: a long session's oldest changes can no longer be reverted. */
const MAX_ENTRIES = 2000;

/** Told of every change as it is journaled and of every revert that forgets one. */
export interface JournalListener {
  recorded(entry: JournalEntry): void;
  forgot(jobId: string, uri: string): void;
}

export class Journal {
  private readonly entries: JournalEntry[] = [];
  private listener: JournalListener | undefined;

  listen(listener: JournalListener): void {
    this.listener = listener;
  }

  /** Entries from a stored session, put back without telling the listener (they are stored already). */
  load(entries: readonly JournalEntry[]): void {
    this.entries.splice(0, this.entries.length, ...entries.slice(-MAX_ENTRIES));
  }

  record(entry: JournalEntry): void {
    this.listener?.recorded(entry);
    this.entries.push(entry);
    if (this.entries.length > MAX_ENTRIES) this.entries.splice(0, this.entries.length - MAX_ENTRIES);
  }

  /** The most recent job that changed something. */
  lastJob(): string | undefined {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const id = this.entries[i]!.job_id;
      if (id !== null) return id;
    }
    return undefined;
  }

  /** A job's changes, grouped by file, each file's in the order they were applied. */
  byFile(jobId: string): Map<string, JournalEntry[]> {
    const files = new Map<string, JournalEntry[]>();
    for (const e of this.entries) {
      if (e.job_id !== jobId) continue;
      const list = files.get(e.uri) ?? [];
      list.push(e);
      files.set(e.uri, list);
    }
    return files;
  }

  /** Forgets a job's entries for a file once they are reverted: a second revert finds nothing to undo there. */
  forget(jobId: string, uri: string): void {
    this.listener?.forgot(jobId, uri);
    for (let i = this.entries.length - 1; i >= 0; i--)
      if (this.entries[i]!.job_id === jobId && this.entries[i]!.uri === uri) this.entries.splice(i, 1);
  }
}
