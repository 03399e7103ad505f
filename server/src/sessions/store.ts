// The session store of one project: a folder under the user's state directory
// (one per project root, named by a hash of its real path and a readable name),
// one JSON Lines file per session. Creates, reopens, lists, loads, deletes and
// prunes; what a file holds is format.ts's and session-reader.ts's business.
import { summarizeFile, summarizeFileSync } from "./summary-read.js";
import type { SummaryResult } from "./summary-fold.js";
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { parseSession, type StoredSession } from "./session-reader.js";
import { liveHolder, removeLock, SessionBusy, SessionWriter } from "./session-writer.js";

export interface SessionSummary {
  id: string;
  title: string;
  started: string;
  updated: string;
  provider: string;
  model: string | null;
  runs: number;
  turns: number;
  files_changed: string[];
  usage: { input_tokens: number; output_tokens: number };
  /** The pid of a live server writing it, else null. */
  live: number | null;
  notes: string[];
}

export interface Skipped {
  file: string;
  reason: string;
}

export type Found<T> = { ok: true; value: T } | { ok: false; message: string };

/** `sessionsDir` (the setting, else LOCKSTEP_SESSIONS_DIR) when set; else `$XDG_STATE_HOME/lockstep`, else `~/.local/state/lockstep`. */
export function stateDirectory(setting?: string, env: NodeJS.ProcessEnv = process.env): string {
  const sessionsDir = setting ?? env["LOCKSTEP_SESSIONS_DIR"];
  if (sessionsDir !== undefined && sessionsDir !== "")
    return path.resolve(sessionsDir.replace(/^~(?=$|\/)/, homedir()));
  const xdg = env["XDG_STATE_HOME"];
  // The XDG spec ignores a relative value.
  const base = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(homedir(), ".local", "state");
  return path.join(base, "lockstep");
}

/** A readable name and a hash of the real path: two checkouts named alike stay apart. */
export function projectFolderName(realRoot: string): string {
  const name =
    path
      .basename(realRoot)
      .replace(/[^A-Za-z0-9._-]/g, "_")
      .slice(0, 40) || "root";
  return `${name}-${createHash("sha256").update(realRoot).digest("hex").slice(0, 16)}`;
}

/** Sortable by time, short enough to type: 20261125-225201-a1b2c3. */
export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}

