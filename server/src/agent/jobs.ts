// Agent runs as jobs: `ask` starts one and answers with its id at once (eglot
// waits synchronously on commands, Helix times requests out); the run streams
// events and `job` reports what it did; `cancel` stops it within a second.
import { hasEnvelope } from "../edit/changeset/envelope-parse.js";
import { randomUUID } from "node:crypto";
import * as z from "zod";
import { errorEnvelope, okEnvelope, type Envelope } from "../tools/envelope.js";
import { findTool, functionDeclarations, invokeTool } from "../tools/registry.js";
import { describeIssues } from "../tools/registry.js";
import type { Journal } from "../review/journal.js";
import type { Approver } from "../review/proposal.js";
import type { CommandAccess } from "../tools/command-question.js";
import type { DiagnosticsView, EditCorrector, ToolConditions, ToolContext, ToolKind } from "../tools/tool.js";
import type { Workspace } from "../workspace/workspace.js";
import { expandMentions } from "./mentions.js";
import { isModelError, type FunctionCall, type FunctionDeclaration, type Message, type Model, type Usage } from "./model.js";
import { instructionsSection, readProjectInstructions } from "./project-instructions.js";
import type { Session } from "./session.js";
import type { SessionSink } from "./session-sink.js";
import { buildSystemPrompt, buildToollessPrompt } from "./system-prompt.js";
import { runTurnLoop, type RunResult, type ToolRunner } from "./turn-loop.js";

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

const jobParams = z.object({ job_id: z.string().min(1, "must name a job (the job_id returned by lockstep.ask)") }).strict();

export type JobStatus = "running" | "done" | "failed" | "cancelled";

export type StreamEvent =
  | { job_id: string; kind: "text"; text: string }
  | { job_id: string; kind: "tool_call"; tool: string; file_path?: string }
  | { job_id: string; kind: "tool_result"; tool: string; ok: boolean; message: string; file_path?: string }
  | { job_id: string; kind: "status"; status: JobStatus; message?: string; prompt?: string }
  /** A running command's output as it comes (run_command), already redacted. */
  | { job_id: string; kind: "output"; tool: string; text: string }
  | { job_id: string; kind: "done"; status: JobStatus; text: string; message?: string };

/** One tool call of a job, as a front door that shows each call (ACP) follows it: before it runs, and its result. */
export type ToolCallEvent =
  | { phase: "start"; job_id: string; call_id: string; call: FunctionCall; kind: ToolKind | "external" }
  | { phase: "end"; job_id: string; call_id: string; call: FunctionCall; kind: ToolKind | "external"; result: Envelope };

/**
 * Tools that are not lockstep's own (an ACP client's MCP servers): declared beside the registry's and
 * run by whoever brought them, who asks for approval as for a modifying tool.
 */
export interface ExternalTools {
  declarations(): FunctionDeclaration[];
  has(name: string): boolean;
  run(call: FunctionCall, ctx: ToolContext): Promise<Envelope>;
}

/** Follow-up rounds a model without tool calling gets when some of its edit blocks do not apply. */
const TOOLLESS_ROUNDS = 2;

