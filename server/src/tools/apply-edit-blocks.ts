// apply_edit_blocks: the ««« EDIT blocks in a model's answer (or a pasted one),
// applied file by file, blocks of one file in order. Each block reports its own
// status; each file is delivered once, with the blocks that fit.
import * as z from "zod";
import { isCreateBlock, parseEditBlocks, type EditBlock } from "../edit/blocks/edit-blocks.js";
import { fail, succeed, type ErrorCode } from "../shared/outcome.js";
import { runEngine } from "./engine-offload.js";
import { errorEnvelope, failureEnvelope, okEnvelope } from "./envelope.js";
import { modifyFile } from "./modify.js";
import { dryRun } from "./schemas.js";
import { defineTool, type ToolContext } from "./tool.js";

const MAX_TEXT_CHARS = 8 * 1024 * 1024;
/** More blocks than this in one call is a rewrite, and each block searches its file: refused with the count. */
const MAX_BLOCKS = 1_000;

export type BlockStatus = "applied" | "validated" | "failed" | "skipped" | "not_in_context";

export interface BlockReport {
  index: number;
  file_path: string;
  status: BlockStatus;
  message: string;
  /** 1-based line of the block in the given text. */
  line: number;
  code?: ErrorCode;
}

type Resolution = Awaited<ReturnType<ToolContext["workspace"]["resolve"]>>;

/** Blocks grouped by the file they resolve to (`./a.ts` and `a.ts` are one file), in order of appearance. */
async function groupByFile(
  blocks: EditBlock[],
  ctx: ToolContext,
): Promise<Map<string, { resolved: Resolution; blocks: EditBlock[] }>> {
  const files = new Map<string, { resolved: Resolution; blocks: EditBlock[] }>();
  for (const b of blocks) {
    const resolved = await ctx.workspace.resolve(b.file_path, "write");
    const key = resolved.ok ? resolved.value.rel : `\u0000${b.file_path}`;
    const entry = files.get(key);
    if (entry) entry.blocks.push(b);
    else files.set(key, { resolved, blocks: [b] });
  }
  return files;
}

/** Applies one file's blocks in order; true when the file changed. */
async function applyFileBlocks(
  ctx: ToolContext,
  resolved: Resolution,
  blocks: EditBlock[],
  dry: boolean,
  reports: BlockReport[],
): Promise<boolean> {
  const report = (b: EditBlock, status: BlockStatus, message: string, code?: ErrorCode): void => {
    const filePath = resolved.ok ? resolved.value.rel : b.file_path;
    reports.push({
      index: b.index,
      file_path: filePath,
      status,
      message,
      line: b.line,
      ...(code ? { code } : {}),
    });
  };
  if (!resolved.ok) {
    const outside = resolved.error.code === "permission_denied";
    for (const b of blocks)
      report(b, outside ? "skipped" : "failed", resolved.error.message, resolved.error.code);
    return false;
  }
  const rel = resolved.value.rel;
  const conversation = ctx.conversation;
  // The model never saw this file's content: its anchors are guesses. Defer, and add the file to the context.
  const unseen = conversation !== undefined && resolved.value.exists && !conversation.filesInContext.has(rel);
  const attempted = blocks.filter((b) => !(unseen && !isCreateBlock(b)));
  for (const b of blocks) {
    if (!attempted.includes(b))
      report(
        b,
        "not_in_context",
        `Not applied: the content of ${rel} was not in this conversation; it has been added, so ask again to retry these edits.`,
      );
  }
  if (attempted.length === 0) return false;

  const outcomes = new Map<EditBlock, { ok: boolean; message: string; code?: ErrorCode }>();
  const envelope = await modifyFile(
    ctx,
    { tool: "apply_edit_blocks", file_path: rel, dry_run: dry, mayCreate: isCreateBlock(attempted[0]!) },
    async (current) => {
      // Many blocks on a large file is long work: it runs where a cancellation can stop it (see engine-offload).
      const run = await runEngine(
        { kind: "blocks", content: current.content, blocks: attempted },
        ctx.signal,
      );
      if (!run.ok) return run;
      attempted.forEach((b, i) => {
        const applied = run.value.outcomes[i]!;
        if (applied.ok) {
          const line = applied.anchorLine;
          outcomes.set(b, {
            ok: true,
            message: dry
              ? `Edit fits at line ${line} (dry run: nothing written).`
              : `Edit landed at line ${line}.`,
          });
        } else {
          outcomes.set(b, { ok: false, message: applied.error.message, code: applied.error.code });
        }
      });
      // Nothing fitted (or nothing changed): nothing to deliver, each block says why.
      if (run.value.content === current.content) return fail("no_change", `No Change: ${rel} is unchanged.`);
      return succeed({ content: run.value.content, message: `${rel} updated.` });
    },
  );
  const delivered = envelope.ok;
  for (const b of attempted) {
    const o = outcomes.get(b);
    if (!o) {
      // The file could not be read or written at all: binary, missing, refused by the user or the editor.
      const error = envelope.ok ? undefined : envelope.error;
      const skipped = error?.code === "binary_file";
      report(b, skipped ? "skipped" : "failed", error?.message ?? "Not applied.", error?.code);
    } else if (!o.ok) {
      report(b, "failed", o.message, o.code);
    } else if (!delivered) {
      report(
        b,
        "failed",
        envelope.ok ? o.message : envelope.error.message,
        envelope.ok ? undefined : envelope.error.code,
      );
    } else {
      report(b, dry ? "validated" : "applied", o.message);
    }
  }
  const changed = delivered && !dry && attempted.some((b) => outcomes.get(b)?.ok);
  return changed;
}