const ID = /^[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$/;

/** The fewest characters of an id that name a session. */
export const MIN_PREFIX = 4;

export class SessionStore {
  readonly folder: string;

  /** `realRoot`: the project root's real path. `secrets`: values never to be written (API keys). */
  constructor(
    readonly realRoot: string,
    readonly stateDir: string,
    private readonly secrets: () => readonly string[] = () => [],
  ) {
    this.folder = path.join(stateDir, projectFolderName(realRoot));
  }

  fileOf(id: string): string {
    return path.join(this.folder, `${id}.jsonl`);
  }

  /** A new session file for this project (the folders made 0700 on the way). */
  create(id = newSessionId()): SessionWriter {
    mkdirSync(this.folder, { recursive: true, mode: 0o700 });
    // mkdir's mode yields to the umask and leaves an existing folder as it was.
    chmodSync(this.folder, 0o700);
    chmodSync(path.dirname(this.folder), 0o700);
    return SessionWriter.create(id, this.fileOf(id), this.secrets);
  }

  /** A stored session, loaded and open for appending (a resume). Refused while another live server writes it. */
  reopen(idOrPrefix: string): Found<{ writer: SessionWriter; session: StoredSession }> {
    const loaded = this.load(idOrPrefix);
    if (!loaded.ok) return loaded;
    const { header, completeBytes, blobIds } = loaded.value;
    try {
      const writer = SessionWriter.reopen(
        header.id,
        this.fileOf(header.id),
        completeBytes,
        blobIds,
        this.secrets,
      );
      return { ok: true, value: { writer, session: loaded.value } };
    } catch (error) {
      if (error instanceof SessionBusy)
        return {
          ok: false,
          message: `Session ${header.id} is not free here: ${error.message}. Resume or revert it there, or stop that process first.`,
        };
      throw error;
    }
  }

  /** The id a full id or a unique prefix of at least MIN_PREFIX characters names. */
  resolveId(idOrPrefix: string): Found<string> {
    const ids = this.ids();
    if (ids.includes(idOrPrefix)) return { ok: true, value: idOrPrefix };
    // "2" names every session of this millennium: a prefix that short is a slip, not a choice.
    if (idOrPrefix.length < MIN_PREFIX)
      return {
        ok: false,
        message: `'${idOrPrefix}' is too short to name a session: give at least ${MIN_PREFIX} characters of its id ('lockstep sessions' lists them).`,
      };
    const matches = idOrPrefix === "" ? [] : ids.filter((id) => id.startsWith(idOrPrefix));
    if (matches.length === 1) return { ok: true, value: matches[0]! };
    if (matches.length > 1)
      return {
        ok: false,
        message: `'${idOrPrefix}' names ${matches.length} sessions (${matches.slice(0, 3).join(", ")}…); give more of the id.`,
      };
    return {
      ok: false,
      message: `No session '${idOrPrefix}' for ${this.realRoot}. 'lockstep sessions' lists them.`,
    };
  }

  load(idOrPrefix: string): Found<StoredSession> {
    const id = this.resolveId(idOrPrefix);
    if (!id.ok) return id;
    const file = this.fileOf(id.value);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      return {
        ok: false,
        message: `Session ${id.value} cannot be read (${error instanceof Error ? error.message : String(error)}).`,
      };
    }
    const parsed = parseSession(text);
    if (!parsed.ok) return { ok: false, message: `Session file ${file} is skipped: ${parsed.reason}.` };
    return { ok: true, value: parsed.session };
  }

  /** Every readable session, newest activity first, and the files that were skipped with why. */
  list(): { sessions: SessionSummary[]; skipped: Skipped[] } {
    const results = new Map<string, SummaryResult | Error>();
    for (const id of this.ids()) {
      const file = this.fileOf(id);
      try {
        results.set(file, summarizeFileSync(file));
      } catch (error) {
        results.set(file, error instanceof Error ? error : new Error(String(error)));
      }
    }
    return this.summarize(results);
  }

  /**
   * The same list, each file streamed past its blob and message lines with the event loop served
   * between chunks: for a server, whose other requests must not wait behind a large session file.
   */
  async listAsync(): Promise<{ sessions: SessionSummary[]; skipped: Skipped[] }> {
    const results = new Map<string, SummaryResult | Error>();
    for (const id of this.ids()) {
      const file = this.fileOf(id);
      results.set(
        file,
        await summarizeFile(file).catch((error: unknown) =>
          error instanceof Error ? error : new Error(String(error)),
        ),
      );
    }
    return this.summarize(results);
  }

  private summarize(results: Map<string, SummaryResult | Error>): {
    sessions: SessionSummary[];
    skipped: Skipped[];
  } {
    const sessions: SessionSummary[] = [];
    const skipped: Skipped[] = [];
    for (const [file, result] of results) {
      if (result instanceof Error) {
        skipped.push({ file, reason: result.message });
        continue;
      }
      if (!result.ok) {
        skipped.push({ file, reason: result.reason });
        continue;
      }
      const s = result.summary;
      sessions.push({
        id: s.header.id,
        title: s.title,
        started: s.header.started,
        updated: s.updated,
        provider: s.header.provider,
        model: s.header.model,
        runs: s.runs,
        turns: s.turns,
        files_changed: s.files_changed,
        usage: s.usage,
        live: liveHolder(file) ?? null,
        notes: s.notes,
      });
    }
    sessions.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.id < b.id ? 1 : -1));
    return { sessions, skipped };
  }

  /** Deletes a session; refused while a live server writes it. */
  delete(idOrPrefix: string): Found<string> {
    const id = this.resolveId(idOrPrefix);
    if (!id.ok) return id;
    const file = this.fileOf(id.value);
    const holder = liveHolder(file);
    if (holder !== undefined)
      return {
        ok: false,
        message: `Session ${id.value} is live in another lockstep process (pid ${holder}); stop it first.`,
      };
    unlinkSync(file);
    removeLock(file);
    return { ok: true, value: id.value };
  }

  /** Deletes the sessions whose last change is older than `days` days (live ones are kept). */
  prune(days: number, now = Date.now()): string[] {
    const cutoff = now - days * 24 * 60 * 60 * 1000;
    const removed: string[] = [];
    for (const id of this.ids()) {
      const file = this.fileOf(id);
      if (statSync(file).mtimeMs >= cutoff || liveHolder(file) !== undefined) continue;
      unlinkSync(file);
      removeLock(file);
      removed.push(id);
    }
    return removed;
  }

  private ids(): string[] {
    let names: string[];
    try {
      names = readdirSync(this.folder);
    } catch {
      return [];
    }
    return names
      .filter((n) => n.endsWith(".jsonl"))
      .map((n) => n.slice(0, -".jsonl".length))
      .filter((id) => ID.test(id))
      .sort()
      .reverse();
  }
}
