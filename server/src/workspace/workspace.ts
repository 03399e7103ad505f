// workspace/: the sandbox, the ledger, the disk, the walk. Knows nothing of protocols or tools.
// The ledger of file states and the way a change reaches a file. Open editor
// buffers win over disk; a change goes to the editor as an edit it can apply,
// undo and refuse, or to disk atomically when there is no editor to take it.
import { fail, succeed, type Outcome } from "../shared/outcome.js";
import { sha256 } from "../edit/shared/text.js";
import { computeTextEdits } from "../edit/text-edits.js";
import { listDirectory, readTextFile, writeTextFileAtomic, type DirectoryEntry } from "./disk.js";
import type { FileState } from "./file-state.js";
import type { EditorLink } from "./editor-link.js";
import {
  fileNotFound,
  notTheBase,
  replyFailure,
  unconfirmedClosedClaim,
  unreportedEdit,
} from "./edit-replies.js";
import { delay, PendingEdits, type Pending } from "./pending-edits.js";
import { removeFile } from "./remove-file.js";
import { readSmallTextFiles } from "./small-files.js";
import type { Access, ResolvedPath, Sandbox } from "./sandbox.js";

export type ClosedFileEdits = "editor" | "disk";

/**
 * A second edit to a buffer whose first edit the editor has not reported waits
 * this long for the report (Neovim debounces 150 ms, eglot idles 500 ms), then
 * is refused: nothing is sent on a state nobody confirmed. Only that case waits;
 * a command never waits for its own didChange.
 */
export const DEFAULT_PENDING_WAIT_MS = 1000;

/** How many files' last hash the workspace remembers. */
const HASH_MEMORY = 256;

export interface WorkspaceOptions {
  editor?: EditorLink;
  /** Where changes to files that are not open go, when an editor can take them. */
  closedFileEdits?: ClosedFileEdits;
  /** How long a second edit waits for the editor to report the first (ms). */
  pendingWaitMs?: number;
}

export interface Delivered {
  state: FileState;
  /** The editor or the disk took the change (the editor's word is a hint; the hash decides later). */
  applied: boolean;
  via: "editor" | "disk";
}

export class Workspace {
  private readonly pending: PendingEdits;
  /** The last text hashed per file: a buffer read again at the same version is not hashed again. */
  private readonly hashes = new Map<string, { content: string; sha256: string }>();
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(
    readonly sandbox: Sandbox,
    private readonly options: WorkspaceOptions = {},
  ) {
    this.pending = new PendingEdits(options.pendingWaitMs ?? DEFAULT_PENDING_WAIT_MS);
  }

  resolve(userPath: string, access: Access): Promise<Outcome<ResolvedPath>> {
    return this.sandbox.resolve(userPath, access);
  }

  /** Whether the path as given ends in a symbolic link (Sandbox.endsInLink). */
  endsInLink(userPath: string): Promise<boolean> {
    return this.sandbox.endsInLink(userPath);
  }

  /** The file as the user sees it: open buffer, else text we delivered, else disk. */
  async read(path: ResolvedPath): Promise<Outcome<FileState>> {
    await this.options.editor?.refresh?.(path.uri);
    const state = (content: string, version: number | null, open: boolean): FileState =>
      this.stateOf(path, content, version, open);
    const doc = this.options.editor?.document(path.uri);
    const pending = this.pending.get(path.uri);
    if (doc) {
      if (pending && pending.baseVersion === doc.version && !this.pending.expired(pending))
        return succeed({ ...state(pending.text, null, true), unconfirmed: true });
      this.pending.settle(path.uri);
      return succeed(state(doc.text, doc.version, true));
    }
    if (pending && pending.baseVersion === null) {
      // A file that is not open: the disk confirms (it holds the edit once saved), or a change made
      // outside the editor wins. Until then the claim is served, marked, and after its expiry the disk is.
      const disk = path.exists ? await readTextFile(path.abs) : undefined;
      const onDisk = disk?.ok ? disk.value.content : "";
      if (onDisk === pending.base) {
        if (!this.pending.expired(pending))
          return succeed({ ...state(pending.text, null, false), unconfirmed: true });
      } else this.pending.settle(path.uri);
      if (disk?.ok) return succeed(state(onDisk, null, false));
    }
    if (!path.exists) {
      const suggestions = await this.sandbox.suggest(path.rel);
      return fileNotFound(path.rel, suggestions);
    }
    const disk = await readTextFile(path.abs);
    if (!disk.ok) return disk;
    return succeed(state(disk.value.content, null, false));
  }