export interface AgentDeps {
  workspace: () => Workspace;
  session: Session;
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

/** A one-line account of what a read returned, for the stream. */
function readSummary(data: Record<string, unknown>): string {
  if (typeof data["sha256"] === "string") return `${String(data["file_path"])} at sha256 ${data["sha256"].slice(0, 12)}…`;
  if (Array.isArray(data["matches"])) return `${data["matches"].length} matching lines in ${String(data["files_searched"])} files`;
  if (Array.isArray(data["files"])) return data["files"].every((f) => typeof f === "string") ? `${data["files"].length} files found` : `${data["files"].length} files read`;
  if (Array.isArray(data["entries"])) return `${data["entries"].length} entries`;
  return "ok";
}

export class AgentService {
  private readonly jobs = new Map<string, JobRecord>();
  /** One run at a time per session: the history is a single conversation. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly deps: AgentDeps) {}

  ask(raw: unknown): Envelope {
    const parsed = askParams.safeParse(raw);
    if (!parsed.success) return errorEnvelope("invalid_argument", describeIssues("lockstep.ask", parsed.error));
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
      .then(() => this.run(job, parsed.data))
      .catch((error: unknown) => this.end(job, "failed", { code: "internal_error", message: `Internal Error: ${error instanceof Error ? error.message : String(error)}` }))
      .finally(finish);
    return okEnvelope({ job_id: id });
  }

  job(raw: unknown): Envelope {
    const found = this.find(raw);
    if (!found.ok) return found.envelope;
    const { id, status, text, tool_calls, files_changed, usage, error, prompt } = found.job;
    return okEnvelope({ job_id: id, prompt, status, text, tool_calls, files_changed, usage, ...(error ? { error } : {}) });
  }

  cancel(raw: unknown): Envelope {
    const found = this.find(raw);
    if (!found.ok) return found.envelope;
    found.job.controller.abort();
    return okEnvelope({ job_id: found.job.id, status: found.job.status === "running" ? "cancelling" : found.job.status });
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
    if (!parsed.success) return { ok: false, envelope: errorEnvelope("invalid_argument", describeIssues("lockstep.job", parsed.error)) };
    const job = this.jobs.get(parsed.data.job_id);
    if (!job) return { ok: false, envelope: errorEnvelope("not_found", `No job ${parsed.data.job_id} in this server session.`, ["Start one with lockstep.ask."]) };
    return { ok: true, job };
  }

  private end(job: JobRecord, status: JobStatus, error?: { code: string; message: string }): void {
    job.status = status;
    // What landed counts, whatever became of the call that landed it (a run cancelled while hunks under review were accepted).
    for (const [entry] of this.deps.journal?.byFile(job.id).values() ?? []) if (entry && !job.files_changed.includes(entry.file_path)) job.files_changed.push(entry.file_path);
    if (error) job.error = error;
    this.deps.sink?.runEnded({ job_id: job.id, status, usage: job.usage, files_changed: job.files_changed, history: this.deps.session.history });
    this.deps.emit({ job_id: job.id, kind: "done", status, text: job.text, ...(error ? { message: error.message } : {}) });
  }

  private async run(job: JobRecord, params: AskParams): Promise<void> {
    const { session } = this.deps;
    const signal = job.controller.signal;
    if (signal.aborted) return this.end(job, "cancelled");
    let model: Model;
    try {
      model = await this.deps.model();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return this.end(job, "failed", { code: isModelError(error) ? error.code : "internal_error", message });
    }
    const ctx: ToolContext = {
      workspace: this.deps.workspace(),
      signal,
      approve: this.deps.approve,
      jobId: job.id,
      ...(this.deps.journal ? { journal: this.deps.journal } : {}),
      session,
      ...(this.deps.corrector ? { corrector: this.deps.corrector } : {}),
      ...(this.deps.conditions ? { conditions: this.deps.conditions() } : {}),
      ...(this.deps.diagnostics ? { diagnostics: this.deps.diagnostics } : {}),
      ...(this.deps.commands ? { commands: this.deps.commands } : {}),
    };
    this.deps.emit({ job_id: job.id, kind: "status", status: "running", message: `Asking ${model.name}`, prompt: params.prompt });

    const generation = session.generation;
    const read = (file: string): Promise<Envelope> => invokeTool("read_file", { file_path: file }, ctx);
    // After a resume: the files the stored conversation showed that changed since, before the prompt.
    const changedSince = (await this.deps.sink?.runStarted({ job_id: job.id, prompt: params.prompt, model: model.name }, session.history, read)) ?? "";
    const prompt = changedSince + (await this.promptText(params, ctx));
    const onTurnEnd = (history: readonly Message[], usage: Usage): void => this.deps.sink?.turnEnded(job.id, history, usage);
    let toolless = this.deps.toolCalling?.() === false;
    let calls = 0;
    const runner: ToolRunner = {
      declarations: () => (toolless ? [] : [...functionDeclarations(ctx.conditions), ...(this.deps.externalTools?.()?.declarations() ?? [])]),
      run: async (call, callSignal) => {
        const file = typeof call.args["file_path"] === "string" ? call.args["file_path"] : undefined;
        const external = this.deps.externalTools?.();
        const isExternal = external?.has(call.name) === true && findTool(call.name, ctx.conditions) === undefined;
        const callKind = isExternal ? "external" : (findTool(call.name, ctx.conditions)?.kind ?? "read");
        const call_id = `${job.id}:${++calls}`;
        this.deps.emit({ job_id: job.id, kind: "tool_call", tool: call.name, ...(file ? { file_path: file } : {}) });
        this.deps.observeTool?.({ phase: "start", job_id: job.id, call_id, call, kind: callKind });
        this.deps.log?.("tool_call", { job_id: job.id, name: call.name, args: call.args });
        const callCtx = { ...ctx, signal: callSignal };
        const result = isExternal && external ? await external.run(call, callCtx) : await invokeTool(call.name, call.args, callCtx);
        this.deps.log?.("tool_result", { job_id: job.id, name: call.name, result });
        this.deps.observeTool?.({ phase: "end", job_id: job.id, call_id, call, kind: callKind, result });
        // A job that ended (cancelled) while the tool ran stays as it ended.
        if (job.status !== "running" || job.controller.signal.aborted) return result;
        const message = result.ok ? String(result.data["message"] ?? readSummary(result.data)) : result.error.message;
        const state = result.data?.["latest_file_state"] as { file_path?: string } | undefined;
        const kind = callKind === "external" ? "modify" : callKind;
        const changed = result.ok && kind === "modify" && result.data["applied"] === true && state?.file_path;
        if (changed && !job.files_changed.includes(changed)) job.files_changed.push(changed);
        // A change across files (apply_patch) names each file's new state.
        const states = result.ok && result.data["applied"] === true ? ((result.data["latest_file_states"] ?? []) as { file_path: string }[]) : [];
        for (const s of states) if (!job.files_changed.includes(s.file_path)) job.files_changed.push(s.file_path);
        job.tool_calls.push({ name: call.name, kind, ...(file ? { file_path: file } : {}), ok: result.ok, message });
        this.deps.emit({ job_id: job.id, kind: "tool_result", tool: call.name, ok: result.ok, message, ...(file ? { file_path: file } : {}) });
        return result;
      },
    };
    const instructions = instructionsSection(await readProjectInstructions(ctx.workspace));
    let system = toolless ? buildToollessPrompt(instructions) : buildSystemPrompt(instructions, ctx.conditions?.wrapped === true, commandsPrompt(ctx));
    const loop = async (): Promise<RunResult> =>
      this.counted(job, await runTurnLoop({
        model,
        tools: runner,
        system,
        history: session.history,
        prompt: [{ text: prompt }],
        limits: this.deps.limits(),
        signal,
        events: {
          onText: (delta) => {
            job.text += delta;
            this.deps.emit({ job_id: job.id, kind: "text", text: delta });
          },
          onTurnEnd,
        },
      }));
    let result = await loop();
    if (!toolless && result.status === "failed" && result.error?.code === "tools_unsupported") {
      // The endpoint refused tools for this model: the same request again, answered with edit blocks.
      toolless = true;
      system = buildToollessPrompt(instructions);
      this.deps.emit({ job_id: job.id, kind: "status", status: "running", message: `${model.name} cannot call tools: asking for edit blocks instead` });
      result = await loop();
    }
    if (session.generation === generation) {
      // A run that stopped half-way ends on a user message; a model note keeps the turns alternating.
      const last = result.history[result.history.length - 1];
      if (result.status !== "done" && last?.role !== "assistant") result.history.push({ role: "assistant", parts: [{ text: `(This request ended: ${result.status}.)` }] });
      session.history = result.history;
    }
    job.text = result.text;
    if (result.status === "done" && toolless) result = await this.editBlockRounds(job, ctx, model, runner, system, result);
    if (result.status === "done") {
      if (!toolless) await this.applyEditBlocksInAnswer(job, ctx);
      await this.removeInstructionLine(params, ctx);
      return this.end(job, "done");
    }
    if (result.status === "cancelled") return this.end(job, "cancelled");
    return this.end(job, "failed", result.error ?? { code: result.status, message: `The run stopped: ${result.status}.` });
  }

  /** Adds a run's token counts to its job and to the session's totals. */
  private counted(job: JobRecord, result: RunResult): RunResult {
    for (const total of [job.usage, this.deps.session.usage]) {
      total.input_tokens += result.usage.input_tokens;
      total.output_tokens += result.usage.output_tokens;
    }
    return result;
  }

