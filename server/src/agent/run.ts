// One run of a job: the model made, the tool context built, the prompt (mentions, the
// user's file), the turn loop with its tool runner (the registry's tools and the door's
// external ones, each call streamed and recorded), the conversation written back, the
// tool-less mode when the model cannot call tools, and the job ended exactly once.
import { type Envelope } from "../tools/envelope.js";
import { findTool, functionDeclarations, invokeTool } from "../tools/registry.js";
import type { Journal } from "../review/journal.js";
import type { Approver } from "../review/proposal.js";
import type { CommandAccess } from "../tools/command-question.js";
import type { DiagnosticsView } from "../diagnostics/types.js";
import type { EditCorrector, ToolConditions, ToolContext } from "../tools/tool.js";
import type { Workspace } from "../workspace/workspace.js";
import type { Conversation } from "./conversation.js";
import type { JobStatus, StreamEvent, ToolCallEvent } from "./events.js";
import { noteChanged, type AskParams, type JobRecord } from "./job.js";
import { expandMentions } from "./mentions.js";
import {
  addUsage,
  isModelError,
  type FunctionCall,
  type FunctionDeclaration,
  type Message,
  type Model,
  type Usage,
} from "./model.js";
import { instructionsSection, readProjectInstructions } from "./project-instructions.js";
import type { SessionSink } from "./session-sink.js";
import { buildSystemPrompt, buildToollessPrompt } from "./system-prompt.js";
import { applyEditBlocksInAnswer, editBlockRounds } from "./toolless.js";
import { runTurnLoop, type RunResult, type ToolRunner } from "./turn-loop.js";

/**
 * Tools that are not lockstep's own (an ACP client's MCP servers): declared beside the registry's and
 * run by whoever brought them, who asks for approval as for a modifying tool.
 */
export interface ExternalTools {
  /** Starts what the tools need (MCP servers, lazily): awaited before a run's first model call. */
  prepare?(): Promise<void>;
  declarations(): FunctionDeclaration[];
  has(name: string): boolean;
  run(call: FunctionCall, ctx: ToolContext): Promise<Envelope>;
}

export interface AgentDeps {
  workspace: () => Workspace;
  conversation: Conversation;
  /** Creates the model; throws a ModelError (no_api_key) when none is configured. */
  model: () => Promise<Model>;
  approve: Approver;
  /** Where every change the agent applies is written, so its run can be reverted. */
  journal?: Journal;
  corrector?: EditCorrector;
  emit: (event: StreamEvent) => void;
  limits: () => { maxTurns: number; maxToolCalls: number };
  /** false for a model without tool calling: it answers with edit blocks (default true). */
  toolCalling?: () => boolean;
  /** Which conditional tools exist in this server (a wrapped language server, …); none when absent. */
  conditions?: () => ToolConditions;
  /** --debug: every tool call the model makes and its result. */
  log?: (what: string, value: unknown) => void;
  /** A wrapped language server's diagnostics (wrap mode). */
  diagnostics?: DiagnosticsView;
  /** Each tool call with its arguments and its whole result (the ACP door shows them as tool calls). */
  observeTool?: (event: ToolCallEvent) => void;
  /** Tools the front door adds for this session (an ACP client's MCP servers). */
  externalTools?: () => ExternalTools | undefined;
  /** Where the conversation is kept beyond the process (the session store), turn by turn. */
  sink?: SessionSink;
  /** What run_command needs from the door (its settings, prompt, live output); no commands without it. */
  commands?: CommandAccess;
}

/** A one-line account of what a read returned, for the stream. */
function readSummary(data: Record<string, unknown>): string {
  if (typeof data["sha256"] === "string")
    return `${String(data["file_path"])} at sha256 ${data["sha256"].slice(0, 12)}…`;
  if (Array.isArray(data["matches"]))
    return `${data["matches"].length} matching lines in ${String(data["files_searched"])} files`;
  if (Array.isArray(data["files"]))
    return data["files"].every((f) => typeof f === "string")
      ? `${data["files"].length} files found`
      : `${data["files"].length} files read`;
  if (Array.isArray(data["entries"])) return `${data["entries"].length} entries`;
  return "ok";
}

/** Why a run ended when the user stopped it at a question (the abort's reason, and the job's error). */
export const STOPPED = Object.freeze({
  code: "stopped",
  message: "Stopped: you ended the run at the approval question; what it asked about was not done.",
});

/** Ends a job: its status, what landed (from the journal), the store told, the doors told. */
export function endJob(
  deps: AgentDeps,
  job: JobRecord,
  status: JobStatus,
  error?: { code: string; message: string },
): void {
  job.status = status;
  // What landed counts, whatever became of the call that landed it (a run cancelled while hunks under review were accepted).
  for (const [entry] of deps.journal?.byFile(job.id).values() ?? [])
    if (entry) noteChanged(job, [entry.file_path]);
  if (error) job.error = error;
  deps.sink?.runEnded({
    job_id: job.id,
    status,
    usage: job.usage,
    files_changed: job.files_changed,
    history: deps.conversation.history,
  });
  deps.emit({
    job_id: job.id,
    kind: "done",
    status,
    text: job.text,
    ...(error ? { message: error.message } : {}),
  });
}

