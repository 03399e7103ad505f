// Large engine work off the main thread. The engine is pure and now linear, but
// a 20,000-hunk diff still takes a quarter of a second, and the server must
// answer other commands meanwhile: above a size, the job runs in a worker thread
// that a cancellation terminates. The worker loads the same bundle the server
// runs from; running from source (tests), the job runs inline.
import { Worker } from "node:worker_threads";
import { applyEditBlock, type EditBlock } from "../edit/blocks/edit-blocks.js";
import { applyModelPatch } from "../edit/patch/patch.js";
import { applyChangeSet, type ChangeOutcome } from "../edit/changeset/apply-change.js";
import type { FileOperation } from "../edit/changeset/change.js";
import { replaceInText, type ReplaceRequest, type ReplaceResult } from "../edit/replace/replace.js";
import { fail, succeed, type Failure, type Outcome } from "../shared/outcome.js";

export interface PatchJob {
  kind: "patch";
  content: string;
  diff: string;
  filePath: string;
  /** Header paths that name existing files (only those may refuse the diff). */
  existing: string[];
}

export interface ReplaceJob {
  kind: "replace";
  content: string;
  request: ReplaceRequest;
}

/** One file's edit blocks, applied in order, each to the text the ones before it left. */
export interface BlocksJob {
  kind: "blocks";
  content: string;
  blocks: EditBlock[];
}

export interface BlocksResult {
  content: string;
  /** Per block, in order: where it landed, or why not. */
  outcomes: ({ ok: true; anchorLine: number } | { ok: false; error: Failure })[];
}

/** A change across files: the operations, each file's text (null: absent) and each named path's workspace path. */
export interface ChangeJob {
  kind: "change";
  ops: FileOperation[];
  files: Record<string, string | null>;
  /** `refKey(ref)` → workspace-relative path. */
  paths: Record<string, string>;
}

/** The key a path the change names is looked up by (a worker gets plain data, not a function). */
export function refKey(ref: { path: string; stripped?: string }): string {
  return `${ref.path}\u0000${ref.stripped ?? ""}`;
}

export type EngineJob = PatchJob | ReplaceJob | BlocksJob | ChangeJob;

/** A patch's answer as the tool uses it: the per-hunk reports stay in the thread that made them (20,000 objects cost the server's thread to receive). */
export interface PatchAnswer {
  content: string;
  diff: string;
  /** Hunks whose header named another line than the one they landed at. */
  moved: number;
}

interface EngineAnswers {
  patch: Outcome<PatchAnswer>;
  replace: Outcome<ReplaceResult>;
  blocks: Outcome<BlocksResult>;
  /** Or the worker's own failure (cancelled, crashed). */
  change: ChangeOutcome | Outcome<never>;
}

type EngineAnswer<J extends EngineJob> = EngineAnswers[J["kind"]];

/** Runs a job here and now: what the worker runs, and the path for small inputs. */
export function runEngineJob<J extends EngineJob>(job: J): EngineAnswer<J> {
  if (job.kind === "patch") {
    const existing = new Set(job.existing);
    const patched = applyModelPatch(job.content, job.diff, {
      filePath: job.filePath,
      fileExists: (p) => existing.has(p),
    });
    if (!patched.ok) return patched as EngineAnswer<J>;
    const { content, diff, hunks } = patched.value;
    const moved = hunks.filter((h) => h.claimedLine !== undefined && h.claimedLine !== h.line).length;
    return succeed({ content, diff, moved }) as EngineAnswer<J>;
  }
  if (job.kind === "blocks") return applyBlocks(job) as EngineAnswer<J>;
  if (job.kind === "change")
    return applyChangeSet(
      job.ops,
      (p) => job.files[p] ?? undefined,
      (ref) => job.paths[refKey(ref)]!,
    ) as EngineAnswer<J>;
  return replaceInText(job.content, (job as ReplaceJob).request) as EngineAnswer<J>;
}

function applyBlocks(job: BlocksJob): Outcome<BlocksResult> {
  let content = job.content;
  const outcomes: BlocksResult["outcomes"] = [];
  for (const block of job.blocks) {
    const applied = applyEditBlock(content, block);
    if (applied.ok) content = applied.value.content;
    outcomes.push(applied.ok ? { ok: true, anchorLine: applied.value.anchorLine } : applied);
  }
  return succeed({ content, outcomes });
}

/** Input sizes from which a job goes to a worker (starting one costs tens of milliseconds). */
const OFFLOAD_INPUT_CHARS = 512 * 1024;
const OFFLOAD_FILE_CHARS = 4 * 1024 * 1024;
/** Each edit block searches the file: blocks x file characters from which the work is long (about 20 ms). */
const OFFLOAD_BLOCK_WORK = 16 * 1024 * 1024;

/** Files in a change from which planning them all is long, however small each is (1,000 took 250 ms). */
const OFFLOAD_CHANGE_FILES = 100;

/** Whether a job goes to a worker (when the server runs from its bundle). */
export function heavy(job: EngineJob): boolean {
  if (job.kind === "change")
    return (
      job.ops.length >= OFFLOAD_CHANGE_FILES ||
      Object.values(job.files).reduce((n, t) => n + (t?.length ?? 0), 0) >= OFFLOAD_FILE_CHARS ||
      JSON.stringify(job.ops).length >= OFFLOAD_INPUT_CHARS
    );
  if (job.content.length >= OFFLOAD_FILE_CHARS) return true;
  if (job.kind === "patch") return job.diff.length >= OFFLOAD_INPUT_CHARS;
  if (job.kind === "replace")
    return job.request.old_string.length + job.request.new_string.length >= OFFLOAD_INPUT_CHARS;
  const input = job.blocks.reduce((n, b) => n + b.old.length + b.new.length, 0);
  return input >= OFFLOAD_INPUT_CHARS || job.blocks.length * job.content.length >= OFFLOAD_BLOCK_WORK;
}

/** The bundle this code runs from, when it does (`__filename` is the wrapper's argument there). */
function bundlePath(): string | undefined {
  return typeof __filename === "string" && __filename.endsWith(".cjs") ? __filename : undefined;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
parentPort.postMessage(require(workerData.bundle).runEngineJob(workerData.job));
`;

/** The job's answer, computed in a worker when the input is large and a bundle can be loaded there. */
export async function runEngine<J extends EngineJob>(job: J, signal: AbortSignal): Promise<EngineAnswer<J>> {
  const bundle = bundlePath();
  if (bundle === undefined || !heavy(job)) return runEngineJob(job);
  if (signal.aborted) return cancelled() as EngineAnswer<J>;
  return new Promise<EngineAnswer<J>>((resolve) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bundle, job } });
    let done = false;
    const finish = (answer: Outcome<unknown>): void => {
      if (done) return;
      done = true;
      signal.removeEventListener("abort", abort);
      void worker.terminate();
      resolve(answer as EngineAnswer<J>);
    };
    const abort = (): void => finish(cancelled());
    signal.addEventListener("abort", abort, { once: true });
    worker.once("message", finish);
    worker.once("error", (error) => finish(workerFailed(error.message)));
    // A worker that ends without an answer (out of memory, say) must not leave the command waiting for ever.
    worker.once("exit", (code) => finish(workerFailed(`it stopped with exit code ${code} before answering`)));
  });
}

function workerFailed(why: string): Outcome<never> {
  return fail(
    "internal_error",
    `Internal Error: the engine's worker failed (${why}). The file was not changed; try again, and tell the user if it keeps failing.`,
  );
}

function cancelled(): Outcome<never> {
  return fail("cancelled", "Cancelled: the change was still being computed; nothing was applied.");
}