  /** The prompt as the model reads it: the user's words, the mentioned files, and where the cursor is. */
  private async promptText(params: AskParams, ctx: ToolContext): Promise<string> {
    const expanded = await expandMentions(params.prompt, ctx);
    if (!params.file_path) return expanded.text;
    let read = await invokeTool("read_file", { file_path: params.file_path }, ctx);
    // A long file comes back as its first 2,000 lines: when the selection lies past them, read around it instead.
    const shownTo = read.ok && read.data["truncated"] === true ? Number(read.data["end_line"]) : Infinity;
    if (params.range && params.range.end.line + 1 > shownTo) {
      read = await invokeTool("read_file", { file_path: params.file_path, offset: Math.max(1, params.range.start.line + 1 - 500) }, ctx);
    }
    if (!read.ok) return `${expanded.text}\n\n(The user is in ${params.file_path}, which could not be read: ${read.error.message})`;
    const where = params.range ? ` Their selection is lines ${params.range.start.line + 1}-${params.range.end.line + 1}.` : "";
    return `${expanded.text}\n\nThe user is working in ${params.file_path}.${where} Its current state:\n${JSON.stringify(read.data)}`;
  }

  /** The `lockstep: …` comment that started the run did its work; take it out (the user asked for this run). */
  private async removeInstructionLine(params: AskParams, ctx: ToolContext): Promise<void> {
    if (!params.instruction_line || !params.file_path) return;
    await invokeTool("edit", { file_path: params.file_path, old_string: params.instruction_line.text + "\n", new_string: "" }, { ...ctx, approve: async () => "apply" });
  }