/** Adds a run's token counts to its job and to the conversation's totals. */
function counted(deps: AgentDeps, job: JobRecord, result: RunResult): RunResult {
  for (const total of [job.usage, deps.conversation.usage]) {
    addUsage(total, result.usage);
  }
  return result;
}

/** The registry's tools (and the door's external ones) as the turn loop runs them, each call streamed and recorded on the job. */
function toolRunner(deps: AgentDeps, job: JobRecord, ctx: ToolContext, toolless: () => boolean): ToolRunner {
  let calls = 0;
  return {
    declarations: () =>
      toolless()
        ? []
        : [...functionDeclarations(ctx.conditions), ...(deps.externalTools?.()?.declarations() ?? [])],
    run: async (call, callSignal) => {
      const file = typeof call.args["file_path"] === "string" ? call.args["file_path"] : undefined;
      const external = deps.externalTools?.();
      const isExternal =
        external?.has(call.name) === true && findTool(call.name, ctx.conditions) === undefined;
      const callKind = isExternal ? "external" : (findTool(call.name, ctx.conditions)?.kind ?? "read");
      const call_id = `${job.id}:${++calls}`;
      deps.emit({ job_id: job.id, kind: "tool_call", tool: call.name, ...(file ? { file_path: file } : {}) });
      deps.observeTool?.({ phase: "start", job_id: job.id, call_id, call, kind: callKind });
      deps.log?.("tool_call", { job_id: job.id, name: call.name, args: call.args });
      const callCtx = { ...ctx, signal: callSignal };
      const result =
        isExternal && external
          ? await external.run(call, callCtx)
          : await invokeTool(call.name, call.args, callCtx);
      deps.log?.("tool_result", { job_id: job.id, name: call.name, result });
      deps.observeTool?.({ phase: "end", job_id: job.id, call_id, call, kind: callKind, result });
      // A job that ended (cancelled) while the tool ran stays as it ended.
      if (job.status !== "running" || job.controller.signal.aborted) return result;
      const message = result.ok
        ? String(result.data["message"] ?? readSummary(result.data))
        : result.error.message;
      const state = result.data?.["latest_file_state"] as { file_path?: string } | undefined;
      const kind = callKind === "external" ? "modify" : callKind;
      const changed = result.ok && kind === "modify" && result.data["applied"] === true && state?.file_path;
      if (changed) noteChanged(job, [changed]);
      // A change across files (apply_patch) names each file's new state.
      const states =
        result.ok && result.data["applied"] === true
          ? ((result.data["latest_file_states"] ?? []) as { file_path: string }[])
          : [];
      noteChanged(
        job,
        states.map((s) => s.file_path),
      );
      job.tool_calls.push({
        name: call.name,
        kind,
        ...(file ? { file_path: file } : {}),
        ok: result.ok,
        message,
      });
      deps.emit({
        job_id: job.id,
        kind: "tool_result",
        tool: call.name,
        ok: result.ok,
        message,
        ...(file ? { file_path: file } : {}),
      });
      return result;
    },
  };
}

