// Applies a change set to the files' texts, all or none: every operation is
// computed on the text it names, and any that cannot land refuses the whole
// change, each failing file named. Strings in, outcomes out; the caller reads
// and writes the files.
import { applyModelPatch } from "../patch/patch.js";
import { parseUnifiedDiff } from "../patch/diff-parse.js";
import { fail, succeed, type Failure, type Outcome } from "../../shared/outcome.js";
import { applyAnchoredHunks } from "./anchored.js";
import { describeOperation, type FileOperation, type PathRef } from "./change.js";

export type FileOp = "update" | "add" | "delete" | "move";

/** One file's part of the change, as computed: its text before (null: created) and after (null: deleted). */
export interface FilePlan {
  op: FileOp;
  path: string;
  /** A move's destination. */
  to?: string;
  before: string | null;
  after: string | null;
  /** Hunks the engine placed (0 for a create, delete or pure move). */
  hunks: number;
}

export interface FileRefusal {
  path: string;
  op: FileOp;
  error: Failure;
}

export type ChangeOutcome =
  | { ok: true; files: FilePlan[] }
  | { ok: false; refused: FileRefusal[]; planned: FilePlan[] };

/**
 * The paths the operations name, read the way `patch` reads them: a plain diff
 * whose paths carry a leading folder (`old/src/x.c`) is read without it when
 * that is how the files exist; one reading for the whole diff.
 */
export function resolvePaths(
  ops: readonly FileOperation[],
  exists: (path: string) => boolean,
): (ref: PathRef) => string {
  const refs = ops.flatMap((o) => (o.op === "update" && o.moveTo ? [o.path, o.moveTo] : [o.path]));
  const needsStrip = ops.some(
    (o) => o.op !== "add" && o.path.stripped !== undefined && !exists(o.path.path) && exists(o.path.stripped),
  );
  const anyAsIs = ops.some((o) => o.op !== "add" && exists(o.path.path));
  const strip = needsStrip && !anyAsIs && refs.every((r) => r.stripped !== undefined);
  return (ref) => (strip ? ref.stripped! : ref.path);
}

function opName(op: FileOperation): FileOp {
  return op.op === "update" && op.moveTo ? "move" : op.op;
}

/** The new file's text from a diff that adds it: its + lines, with the final newline the diff says. */
function createdText(diff: string): Outcome<string> {
  const parsed = parseUnifiedDiff(diff);
  if (!parsed.ok) return parsed;
  const hunks = parsed.value.flatMap((p) => p.hunks);
  if (hunks.some((h) => h.lines.some((l) => l.op !== "+"))) {
    return fail("invalid_diff", "Invalid Diff: a diff that creates a file may only add lines.", [
      "Write every line of the new file as a + line.",
    ]);
  }
  const lines = hunks.flatMap((h) => h.lines.map((l) => l.text));
  const last = hunks[hunks.length - 1];
  return succeed(lines.length === 0 ? "" : lines.join("\n") + (last?.noNewlineNew ? "" : "\n"));
}

/** Whether a diff that deletes a file removes exactly what the file holds. */
function deletesExactly(diff: string, content: string): boolean {
  const parsed = parseUnifiedDiff(diff);
  if (!parsed.ok) return false;
  const hunks = parsed.value.flatMap((p) => p.hunks);
  if (hunks.some((h) => h.lines.some((l) => l.op !== "-"))) return false;
  const removed = hunks.flatMap((h) => h.lines.map((l) => l.text));
  const last = hunks[hunks.length - 1];
  const expected = removed.length === 0 ? "" : removed.join("\n") + (last?.noNewlineOld ? "" : "\n");
  return content.replace(/\r\n/g, "\n").replace(/^\uFEFF/, "") === expected;
}

