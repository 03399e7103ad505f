// Which sections of a diff are for other files than the one a single-file call
// names. A diff pasted from `git diff` carries every file it touched; applying
// the named file's section and saying nothing of the rest would lose them.
import { hasEnvelope, parseEnvelope } from "../edit/changeset/envelope-parse.js";
import { parseMultiFileDiff } from "../edit/changeset/multi-diff.js";
import type { FileOperation } from "../edit/changeset/change.js";

function sameFile(a: string, b: string): boolean {
  const x = a.replace(/\\/g, "/").replace(/^\.\//, "");
  const y = b.replace(/\\/g, "/").replace(/^\.\//, "");
  return x === y || x.endsWith("/" + y) || y.endsWith("/" + x);
}

function namesOf(op: FileOperation): string[] {
  const names = [op.path.path];
  if (op.op === "update" && op.moveTo) names.push(op.moveTo.path);
  return names;
}

/**
 * The paths of the sections not for `target`, when the text names several files
 * (a diff whose sections all carry one name, `original`/`modified` repeated per
 * hunk, is one file's diff). Empty when everything is for `target`.
 */
export function foreignSections(text: string, target: string): string[] {
  const parsed = hasEnvelope(text) ? parseEnvelope(text) : parseMultiFileDiff(text);
  if (!parsed.ok) return [];
  const names = [...new Set(parsed.value.flatMap(namesOf))];
  if (names.length <= 1 && !hasEnvelope(text)) return [];
  return names.filter((n) => !sameFile(n, target));
}
