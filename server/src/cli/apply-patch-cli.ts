// `lockstep apply-patch` beyond one file: without FILE, a diff across files or
// an apply_patch envelope is applied all or none through the apply_patch tool;
// with FILE, a text that also changes other files is refused, naming them.
import { errorEnvelope, type Envelope } from "../tools/envelope.js";
import { foreignSections } from "../tools/diff-scope.js";
import { invokeTool } from "../tools/registry.js";
import type { ToolContext } from "../tools/tool.js";
import { recoverBatches } from "../workspace/disk-batch.js";

/** A change across files that a killed run committed but did not finish is finished first; what it kept or refused is said. */
export async function finishInterrupted(ctx: ToolContext, say: (s: string) => void): Promise<void> {
  for (const root of ctx.workspace.sandbox.roots) {
    const recovered = await recoverBatches(root);
    for (const note of recovered.notes) say(`lockstep: ${note}\n`);
  }
}

export function applyAcrossFiles(text: string, dryRun: boolean, ctx: ToolContext): Promise<Envelope> {
  return invokeTool("apply_patch", { input: text, dry_run: dryRun }, ctx);
}

/** The refusal for a FILE given with a text that also changes other files; undefined when it is all for FILE. */
export function otherFilesRefusal(text: string, file: string): Envelope | undefined {
  const others = foreignSections(text, file);
  if (others.length === 0) return undefined;
  return errorEnvelope(
    "invalid_diff",
    `Invalid Diff: the patch also changes ${others.map((o) => `\`${o}\``).join(", ")}, not only \`${file}\`; nothing was applied to any file.`,
    [
      "Run `lockstep apply-patch` without FILE to apply the change to every file it names (all or none), or send only this file's section.",
    ],
  );
}
