// The files a change across files touches: each path resolved in the sandbox
// (a plain diff's leading folder dropped where that is how the files exist),
// all of them locked together, read, and checked against what the model last
// received. Nothing here computes or writes.
import type { FileOperation, PathRef } from "../edit/changeset/change.js";
import { resolvePaths } from "../edit/changeset/apply-change.js";
import { fail, succeed, type Failure, type Outcome } from "../shared/outcome.js";
import type { FileState } from "../workspace/file-state.js";
import type { ResolvedPath } from "../workspace/sandbox.js";
import type { ToolContext } from "./tool.js";

export interface ChangeFiles {
  /** Workspace-relative path of each path the change names. */
  relOf: (ref: PathRef) => string;
  resolved: Map<string, ResolvedPath>;
}

/** Resolves every path the operations name; one that leaves the workspace refuses the change. */
export async function resolveChangeFiles(
  ctx: ToolContext,
  ops: readonly FileOperation[],
): Promise<Outcome<ChangeFiles>> {
  const candidates = new Set<string>();
  for (const op of ops) {
    for (const ref of op.op === "update" && op.moveTo ? [op.path, op.moveTo] : [op.path]) {
      candidates.add(ref.path);
      if (ref.stripped !== undefined) candidates.add(ref.stripped);
    }
  }
  const found = new Map<string, Outcome<ResolvedPath>>();
  for (const c of candidates) found.set(c, await ctx.workspace.resolve(c, "write"));
  const exists = (p: string): boolean => {
    const r = found.get(p);
    return r?.ok === true && (r.value.exists || ctx.workspace.heldInMemory(r.value.uri));
  };
  const pathOf = resolvePaths(ops, exists);
  const resolved = new Map<string, ResolvedPath>();
  const relByRaw = new Map<string, string>();
  for (const op of ops) {
    for (const ref of op.op === "update" && op.moveTo ? [op.path, op.moveTo] : [op.path]) {
      const raw = pathOf(ref);
      const r = found.get(raw)!;
      if (!r.ok)
        return fail(
          r.error.code,
          `${r.error.message} (named by the section at line ${op.line}). Nothing was applied.`,
          r.error.suggestions,
        );
      // A delete through a link would remove what it leads to and leave the link dangling.
      if (op.op === "delete" && (await ctx.workspace.endsInLink(raw))) {
        return fail(
          "invalid_argument",
          `${raw} is a symbolic link to ${r.value.rel}: deleting it through the change would delete ${r.value.rel} and leave the link (the section at line ${op.line}). Nothing was applied.`,
          [
            `Delete the link itself outside the change, or name ${r.value.rel} to delete the file it leads to.`,
          ],
        );
      }
      resolved.set(r.value.rel, r.value);
      relByRaw.set(raw, r.value.rel);
    }
  }
  return succeed({ relOf: (ref) => relByRaw.get(pathOf(ref))!, resolved });
}

/** Runs `fn` holding every file's lock, taken in one order (by real path) so two changes never wait on each other. */
export function withAllLocks<T>(
  ctx: ToolContext,
  paths: readonly ResolvedPath[],
  fn: () => Promise<T>,
): Promise<T> {
  const sorted = [...paths].sort((a, b) => (a.abs < b.abs ? -1 : a.abs > b.abs ? 1 : 0));
  const take = (i: number): Promise<T> =>
    i === sorted.length ? fn() : ctx.workspace.withLock(sorted[i]!, () => take(i + 1));
  return take(0);
}

/** Every file's current state (undefined: it does not exist); a file that cannot be read as text refuses the change. */
export async function readChangeFiles(
  ctx: ToolContext,
  files: ChangeFiles,
): Promise<Outcome<Map<string, FileState | undefined>>> {
  const states = new Map<string, FileState | undefined>();
  for (const [rel, path] of files.resolved) {
    const read = await ctx.workspace.read(path);
    if (read.ok) states.set(rel, read.value);
    else if (read.error.code === "not_found") states.set(rel, undefined);
    else
      return fail(
        read.error.code,
        `${rel}: ${read.error.message} Nothing was applied.`,
        read.error.suggestions,
      );
  }
  return succeed(states);
}

/**
 * In a conversation, a file the change edits must be the file as the model last
 * received it: one it never saw refuses (its content is attached, so the next
 * try can build on it), one that changed since is a state mismatch. Commands
 * run by a person have no conversation: the current state is the base.
 */
export function checkSeen(
  ctx: ToolContext,
  edited: readonly string[],
  states: Map<string, FileState | undefined>,
): Failure | undefined {
  const conversation = ctx.conversation;
  if (!conversation) return undefined;
  const unseen: string[] = [];
  const moved: string[] = [];
  for (const rel of edited) {
    const state = states.get(rel);
    if (!state) continue;
    const seen = conversation.seenSha256?.get(rel);
    if (!conversation.filesInContext.has(rel)) unseen.push(rel);
    else if (seen !== undefined && seen !== state.sha256) moved.push(rel);
    // The failure carries these states: the model has them from now on.
    conversation.filesInContext.add(rel);
    conversation.seenSha256?.set(rel, state.sha256);
  }
  if (moved.length > 0) {
    return {
      code: "state_mismatch",
      message: `State Mismatch: ${moved.join(", ")} changed since you last read ${moved.length > 1 ? "them" : "it"}; nothing was applied to any file.`,
      suggestions: ["Rebuild the change from latest_file_states (attached) and send it again."],
    };
  }
  if (unseen.length > 0) {
    return {
      code: "invalid_argument",
      message: `Not applied: the content of ${unseen.join(", ")} was not in this conversation, so the change was built on a guess; nothing was applied to any file. ${unseen.length > 1 ? "They are" : "It is"} attached now.`,
      suggestions: ["Rebuild the change from latest_file_states (attached) and send it again."],
    };
  }
  return undefined;
}
