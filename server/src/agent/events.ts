// What a job tells the doors while it runs: the stream every door renders (LSP's
// lockstep/stream and transcript, ACP's session/update, the terminal's lines) and the tool
// calls a door that shows each call follows. Plain data: knows nothing of any protocol.
import type { Envelope } from "../tools/envelope.js";
import type { ToolKind } from "../tools/tool.js";
import type { FunctionCall } from "./model.js";

export type JobStatus = "running" | "done" | "failed" | "cancelled";

export type StreamEvent =
  | { job_id: string; kind: "text"; text: string }
  /** The model's reasoning, where the provider shows it: for display, not part of the answer. */
  | { job_id: string; kind: "thought"; text: string }
  | { job_id: string; kind: "tool_call"; tool: string; file_path?: string }
  | { job_id: string; kind: "tool_result"; tool: string; ok: boolean; message: string; file_path?: string }
  | { job_id: string; kind: "status"; status: JobStatus; message?: string; prompt?: string }
  /** A running command's output as it comes (run_command), already redacted. */
  | { job_id: string; kind: "output"; tool: string; text: string }
  | { job_id: string; kind: "done"; status: JobStatus; text: string; message?: string };

/** One tool call of a job, as a front door that shows each call (ACP) follows it: before it runs, and its result. */
export type ToolCallEvent =
  | { phase: "start"; job_id: string; call_id: string; call: FunctionCall; kind: ToolKind | "external" }
  | {
      phase: "end";
      job_id: string;
      call_id: string;
      call: FunctionCall;
      kind: ToolKind | "external";
      result: Envelope;
    };