  /**
   * Whether a read of this (real-path) file URI would not come from disk alone: an open
   * buffer, or an edit the editor has not reported. A search reads those through `read`.
   */
  heldInMemory(uri: string): boolean {
    return this.options.editor?.document(uri) !== undefined || this.pending.has(uri);
  }

  /** Every URI `heldInMemory` answers yes for (among others, maybe), or undefined when the editor cannot list its buffers. */
  heldUris(): string[] | undefined {
    const editor = this.options.editor;
    if (editor && !editor.documentUris) return undefined;
    return [...(editor?.documentUris?.() ?? []), ...this.pending.uris()];
  }

  /**
   * The file a path names when one is there: on disk, open in the editor, or written by us and
   * not yet confirmed. A path that merely resolves inside a root (a name nothing has) is not.
   */
  async existingFile(userPath: string): Promise<ResolvedPath | undefined> {
    const resolved = await this.sandbox.resolve(userPath, "read");
    if (!resolved.ok) return undefined;
    return resolved.value.exists || this.heldInMemory(resolved.value.uri) ? resolved.value : undefined;
  }

  /**
   * Of these files, those whose text in the editor (its buffer, or an edit it has not reported)
   * is not what the disk holds: a command run now would not see it.
   */
  async unsaved(paths: readonly ResolvedPath[]): Promise<ResolvedPath[]> {
    const out: ResolvedPath[] = [];
    for (const p of paths) {
      // As `read` sees it: an edit delivered but not yet reported by a didChange is the
      // buffer's text already (the editor answered applyEdit before telling its change).
      const doc = this.options.editor?.document(p.uri);
      const pending = this.pending.get(p.uri);
      const claimed =
        pending &&
        (doc === undefined || pending.baseVersion === doc.version) &&
        !this.pending.expired(pending);
      const held = claimed ? pending.text : doc?.text;
      if (held === undefined) continue;
      const disk = await readTextFile(p.abs);
      if (!disk.ok || disk.value.content !== held) out.push(p);
    }
    return out;
  }

  /**
   * Asks the editor to save these files where it can: false when it cannot be asked, else why it
   * could not save some, by root-relative path, where it said.
   */
  async save(paths: readonly ResolvedPath[], signal: AbortSignal): Promise<false | Map<string, string>> {
    const editor = this.options.editor;
    if (editor?.saveFiles === undefined || paths.length === 0) return false;
    const failed = await editor.saveFiles(
      paths.map((p) => p.uri),
      signal,
    );
    return new Map(paths.flatMap((p) => (failed.has(p.uri) ? [[p.rel, failed.get(p.uri)!]] : [])));
  }

  /** Many files as `read` would give each, small files on disk read in one quick pass (see `readSmallTextFiles`). */
  async readMany(paths: readonly ResolvedPath[], signal: AbortSignal): Promise<Outcome<FileState>[]> {
    // An editor that is asked for each file's text is asked for every one of them.
    const asked = this.options.editor?.refresh !== undefined;
    const quick = paths.map((p) => p.exists && !asked && !this.heldInMemory(p.uri));
    const texts = await readSmallTextFiles(
      paths.filter((_, i) => quick[i]).map((p) => p.abs),
      signal,
    );
    let next = 0;
    return Promise.all(
      paths.map(async (p, i) => {
        const text = quick[i] ? texts[next++] : undefined;
        return text === undefined ? this.read(p) : succeed(this.stateOf(p, text, null, false));
      }),
    );
  }

