// One job: what `lockstep.ask` was asked (validated here, once) and what the job did, as
// `lockstep.job` reports it. The service keeps the records; a run fills one in.
import type { ToolKind } from "../tools/tool.js";
import * as z from "zod";
import type { Usage } from "./model.js";
import type { JobStatus } from "./events.js";

const position = z.object({ line: z.number().int().min(0), character: z.number().int().min(0) });

export const askParams = z
  .object({
    prompt: z.string().trim().min(1, "must say what to do"),
    file_path: z.string().trim().min(1).optional(),
    range: z.object({ start: position, end: position }).optional(),
    /** The `lockstep: …` comment line the request came from, removed when the run succeeds. */
    instruction_line: z.object({ line: z.number().int().min(0), text: z.string() }).optional(),
  })
  .strict();
export type AskParams = z.output<typeof askParams>;

export interface JobRecord {
  id: string;
  prompt: string;
  status: JobStatus;
  text: string;
  /** `kind` tells reads from changes, so a client can say that every change of a run was refused. */
  tool_calls: { name: string; kind: ToolKind; file_path?: string; ok: boolean; message: string }[];
  files_changed: string[];
  /** Tokens the provider counted over this job's requests. */
  usage: Usage;
  error?: { code: string; message: string };
  done: Promise<void>;
  controller: AbortController;
}

/** Adds files to the job's `files_changed`, each once, in the order they first changed. */
export function noteChanged(job: JobRecord, files: Iterable<string>): void {
  for (const f of files) if (!job.files_changed.includes(f)) job.files_changed.push(f);
}