function planOne(
  op: FileOperation,
  path: string,
  to: string | undefined,
  read: (path: string) => string | undefined,
): Outcome<FilePlan> {
  const current = read(path);
  const kind = opName(op);
  if (op.op === "add") {
    if (current !== undefined) {
      return fail(
        "invalid_diff",
        `Invalid Diff: the change creates ${path}, which already exists. Nothing was applied.`,
        [
          `Change ${path} with an update (\`*** Update File:\` or a diff with its current lines as context), or delete it first.`,
        ],
      );
    }
    const text = typeof op.content === "string" ? succeed(op.content) : createdText(op.content.diff);
    if (!text.ok) return text;
    return succeed({ op: kind, path, before: null, after: text.value, hunks: 0 });
  }
  if (current === undefined) {
    return fail(
      "not_found",
      `File not found: the change ${describeOperation(op, path, to)}, but ${path} does not exist. Nothing was applied.`,
      [
        "Check the path against the workspace (list_files), or create the file with `*** Add File:` / `--- /dev/null`.",
      ],
    );
  }
  if (op.op === "delete") {
    if (op.diff !== undefined && !deletesExactly(op.diff, current)) {
      return fail(
        "state_mismatch",
        `State Mismatch: the diff deletes ${path}, but the lines it removes are not the file's content. Nothing was applied.`,
        [`Read ${path} again; delete it only as it is now.`],
      );
    }
    return succeed({ op: kind, path, before: current, after: null, hunks: 0 });
  }
  if (to !== undefined && to !== path && read(to) !== undefined) {
    return fail(
      "invalid_diff",
      `Invalid Diff: the change moves ${path} to ${to}, which already exists. Nothing was applied.`,
      [`Delete ${to} in the same change, or choose another name.`],
    );
  }
  const move = to !== undefined && to !== path ? { to } : {};
  const body = op.body;
  if (body === null) return succeed({ op: kind, path, ...move, before: current, after: current, hunks: 0 });
  const patched =
    body.kind === "diff"
      ? applyModelPatch(current, body.text, { filePath: path, fileExists: () => false })
      : applyAnchoredHunks(current, body.hunks, path);
  if (!patched.ok) {
    // A pure content no-op in a move is still a move.
    if (patched.error.code === "no_change" && to !== undefined)
      return succeed({ op: kind, path, ...move, before: current, after: current, hunks: 0 });
    return patched;
  }
  return succeed({
    op: kind,
    path,
    ...move,
    before: current,
    after: patched.value.content,
    hunks: patched.value.hunks.length,
  });
}

/**
 * Computes every operation on the texts `read` gives (undefined: no such file).
 * A path touched by two operations is refused: the order would decide the result.
 */
export function applyChangeSet(
  ops: readonly FileOperation[],
  read: (path: string) => string | undefined,
  pathOf: (ref: PathRef) => string = (r) => r.path,
): ChangeOutcome {
  const refused: FileRefusal[] = [];
  const planned: FilePlan[] = [];
  const touched = new Map<string, number>();
  for (const op of ops) {
    const path = pathOf(op.path);
    const to = op.op === "update" && op.moveTo ? pathOf(op.moveTo) : undefined;
    for (const p of to !== undefined && to !== path ? [path, to] : [path]) {
      const earlier = touched.get(p);
      if (earlier !== undefined) {
        refused.push({
          path: p,
          op: opName(op),
          error: {
            code: "invalid_diff",
            message: `Invalid Diff: ${p} appears in two sections (lines ${earlier} and ${op.line}); the change must name each file once. Nothing was applied.`,
            suggestions: ["Merge the two sections into one."],
          },
        });
      }
      touched.set(p, op.line);
    }
  }
  if (refused.length > 0) return { ok: false, refused, planned };
  for (const op of ops) {
    const path = pathOf(op.path);
    const to = op.op === "update" && op.moveTo ? pathOf(op.moveTo) : undefined;
    const plan = planOne(op, path, to, read);
    if (plan.ok) planned.push(plan.value);
    else refused.push({ path, op: opName(op), error: plan.error });
  }
  return refused.length > 0 ? { ok: false, refused, planned } : { ok: true, files: planned };
}