export const applyEditBlocks = defineTool({
  name: "apply_edit_blocks",
  kind: "modify",
  audience: "commands",
  description:
    "Apply the edit blocks in a text: for each, a path line, then `««« EDIT`, the lines as " +
    "they are now, `═══════ REPL`, the same lines changed, `»»» EDIT END`. The leading " +
    "lines both sections share locate the edit and must occur exactly once in the file; an " +
    "empty EDIT section creates a file. Returns each block's status.",
  params: z
    .object({
      text: z
        .string()
        .min(1, "must contain the text with the edit blocks")
        .max(
          MAX_TEXT_CHARS,
          `is too large (over ${MAX_TEXT_CHARS / 1024 / 1024} MB); send the blocks in several calls`,
        )
        .describe("Text containing one or more edit blocks (prose around them is ignored)."),
      dry_run: dryRun,
    })
    .strict(),
  async run(args, ctx) {
    const blocks = parseEditBlocks(args.text);
    if (blocks.length > MAX_BLOCKS) {
      return errorEnvelope(
        "invalid_argument",
        `Invalid Argument: the text has ${blocks.length} edit blocks, over the limit of ${MAX_BLOCKS} for one call. Nothing was applied.`,
        [
          `Send the blocks in calls of at most ${MAX_BLOCKS}, or write a file that changes throughout with write_file.`,
        ],
      );
    }
    if (blocks.length === 0) {
      return errorEnvelope(
        "invalid_argument",
        "No complete edit block found: each needs a path line, then `««« EDIT`, `═══════ REPL` and `»»» EDIT END` lines.",
        [
          "Check that every block ends with a `»»» EDIT END` line and that the line before `««« EDIT` is the file's path.",
        ],
      );
    }
    const reports: BlockReport[] = [];
    const filesChanged: string[] = [];
    const filesAutoAdded: string[] = [];
    const before = new Set(ctx.conversation?.filesInContext ?? []);
    for (const [rel, file] of await groupByFile(blocks, ctx)) {
      if (ctx.signal.aborted) break;
      if (await applyFileBlocks(ctx, file.resolved, file.blocks, args.dry_run ?? false, reports))
        filesChanged.push(rel);
    }
    if (ctx.signal.aborted) {
      // Cancelled between files: the blocks not reached say so (a cancelled run is never an empty success).
      const reached = new Set(reports.map((r) => r.index));
      for (const b of blocks) {
        if (!reached.has(b.index))
          reports.push({
            index: b.index,
            file_path: b.file_path,
            status: "skipped",
            message: "Not applied: cancelled before this block's file was reached.",
            line: b.line,
            code: "cancelled",
          });
      }
    }
    for (const r of reports) {
      if (r.status === "not_in_context" && !filesAutoAdded.includes(r.file_path))
        filesAutoAdded.push(r.file_path);
    }
    for (const f of filesAutoAdded) if (!before.has(f)) ctx.conversation?.filesInContext.add(f);
    reports.sort((a, b) => a.index - b.index);
    const data = { blocks: reports, files_auto_added: filesAutoAdded, files_changed: filesChanged };
    const failed = reports.filter((r) => r.status === "failed" || r.status === "skipped");
    if (failed.length === 0) return okEnvelope(data);
    const first = failed[0]!;
    return failureEnvelope(
      {
        code: ctx.signal.aborted ? "cancelled" : (first.code ?? "invalid_argument"),
        message: `${failed.length} of ${reports.length} edit blocks did not apply. First: block ${first.index + 1} (${first.file_path}): ${first.message}`,
        suggestions: [
          ctx.signal.aborted
            ? "Nothing was applied after the cancellation; send the blocks that did not apply again if they are still wanted."
            : "Fix the failed blocks from the latest file content and send only those again; the applied ones are in place.",
        ],
      },
      data,
    );
  },
});