  /**
   * A model without tool calling: the blocks of its answer are applied (approved,
   * hash-safe, only to files it was given), and when some fail it gets one more
   * round with what failed and the files' current states.
   */
  private async editBlockRounds(job: JobRecord, ctx: ToolContext, model: Model, runner: ToolRunner, system: string, first: RunResult): Promise<RunResult> {
    let result = first;
    let answer = first.text;
    for (let round = 0; ; round++) {
      const applied = await this.applyEditBlocksInAnswer(job, ctx, answer);
      const blocks = (applied?.data?.["blocks"] ?? []) as { file_path: string; status: string; message?: string }[];
      const failed = blocks.filter((b) => b.status !== "applied");
      if (applied === undefined || failed.length === 0 || ctx.signal.aborted || round === TOOLLESS_ROUNDS) return result;
      const states: unknown[] = [];
      for (const file of new Set(failed.map((b) => b.file_path))) {
        const read = await invokeTool("read_file", { file_path: file }, ctx);
        if (read.ok) states.push(read.data);
      }
      const report = failed.map((b) => `- ${b.file_path}: ${b.status}${b.message ? `: ${b.message}` : ""}`).join("\n");
      const prompt = `These edit blocks did not apply:\n${report}\n\nThe files' current states:\n${states.map((st) => JSON.stringify(st)).join("\n")}\n\nWrite the blocks that did not apply again, from these states.`;
      result = this.counted(job, await runTurnLoop({ model, tools: runner, system, history: this.deps.session.history, prompt: [{ text: prompt }], limits: this.deps.limits(), signal: ctx.signal, events: { onTurnEnd: (history, usage) => this.deps.sink?.turnEnded(job.id, history, usage) } }));
      this.deps.session.history = result.history;
      if (result.status !== "done") return result;
      answer = result.text;
      job.text += `\n\n${answer}`;
      this.deps.emit({ job_id: job.id, kind: "text", text: `\n\n${answer}` });
    }
  }

