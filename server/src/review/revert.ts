// Undoing a job: each file's changes reversed, latest first, each reverse hunk
// placed on the file as it is now (edit/merge), so what the user typed since
// stays. A file where a reverse hunk cannot be placed is left as it is and
// reported with that hunk. A file the job created goes only if it is exactly
// what the job left and the editor can delete files.
import { changeHunks, hunkDiff } from "../edit/merge/hunks.js";
import { placeAll } from "../edit/merge/rebase.js";
import type { Workspace } from "../workspace/workspace.js";
import type { Journal, JournalEntry } from "./journal.js";

export interface RevertedFile {
  file_path: string;
  status: "reverted" | "conflict" | "unchanged";
  message: string;
}

/**
 * `underReview`: files with a change waiting for the user's review. Such a file is held by the
 * call that waits, so its revert would wait too (and an editor that waits on the command with it).
 */
export async function revertJob(
  workspace: Workspace,
  journal: Journal,
  jobId: string,
  underReview: (uri: string) => boolean,
  signal: AbortSignal,
): Promise<RevertedFile[]> {
  const out: RevertedFile[] = [];
  for (const [uri, entries] of journal.byFile(jobId)) {
    if (underReview(uri)) {
      out.push({
        file_path: entries[0]!.file_path,
        status: "conflict",
        message: `${entries[0]!.file_path} was left as it is: a change to it waits for your review. Accept or reject it, then revert again.`,
      });
      continue;
    }
    const reverted = await revertFile(workspace, journal, entries, signal);
    if (reverted.status !== "conflict") journal.forget(jobId, uri);
    out.push(reverted);
  }
  return out;
}

async function revertFile(
  workspace: Workspace,
  journal: Journal,
  entries: JournalEntry[],
  signal: AbortSignal,
): Promise<RevertedFile> {
  const first = entries[0]!;
  const last = entries[entries.length - 1]!;
  const file_path = first.file_path;
  const result = (status: RevertedFile["status"], message: string): RevertedFile => ({
    file_path,
    status,
    message,
  });
  const resolved = await workspace.resolve(file_path, "write");
  if (!resolved.ok) return result("conflict", resolved.error.message);
  const path = resolved.value;
  return workspace.withLock(path, async () => {
    const read = await workspace.read(path);
    const created = first.before === null;
    if (!read.ok) {
      if (read.error.code === "not_found")
        return created
          ? result("unchanged", `${file_path} no longer exists.`)
          : result("conflict", `${file_path} no longer exists; nothing to revert.`);
      return result("conflict", read.error.message);
    }
    const now = read.value;
    if (created) {
      if (now.content !== last.after) {
        return result(
          "conflict",
          `${file_path} was created by this job and has changed since; lockstep left it. Delete it yourself if you do not want it.`,
        );
      }
      const removed = await workspace.remove(path, now.content, signal);
      if (!removed.ok)
        return result("conflict", `${removed.error.message} ${removed.error.suggestions.join(" ")}`.trim());
      return result("reverted", `${file_path} was created by this job and is deleted.`);
    }
    let text = now.content;
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i]!;
      const hunks = changeHunks(e.after, e.before ?? "");
      const placed = placeAll(e.after, text, hunks);
      if (!placed.ok) {
        return result(
          "conflict",
          `${file_path} was left as it is: a change of this job cannot be undone there, because ${placed.error.message.replace(/^Conflict: /, "")} The part that would be undone:\n${hunkDiff(hunks[placed.hunk]!)}`,
        );
      }
      text = placed.text;
    }
    if (text === now.content)
      return result("unchanged", `${file_path} already holds what it held before this job.`);
    const delivered = await workspace.deliver(path, now, text, signal);
    if (!delivered.ok) return result("conflict", delivered.error.message);
    // A revert is a change too: a command's, so a later revert of a job never undoes it by accident.
    journal.record({
      job_id: null,
      tool: "revert",
      file_path,
      uri: path.uri,
      before: now.content,
      after: text,
    });
    return result(
      "reverted",
      `${file_path}: this job's changes are undone; later edits elsewhere in the file are kept.`,
    );
  });
}