  async list(path: ResolvedPath): Promise<Outcome<DirectoryEntry[]>> {
    return listDirectory(path.abs);
  }

  /** Runs `fn` alone for this file: edits to one file are serialized, different files run concurrently. */
  async withLock<T>(path: ResolvedPath, fn: () => Promise<T>): Promise<T> {
    const key = path.abs;
    const prior = this.locks.get(key) ?? Promise.resolve();
    const run = prior.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.locks.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    }
  }

  /** The editor reported a change, an open or a close: its buffer is the truth again. */
  documentChanged(uri: string): void {
    this.pending.settle(uri);
  }

  /**
   * Delivers `after` as the file's new text. `before` is the state the change
   * was computed from (`null` to create the file). Never waits for the editor's
   * didChange (eglot cannot send one while it waits on us); until it comes, a
   * read returns the text delivered here with version `null`.
   */
  async deliver(
    path: ResolvedPath,
    before: FileState | null,
    after: string,
    signal: AbortSignal,
  ): Promise<Outcome<Delivered>> {
    const editor = this.options.editor;
    const doc = editor?.document(path.uri);
    if (this.deliversToDisk(path, before === null) || !editor) return this.writeDisk(path, before, after);

    // The edits are offsets into `before`: the editor must apply them to exactly that version.
    let version = before?.open && before.version !== null ? before.version : null;
    const earlier = this.pending.get(path.uri);
    if (earlier && !doc && earlier.baseVersion === null) {
      // The editor claimed an edit to this file while it was not open. Whatever this change was built
      // on, an unversioned edit would land on what the editor holds, which nobody confirmed.
      const confirmed = await this.confirmClosedClaim(path, earlier, before, signal);
      if (!confirmed.ok) return confirmed;
      version = confirmed.value;
    }
    if (earlier && doc && before?.version === null) {
      // `before` is text we delivered that the editor has not reported yet; give it a moment.
      await Promise.race([
        earlier.settled,
        delay(this.options.pendingWaitMs ?? DEFAULT_PENDING_WAIT_MS, signal),
      ]);
      const now = editor.document(path.uri);
      if (this.pending.has(path.uri)) {
        // Nobody confirmed the previous edit: an edit computed on it would land at the wrong lines
        // if the editor never applied it. Not sent; the claim is dropped, so a read shows the editor's report.
        this.pending.settle(path.uri);
        return unreportedEdit(path.rel, this.options.pendingWaitMs ?? DEFAULT_PENDING_WAIT_MS);
      }
      if (now) {
        if (now.text !== before.content) {
          return fail(
            "state_mismatch",
            "State Mismatch: the editor's buffer is not the text the change was built on (the previous edit did not land as sent). Nothing was applied.",
            ["Retry from the latest file state attached here."],
          );
        }
        version = now.version;
      }
    }
    if (signal.aborted)
      return fail("cancelled", "Cancelled before the edit was sent; the file is unchanged.");
    const base = before?.content ?? "";
    const reply = await editor.applyEdit(
      { uri: path.uri, version, edits: computeTextEdits(base, after), before: base, create: before === null },
      signal,
    );
    const refused = replyFailure(reply, path.rel);
    if (refused) return refused;
    this.pending.settle(path.uri);
    // The editor may have opened the file while applying (eglot loads a closed file and sends didOpen
    // with the disk text); what it reports now is the base the pending text is read against.
    const reported = editor.document(path.uri);
    if (reported?.text !== after) {
      this.pending.claim(path.uri, { text: after, base, baseVersion: reported?.version ?? null });
    }
    const delivered = this.stateOf(path, after, null, doc !== undefined);
    return succeed({
      state: reported?.text === after ? delivered : { ...delivered, unconfirmed: true },
      applied: true,
      via: "editor",
    });
  }

  /** Whether a change to this file goes to disk rather than to the editor (no editor takes it). */
  deliversToDisk(path: ResolvedPath, creating: boolean): boolean {
    const editor = this.options.editor;
    if (!editor?.canApplyEdit) return true;
    const open = editor.document(path.uri) !== undefined;
    return !(
      (open || (this.options.closedFileEdits ?? "editor") === "editor") &&
      (!creating || editor.createFiles)
    );
  }

  /**
   * Removes a file that holds exactly `expected` (a revert of a file lockstep created): through the
   * editor where the file is its business and it can delete files, else on disk. Never anything else.
   */
  async remove(path: ResolvedPath, expected: string, signal: AbortSignal): Promise<Outcome<void>> {
    const removed = await removeFile(this.options, path, expected, signal);
    if (removed.ok) this.pending.settle(path.uri);
    return removed;
  }

  /**
   * Waits (bounded) for the editor to confirm its claimed edit to a file that was not open: a
   * didOpen (the buffer's version is then the one to send against) or the disk showing the edit.
   * Otherwise refused, and the claim is kept: the editor may hold that edit unsaved, so no edit
   * goes there unversioned until the file is opened or saved.
   */
  private async confirmClosedClaim(
    path: ResolvedPath,
    claim: Pending,
    before: FileState | null,
    signal: AbortSignal,
  ): Promise<Outcome<number | null>> {
    const waitMs = this.options.pendingWaitMs ?? DEFAULT_PENDING_WAIT_MS;
    if ((await this.diskText(path)) === claim.base)
      await Promise.race([claim.settled, delay(waitMs, signal)]);
    const now = this.options.editor?.document(path.uri);
    const disk = now ? undefined : await this.diskText(path);
    if (!now && disk === claim.base) {
      return unconfirmedClosedClaim(path.rel, waitMs);
    }
    this.pending.settle(path.uri);
    const held = now ? now.text : disk;
    if (held !== (before?.content ?? "")) {
      return notTheBase(path.rel);
    }
    return succeed(now ? now.version : null);
  }

  /** The file's text on disk; "" when it does not exist or cannot be read. */
  private async diskText(path: ResolvedPath): Promise<string> {
    const disk = await readTextFile(path.abs);
    return disk.ok ? disk.value.content : "";
  }

  /** Written while the disk still holds `before` (checked under a lock other lockstep processes honour). */
  private async writeDisk(
    path: ResolvedPath,
    before: FileState | null,
    after: string,
  ): Promise<Outcome<Delivered>> {
    // A buffer's unsaved text is not what the disk holds: only a state read from disk is a disk base.
    // Text we delivered to the editor and it never reported stands on the disk text it was built on.
    const pending = this.pending.get(path.uri);
    const base =
      before === null
        ? null
        : before.open
          ? undefined
          : pending && before.content === pending.text
            ? pending.base
            : before.content;
    // `path.abs` is the real path the sandbox checked: the write is pinned to its directory.
    const written = await writeTextFileAtomic(
      path.abs,
      after,
      base === undefined ? { pinned: true } : { base, pinned: true },
    );
    if (!written.ok) return written;
    this.pending.settle(path.uri);
    return succeed({ state: this.stateOf(path, after, null, false), applied: true, via: "disk" });
  }

  private stateOf(path: ResolvedPath, content: string, version: number | null, open: boolean): FileState {
    return {
      file_path: path.rel,
      uri: path.uri,
      version,
      sha256: this.hashOf(path.uri, content),
      content,
      open,
    };
  }

  /** sha256 of a file's text, remembered for the last text seen (comparing strings is cheaper than hashing). */
  private hashOf(uri: string, content: string): string {
    const known = this.hashes.get(uri);
    if (known && known.content === content) return known.sha256;
    const hash = sha256(content);
    this.hashes.delete(uri);
    this.hashes.set(uri, { content, sha256: hash });
    // Bounded: the oldest entry goes first (a Map keeps insertion order).
    if (this.hashes.size > HASH_MEMORY) this.hashes.delete(this.hashes.keys().next().value!);
    return hash;
  }
}
