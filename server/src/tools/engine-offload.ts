// Large engine work off the main thread. The engine is pure and now linear, but
// a 20,000-hunk diff still takes a quarter of a second, and the server must
// answer other commands meanwhile: above a size, the job runs in a worker thread
// that a cancellation terminates. The worker loads the same bundle the server
// runs from; running from source (tests), the job runs inline.
import { Worker } from "node:worker_threads";
import { applyModelPatch, type PatchResult } from "../edit/patch/patch.js";
import { replaceInText, type ReplaceRequest, type ReplaceResult } from "../edit/replace/replace.js";
import { fail, type Outcome } from "../edit/shared/outcome.js";

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

export type EngineJob = PatchJob | ReplaceJob;

type EngineAnswer<J extends EngineJob> = J extends PatchJob ? Outcome<PatchResult> : Outcome<ReplaceResult>;

/** Runs a job here and now: what the worker runs, and the path for small inputs. */
export function runEngineJob<J extends EngineJob>(job: J): EngineAnswer<J> {
  if (job.kind === "patch") {
    const existing = new Set(job.existing);
    return applyModelPatch(job.content, job.diff, { filePath: job.filePath, fileExists: (p) => existing.has(p) }) as EngineAnswer<J>;
  }
  return replaceInText(job.content, job.request) as EngineAnswer<J>;
}

/** Input sizes from which a job goes to a worker (starting one costs tens of milliseconds). */
const OFFLOAD_INPUT_CHARS = 512 * 1024;
const OFFLOAD_FILE_CHARS = 4 * 1024 * 1024;

function inputChars(job: EngineJob): number {
  return job.kind === "patch" ? job.diff.length : job.request.old_string.length + job.request.new_string.length;
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
  if (bundle === undefined || (inputChars(job) < OFFLOAD_INPUT_CHARS && job.content.length < OFFLOAD_FILE_CHARS)) return runEngineJob(job);
  if (signal.aborted) return cancelled() as EngineAnswer<J>;
  return new Promise<EngineAnswer<J>>((resolve) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bundle, job } });
    const abort = (): void => {
      void worker.terminate();
      resolve(cancelled() as EngineAnswer<J>);
    };
    signal.addEventListener("abort", abort, { once: true });
    worker.once("message", (answer: EngineAnswer<J>) => {
      signal.removeEventListener("abort", abort);
      void worker.terminate();
      resolve(answer);
    });
    worker.once("error", (error) => {
      signal.removeEventListener("abort", abort);
      resolve(fail("internal_error", `Internal Error: the engine's worker failed (${error.message}). The file was not changed.`) as EngineAnswer<J>);
    });
  });
}

function cancelled(): Outcome<never> {
  return fail("cancelled", "Cancelled: the change was still being computed; nothing was applied.");
}
