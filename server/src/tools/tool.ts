// What a tool is. One definition serves the LSP command, the CLI and the model's
// function declaration, so they cannot drift apart.
import type * as z from "zod";
import type { Envelope } from "./envelope.js";
import type { Workspace } from "../workspace/workspace.js";
import type { Reader } from "./phrasing.js";
import type { Approver } from "../review/proposal.js";
import type { Journal } from "../review/journal.js";
import type { DiagnosticsView } from "../diagnostics/types.js";
import type { CommandAccess } from "./command-question.js";

/** The kind, not a list of names, decides approval and what may run in parallel. */
export type ToolKind = "read" | "modify" | "execute";

/** Optional second chance for `edit` when every matching tier failed (the agent provides it). */
export interface EditCorrector {
  correct(request: CorrectionRequest, signal: AbortSignal): Promise<CorrectionAnswer | undefined>;
}

export interface CorrectionRequest {
  instruction: string;
  old_string: string;
  new_string: string;
  error: string;
  content: string;
}

export interface CorrectionAnswer {
  search: string;
  replace: string;
  noChangesRequired: boolean;
  explanation: string;
}

/** Facts of the agent's conversation a tool may read or record (which files the model has seen). */
export interface ConversationContext {
  /** Workspace-relative paths whose content the model received in this conversation. */
  readonly filesInContext: Set<string>;
  /** The sha256 of each file as the model last received it (a read or a write's answer); a change across files is checked against it. */
  readonly seenSha256?: Map<string, string>;
}

export interface ToolContext {
  workspace: Workspace;
  signal: AbortSignal;
  approve: Approver;
  /** Every change that lands is written here, so a job (or a command) can be reverted. */
  journal?: Journal;
  /** The agent job this call belongs to; none for a command the user ran. */
  jobId?: string;
  conversation?: ConversationContext;
  corrector?: EditCorrector;
  /** Which conditional tools exist for this caller (see `ToolConditions`); none when absent. */
  conditions?: ToolConditions;
  /** Work-done progress, where the front door can show it. */
  progress?: (message: string, percentage?: number) => void;
  /** Who reads the answers: a model (the default) or a person at a shell, whose advice names commands (see `phrasing.ts`). */
  reader?: Reader;
  /** A wrapped language server's diagnostics (wrap mode): `get_diagnostics`, and `diagnostics_after` on every change. */
  diagnostics?: DiagnosticsView;
  /** What run_command needs from the door: settings, its prompt, the session's answers, live output. */
  commands?: CommandAccess;
}

/**
 * Facts of the running server that decide which conditional tools exist (a
 * wrapped language server, the model's provider). Absent fields mean "no".
 */
export interface ToolConditions {
  /** lockstep runs in front of another language server (`--wrap`). */
  wrapped?: boolean;
  /** The agent's model provider, when one is configured. */
  provider?: string;
  /** The settings offer the model OpenAI's apply_patch tool (provider openai, `patchTool`). */
  patchTool?: "apply_patch";
  /** The agent may run commands (`commands` is not "off" and the door supplies `CommandAccess`). */
  commands?: boolean;
}

export interface Tool<Schema extends z.ZodType = z.ZodType> {
  name: string;
  /** What the model reads: the usage protocol in plain words. */
  description: string;
  kind: ToolKind;
  /** `commands`: an LSP and CLI command only, never declared to a model (edit blocks come from its text). */
  audience?: "everyone" | "commands";
  /** For a commands-only tool: whether the model is offered it under these conditions all the same. */
  offered?(conditions: ToolConditions): boolean;
  /** For a tool that exists only under a condition: whether it exists under these. Absent: always. */
  available?(conditions: ToolConditions): boolean;
  /** Where `available` says no: what the caller is told, with how to get the tool. */
  unavailable?: string;
  /** Validates every argument and is the JSON Schema the model is shown. */
  params: Schema;
  run(args: z.output<Schema>, ctx: ToolContext): Promise<Envelope>;
}

/** Keeps the schema's inferred type attached to `run` while storing tools in one list. */
export function defineTool<Schema extends z.ZodType>(tool: Tool<Schema>): Tool<Schema> {
  return tool;
}
