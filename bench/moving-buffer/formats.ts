// One agent change (version A → A') spelled in each tool's own format: a unified
// diff (lockstep's safe_patch, `diff`'s applyPatch, GNU patch), an `apply_patch`
// envelope (Codex), and old/new strings (gemini-cli's edit, lockstep's edit).
import { structuredPatch } from "diff";

export interface AgentEdit {
  /** The text the agent read. */
  base: string;
  /** The text the agent means to leave: its post-image of `base`. */
  after: string;
  unifiedDiff: string;
  codexPatch: string;
  oldString: string;
  newString: string;
  hunks: number;
}

/** Lines of context on each side, for every format alike (gemini-cli's and Codex's prompts ask for 3). */
export const CONTEXT = 3;

/**
 * The change from `base` to `after` in every format. `oldString`/`newString` cover the changed
 * lines with CONTEXT lines either side, as an agent copying from its read would.
 */
export function spellEdit(path: string, base: string, after: string): AgentEdit {
  const patch = structuredPatch(path, path, base, after, "", "", { context: CONTEXT });
  const body = patch.hunks.map(
    (h) => [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines].join("\n") + "\n",
  );
  const unifiedDiff = `--- a/${path}\n+++ b/${path}\n${body.join("")}`;
  const codexHunks = patch.hunks.map(
    (h) => ["@@", ...h.lines.filter((l) => !l.startsWith("\\"))].join("\n") + "\n",
  );
  const codexPatch = `*** Begin Patch\n*** Update File: ${path}\n${codexHunks.join("")}*** End Patch`;
  const first = patch.hunks[0];
  const last = patch.hunks[patch.hunks.length - 1];
  if (!first || !last) throw new Error(`spellEdit: ${path}: the agent's change is empty`);
  // One old/new pair spanning every hunk: the region from the first hunk's start to the last one's end.
  const baseLines = base.split("\n");
  const afterLines = after.split("\n");
  const oldEnd = last.oldStart - 1 + last.oldLines;
  const newEnd = last.newStart - 1 + last.newLines;
  const oldString = baseLines.slice(first.oldStart - 1, oldEnd).join("\n") + "\n";
  const newString = afterLines.slice(first.newStart - 1, newEnd).join("\n") + "\n";
  return { base, after, unifiedDiff, codexPatch, oldString, newString, hunks: patch.hunks.length };
}
