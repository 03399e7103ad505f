// agent/: models, jobs, one run, the turn loop, the conversation. Knows nothing of protocols
// or of the store's format (it talks to SessionSink); it reaches files only through the tools.
// The agent as a service of jobs: `ask` starts one and answers with its id at once (eglot
// waits synchronously on commands, Helix times requests out); runs are queued one at a time
// (the conversation is a single history); `job` reports what one did; `cancel` stops it
// within a second. One run is run.ts; the events it streams are events.ts.
import { randomUUID } from "node:crypto";
import * as z from "zod";
import { errorEnvelope, okEnvelope, type Envelope } from "../tools/envelope.js";
import { describeIssues } from "../tools/registry.js";
import { askParams, type JobRecord } from "./job.js";
import { readProjectInstructions } from "./project-instructions.js";
import { endJob, runJob, STOPPED, type AgentDeps } from "./run.js";

const jobParams = z
  .object({ job_id: z.string().min(1, "must name a job (the job_id returned by lockstep.ask)") })
  .strict();

export class AgentService {
  private readonly jobs = new Map<string, JobRecord>();
  /** One run at a time per conversation: the history is a single conversation. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly deps: AgentDeps) {}

  ask(raw: unknown): Envelope {
    const parsed = askParams.safeParse(raw);
    if (!parsed.success)
      return errorEnvelope("invalid_argument", describeIssues("lockstep.ask", parsed.error));
    const id = randomUUID();
    let finish = (): void => undefined;
    const job: JobRecord = {
      id,
      prompt: parsed.data.prompt,
      status: "running",
      text: "",
      tool_calls: [],
      files_changed: [],
      usage: { input_tokens: 0, output_tokens: 0 },
      done: new Promise<void>((resolve) => (finish = resolve)),
      controller: new AbortController(),
    };
    this.jobs.set(id, job);
    // A run that throws (a bug) fails its own job and leaves the queue serving the next one.
    this.queue = this.queue
      .then(() => runJob(this.deps, job, parsed.data))
      .catch((error: unknown) =>
        endJob(this.deps, job, "failed", {
          code: "internal_error",
          message: `Internal Error: ${error instanceof Error ? error.message : String(error)}`,
        }),
      )
      .finally(finish);
    return okEnvelope({ job_id: id });
  }

  job(raw: unknown): Envelope {
    const found = this.find(raw);
    if (!found.ok) return found.envelope;
    const { id, status, text, tool_calls, files_changed, usage, error, prompt } = found.job;
    return okEnvelope({
      job_id: id,
      prompt,
      status,
      text,
      tool_calls,
      files_changed,
      usage,
      ...(error ? { error } : {}),
    });
  }

  cancel(raw: unknown): Envelope {
    const found = this.find(raw);
    if (!found.ok) return found.envelope;
    found.job.controller.abort();
    return okEnvelope({
      job_id: found.job.id,
      status: found.job.status === "running" ? "cancelling" : found.job.status,
    });
  }

  /** The user stopped the run at a question: it ends at once, as cancelled, saying so. */
  stop(jobId: string): void {
    this.jobs.get(jobId)?.controller.abort(STOPPED);
  }

  /** For tests and shutdown: resolves when the job has ended. */
  async settled(id: string): Promise<JobRecord | undefined> {
    const job = this.jobs.get(id);
    await job?.done;
    return job;
  }

  /** The project instruction file every run reads (AGENTS.md, else GEMINI.md), or null: for lockstep.session. */
  async projectInstructions(): Promise<string | null> {
    return (await readProjectInstructions(this.deps.workspace()))?.file_path ?? null;
  }

  /** Whether a run is going on or waiting its turn. */
  running(): boolean {
    return [...this.jobs.values()].some((j) => j.status === "running");
  }

  cancelAll(): void {
    for (const job of this.jobs.values()) job.controller.abort();
  }

  private find(raw: unknown): { ok: true; job: JobRecord } | { ok: false; envelope: Envelope } {
    const parsed = jobParams.safeParse(raw);
    if (!parsed.success)
      return {
        ok: false,
        envelope: errorEnvelope("invalid_argument", describeIssues("lockstep.job", parsed.error)),
      };
    const job = this.jobs.get(parsed.data.job_id);
    if (!job)
      return {
        ok: false,
        envelope: errorEnvelope("not_found", `No job ${parsed.data.job_id} in this server session.`, [
          "Start one with lockstep.ask.",
        ]),
      };
    return { ok: true, job };
  }
}
