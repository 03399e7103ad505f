// Delivers a change across files that every check has passed: all files or
// none. On disk (the CLI, or files no editor takes) through the journaled batch
// (workspace/disk-batch.ts). Through the editor, one versioned edit per file in
// order; if one is refused, the files already changed are put back as they were
// (their own edits reversed), and the answer says so.
import { fail, succeed, type Outcome } from "../shared/outcome.js";
import { writeBatch } from "../workspace/disk-batch.js";
import type { FileState } from "../workspace/file-state.js";
import type { ResolvedPath } from "../workspace/sandbox.js";
import type { ToolContext } from "./tool.js";

export interface FileDelivery {
  path: ResolvedPath;
  /** The state the change was computed on; null: the file is created. */
  before: FileState | null;
  /** The new text; null: the file is deleted. */
  after: string | null;
}

export interface Delivered {
  /** Each file's state after, in the order given (undefined for a deleted file). */
  states: (FileState | undefined)[];
  via: "disk" | "editor";
}

async function deliverOne(ctx: ToolContext, d: FileDelivery): Promise<Outcome<FileState | undefined>> {
  if (d.after === null) {
    const removed = await ctx.workspace.remove(d.path, d.before!.content, ctx.signal);
    return removed.ok ? succeed(undefined) : removed;
  }
  const delivered = await ctx.workspace.deliver(d.path, d.before, d.after, ctx.signal);
  return delivered.ok ? succeed(delivered.value.state) : delivered;
}

/** Puts a delivered file back to the text it had, only while it holds what was delivered (never over the user's typing). */
async function undo(ctx: ToolContext, d: FileDelivery): Promise<boolean> {
  const signal = new AbortController().signal;
  if (d.before === null) return (await ctx.workspace.remove(d.path, d.after!, signal)).ok;
  if (d.after === null) return (await ctx.workspace.deliver(d.path, null, d.before.content, signal)).ok;
  const now = await ctx.workspace.read({ ...d.path, exists: true });
  if (!now.ok || now.value.content !== d.after) return false;
  return (await ctx.workspace.deliver(d.path, now.value, d.before.content, signal)).ok;
}

export async function deliverAll(
  ctx: ToolContext,
  files: readonly FileDelivery[],
): Promise<Outcome<Delivered>> {
  const onDisk = files.every(
    (f) => ctx.workspace.deliversToDisk(f.path, f.before === null) && !ctx.workspace.heldInMemory(f.path.uri),
  );
  if (onDisk) {
    const root = files[0]!.path.root;
    if (files.every((f) => f.path.root === root)) {
      const written = await writeBatch(
        root,
        files.map((f) => ({
          abs: f.path.abs,
          before: f.before === null ? null : f.before.content,
          after: f.after,
        })),
      );
      if (!written.ok) return written;
      for (const f of files) ctx.workspace.documentChanged(f.path.uri);
      const states: (FileState | undefined)[] = [];
      for (const f of files) {
        if (f.after === null) states.push(undefined);
        else {
          const read = await ctx.workspace.read({ ...f.path, exists: true });
          states.push(read.ok ? read.value : undefined);
        }
      }
      return succeed({ states, via: "disk" });
    }
  }
  const states: (FileState | undefined)[] = [];
  for (let i = 0; i < files.length; i++) {
    const one = await deliverOne(ctx, files[i]!);
    if (one.ok) {
      states.push(one.value);
      continue;
    }
    // Put back what landed, latest first; say plainly if any could not be.
    const stuck: string[] = [];
    for (let j = i - 1; j >= 0; j--) if (!(await undo(ctx, files[j]!))) stuck.push(files[j]!.path.rel);
    const undone =
      i === 0
        ? ""
        : stuck.length === 0
          ? ` The ${i} file${i > 1 ? "s" : ""} already changed ${i > 1 ? "were" : "was"} put back.`
          : ` Could not put back: ${stuck.join(", ")}.`;
    return fail(
      one.error.code,
      `${files[i]!.path.rel}: ${one.error.message}${undone}`,
      one.error.suggestions,
    );
  }
  return succeed({ states, via: "editor" });
}
