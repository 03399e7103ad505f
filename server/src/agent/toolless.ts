// The mode for a model without tool calling (and for the edits a model with tools writes in
// its answer anyway): `««« EDIT` / SEARCH/REPLACE blocks and apply_patch envelopes found in
// the answer are applied through the registry's tools, approved and hash-safe like any
// change, and when some fail the model gets a follow-up round with what failed and the
// files' current states. Knows nothing of the model or the turn loop: a round is `followUp`.
import { hasEnvelope } from "../edit/changeset/envelope-parse.js";
import type { Envelope } from "../tools/envelope.js";
import { invokeTool } from "../tools/registry.js";
import type { ToolContext } from "../tools/tool.js";
import type { StreamEvent } from "./events.js";
import { noteChanged, type JobRecord } from "./job.js";
import type { RunResult } from "./turn-loop.js";

/** Follow-up rounds a model without tool calling gets when some of its edit blocks do not apply. */
const TOOLLESS_ROUNDS = 2;

/** What applying an answer's edits needs of its run. */
export interface AnswerScope {
  job: JobRecord;
  ctx: ToolContext;
  emit: (event: StreamEvent) => void;
}

/**
 * A model without tool calling: the blocks of its answer are applied (approved,
 * hash-safe, only to files it was given), and when some fail it gets one more
 * round with what failed and the files' current states.
 */
export async function editBlockRounds(
  scope: AnswerScope,
  first: RunResult,
  followUp: (prompt: string) => Promise<RunResult>,
): Promise<RunResult> {
  const { job, ctx } = scope;
  let result = first;
  let answer = first.text;
  for (let round = 0; ; round++) {
    const applied = await applyEditBlocksInAnswer(scope, answer);
    const blocks = (applied?.data?.["blocks"] ?? []) as {
      file_path: string;
      status: string;
      message?: string;
    }[];
    const failed = blocks.filter((b) => b.status !== "applied");
    if (applied === undefined || failed.length === 0 || ctx.signal.aborted || round === TOOLLESS_ROUNDS)
      return result;
    const states: unknown[] = [];
    for (const file of new Set(failed.map((b) => b.file_path))) {
      const read = await invokeTool("read_file", { file_path: file }, ctx);
      if (read.ok) states.push(read.data);
    }
    const report = failed
      .map((b) => `- ${b.file_path}: ${b.status}${b.message ? `: ${b.message}` : ""}`)
      .join("\n");
    const prompt = `These edit blocks did not apply:\n${report}\n\nThe files' current states:\n${states.map((st) => JSON.stringify(st)).join("\n")}\n\nWrite the blocks that did not apply again, from these states.`;
    result = await followUp(prompt);
    if (result.status !== "done") return result;
    answer = result.text;
    job.text += `\n\n${answer}`;
    scope.emit({ job_id: job.id, kind: "text", text: `\n\n${answer}` });
  }
}

/**
 * An apply_patch envelope in the answer (OpenAI's models write one even without tools): applied
 * all or none through the apply_patch tool; its files are reported as blocks, so a failure gets
 * the same follow-up round as edit blocks.
 */
async function applyEnvelopeInAnswer({ job, ctx, emit }: AnswerScope, text: string): Promise<Envelope> {
  const result = await invokeTool("apply_patch", { input: text }, ctx);
  const files = (result.data?.["files"] ?? []) as { file_path: string; status: string; message: string }[];
  noteChanged(job, result.ok ? files.map((f) => f.file_path) : []);
  const message = result.ok ? String(result.data["message"]) : result.error.message;
  job.tool_calls.push({ name: "apply_patch", kind: "modify", ok: result.ok, message });
  emit({ job_id: job.id, kind: "tool_result", tool: "apply_patch", ok: result.ok, message });
  const blocks =
    files.length > 0
      ? files.map((f) => ({ ...f, status: f.status === "applied" ? "applied" : "failed" }))
      : [{ file_path: "(patch)", status: "failed", message }];
  return {
    ...result,
    data: { ...result.data, blocks: result.ok ? blocks : blocks.map((b) => ({ ...b, status: "failed" })) },
  } as Envelope;
}

/** Edit blocks the model wrote in its answer are applied like any other change (approved, hash-safe). */
export async function applyEditBlocksInAnswer(
  scope: AnswerScope,
  text = scope.job.text,
  envelopes = true,
): Promise<Envelope | undefined> {
  const { job, ctx, emit } = scope;
  const envelope = envelopes && hasEnvelope(text) ? await applyEnvelopeInAnswer(scope, text) : undefined;
  if (!text.includes("««« EDIT") && !/^<{5,9} SEARCH\s*$/m.test(text)) return envelope;
  // Both spellings in one answer: the blocks are applied too, and the follow-up hears of both.
  if (envelope) {
    const blocks = await applyEditBlocksInAnswer(scope, text, false);
    const all = [
      ...((envelope.data?.["blocks"] ?? []) as unknown[]),
      ...((blocks?.data?.["blocks"] ?? []) as unknown[]),
    ];
    return { ...envelope, data: { ...envelope.data, blocks: all } } as Envelope;
  }
  const result = await invokeTool("apply_edit_blocks", { text }, ctx);
  const changed = (result.data?.["files_changed"] ?? []) as string[];
  noteChanged(job, changed);
  const message = result.ok
    ? `Applied the edit blocks in the answer to ${changed.join(", ") || "no file"}.`
    : result.error.message;
  job.tool_calls.push({ name: "apply_edit_blocks", kind: "modify", ok: result.ok, message });
  emit({ job_id: job.id, kind: "tool_result", tool: "apply_edit_blocks", ok: result.ok, message });
  return result;
}