/** Runs one job to its end; a bug throws and the service fails the job. */
export async function runJob(deps: AgentDeps, job: JobRecord, params: AskParams): Promise<void> {
  const { conversation } = deps;
  const signal = job.controller.signal;
  if (signal.aborted) return endJob(deps, job, "cancelled");
  let model: Model;
  try {
    model = await deps.model();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return endJob(deps, job, "failed", {
      code: isModelError(error) ? error.code : "internal_error",
      message,
    });
  }
  const ctx: ToolContext = {
    workspace: deps.workspace(),
    signal,
    approve: deps.approve,
    jobId: job.id,
    ...(deps.journal ? { journal: deps.journal } : {}),
    conversation,
    ...(deps.corrector ? { corrector: deps.corrector } : {}),
    ...(deps.conditions ? { conditions: deps.conditions() } : {}),
    ...(deps.diagnostics ? { diagnostics: deps.diagnostics } : {}),
    ...(deps.commands ? { commands: deps.commands } : {}),
  };
  deps.emit({
    job_id: job.id,
    kind: "status",
    status: "running",
    message: `Asking ${model.name}`,
    prompt: params.prompt,
  });

  const generation = conversation.generation;
  const read = (file: string): Promise<Envelope> => invokeTool("read_file", { file_path: file }, ctx);
  // After a resume: the files the stored conversation showed that changed since, before the prompt.
  const changedSince =
    (await deps.sink?.runStarted(
      { job_id: job.id, prompt: params.prompt, model: model.name },
      conversation.history,
      read,
    )) ?? "";
  const prompt = changedSince + (await promptText(params, ctx));
  const onTurnEnd = (history: readonly Message[], usage: Usage): void =>
    deps.sink?.turnEnded(job.id, history, usage);
  let toolless = deps.toolCalling?.() === false;
  const runner = toolRunner(deps, job, ctx, () => toolless);
  const external = toolless ? undefined : deps.externalTools?.();
  // Lazy: the servers start with the first run that can use them, each bounded by its timeout.
  await external?.prepare?.();
  const instructions = instructionsSection(await readProjectInstructions(ctx.workspace));
  let system = toolless
    ? buildToollessPrompt(instructions)
    : buildSystemPrompt(instructions, ctx.conditions?.wrapped === true, commandsPrompt(ctx));
  const loop = async (): Promise<RunResult> =>
    counted(
      deps,
      job,
      await runTurnLoop({
        model,
        tools: runner,
        system,
        history: conversation.history,
        prompt: [{ text: prompt }],
        limits: deps.limits(),
        signal,
        events: {
          onText: (delta) => {
            job.text += delta;
            deps.emit({ job_id: job.id, kind: "text", text: delta });
          },
          onThought: (delta) => deps.emit({ job_id: job.id, kind: "thought", text: delta }),
          onTurnEnd,
        },
      }),
    );
  let result = await loop();
  if (!toolless && result.status === "failed" && result.error?.code === "tools_unsupported") {
    // The endpoint refused tools for this model: the same request again, answered with edit blocks.
    toolless = true;
    system = buildToollessPrompt(instructions);
    deps.emit({
      job_id: job.id,
      kind: "status",
      status: "running",
      message: `${model.name} cannot call tools: asking for edit blocks instead`,
    });
    result = await loop();
  }
  if (conversation.generation === generation) {
    // A run that stopped half-way ends on a user message; a model note keeps the turns alternating.
    const last = result.history[result.history.length - 1];
    if (result.status !== "done" && last?.role !== "assistant")
      result.history.push({
        role: "assistant",
        parts: [{ text: `(This request ended: ${result.status}.)` }],
      });
    conversation.history = result.history;
  }
  job.text = result.text;
  const scope = { job, ctx, emit: deps.emit };
  if (result.status === "done" && toolless) {
    // One more round of the same conversation, told what did not apply; no text streamed but the answer.
    const followUp = async (text: string): Promise<RunResult> => {
      const next = counted(
        deps,
        job,
        await runTurnLoop({
          model,
          tools: runner,
          system,
          history: conversation.history,
          prompt: [{ text }],
          limits: deps.limits(),
          signal,
          events: { onTurnEnd },
        }),
      );
      conversation.history = next.history;
      return next;
    };
    result = await editBlockRounds(scope, result, followUp);
  }
  if (result.status === "done") {
    if (!toolless) await applyEditBlocksInAnswer(scope);
    await removeInstructionLine(params, ctx);
    return endJob(deps, job, "done");
  }
  if (result.status === "cancelled")
    return endJob(deps, job, "cancelled", signal.reason === STOPPED ? STOPPED : undefined);
  return endJob(
    deps,
    job,
    "failed",
    result.error ?? { code: result.status, message: `The run stopped: ${result.status}.` },
  );
}

/** The prompt as the model reads it: the user's words, the mentioned files, and where the cursor is. */
async function promptText(params: AskParams, ctx: ToolContext): Promise<string> {
  const expanded = await expandMentions(params.prompt, ctx);
  if (!params.file_path) return expanded.text;
  let read = await invokeTool("read_file", { file_path: params.file_path }, ctx);
  // A long file comes back as its first 2,000 lines: when the selection lies past them, read around it instead.
  const shownTo = read.ok && read.data["truncated"] === true ? Number(read.data["end_line"]) : Infinity;
  if (params.range && params.range.end.line + 1 > shownTo) {
    read = await invokeTool(
      "read_file",
      { file_path: params.file_path, offset: Math.max(1, params.range.start.line + 1 - 500) },
      ctx,
    );
  }
  if (!read.ok)
    return `${expanded.text}\n\n(The user is in ${params.file_path}, which could not be read: ${read.error.message})`;
  const where = params.range
    ? ` Their selection is lines ${params.range.start.line + 1}-${params.range.end.line + 1}.`
    : "";
  return `${expanded.text}\n\nThe user is working in ${params.file_path}.${where} Its current state:\n${JSON.stringify(read.data)}`;
}

/** The `lockstep: …` comment that started the run did its work; take it out (the user asked for this run). */
async function removeInstructionLine(params: AskParams, ctx: ToolContext): Promise<void> {
  if (!params.instruction_line || !params.file_path) return;
  await invokeTool(
    "edit",
    { file_path: params.file_path, old_string: params.instruction_line.text + "\n", new_string: "" },
    { ...ctx, approve: async () => "apply" },
  );
}

/** What the system prompt says of commands: nothing when the model cannot run any. */
function commandsPrompt(ctx: ToolContext): { testCommand?: string | undefined } | undefined {
  if (ctx.conditions?.commands !== true || ctx.commands === undefined) return undefined;
  return { testCommand: ctx.commands.settings().testCommand };
}