  /**
   * An apply_patch envelope in the answer (OpenAI's models write one even without tools): applied
   * all or none through the apply_patch tool; its files are reported as blocks, so a failure gets
   * the same follow-up round as edit blocks.
   */
  private async applyEnvelopeInAnswer(job: JobRecord, ctx: ToolContext, text: string): Promise<Envelope> {
    const result = await invokeTool("apply_patch", { input: text }, ctx);
    const files = (result.data?.["files"] ?? []) as { file_path: string; status: string; message: string }[];
    const changed = result.ok ? files.map((f) => f.file_path) : [];
    for (const f of changed) if (!job.files_changed.includes(f)) job.files_changed.push(f);
    const message = result.ok ? String(result.data["message"]) : result.error.message;
    job.tool_calls.push({ name: "apply_patch", kind: "modify", ok: result.ok, message });
    this.deps.emit({ job_id: job.id, kind: "tool_result", tool: "apply_patch", ok: result.ok, message });
    const blocks = files.length > 0 ? files.map((f) => ({ ...f, status: f.status === "applied" ? "applied" : "failed" })) : [{ file_path: "(patch)", status: "failed", message }];
    return { ...result, data: { ...result.data, blocks: result.ok ? blocks : blocks.map((b) => ({ ...b, status: "failed" })) } } as Envelope;
  }

  /** Edit blocks the model wrote in its answer are applied like any other change (approved, hash-safe). */
  private async applyEditBlocksInAnswer(job: JobRecord, ctx: ToolContext, text = job.text, envelopes = true): Promise<Envelope | undefined> {
    const envelope = envelopes && hasEnvelope(text) ? await this.applyEnvelopeInAnswer(job, ctx, text) : undefined;
    if (!text.includes("««« EDIT") && !/^<{5,9} SEARCH\s*$/m.test(text)) return envelope;
    // Both spellings in one answer: the blocks are applied too, and the follow-up hears of both.
    if (envelope) {
      const blocks = await this.applyEditBlocksInAnswer(job, ctx, text, false);
      const all = [...((envelope.data?.["blocks"] ?? []) as unknown[]), ...((blocks?.data?.["blocks"] ?? []) as unknown[])];
      return { ...envelope, data: { ...envelope.data, blocks: all } } as Envelope;
    }
    const result = await invokeTool("apply_edit_blocks", { text }, ctx);
    const changed = (result.data?.["files_changed"] ?? []) as string[];
    for (const f of changed) if (!job.files_changed.includes(f)) job.files_changed.push(f);
    const message = result.ok ? `Applied the edit blocks in the answer to ${changed.join(", ") || "no file"}.` : result.error.message;
    job.tool_calls.push({ name: "apply_edit_blocks", kind: "modify", ok: result.ok, message });
    this.deps.emit({ job_id: job.id, kind: "tool_result", tool: "apply_edit_blocks", ok: result.ok, message });
    return result;
  }
}

/** What the system prompt says of commands: nothing when the model cannot run any. */
function commandsPrompt(ctx: ToolContext): { testCommand?: string | undefined } | undefined {
  if (ctx.conditions?.commands !== true || ctx.commands === undefined) return undefined;
  return { testCommand: ctx.commands.settings().testCommand };
}
