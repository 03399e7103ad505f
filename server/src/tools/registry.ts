// tools/: the tools. Knows nothing of protocols, models or the agent.
// The one list of tools. LSP commands, the CLI and the model's function
// declarations all come from here, and every argument is validated here first.
import { argumentsTooDeep } from "../jsonrpc/limits.js";
import * as z from "zod";
import { closestNames } from "../workspace/suggest.js";
import { applyEditBlocks } from "./apply-edit-blocks.js";
import { applyPatch } from "./apply-patch-tool.js";
import { getDiagnostics } from "./diagnostics-tools.js";
import { errorEnvelope, type Envelope } from "./envelope.js";
import { listFiles, readFile, readManyFiles } from "./read-tools.js";
import { phrasedFor } from "./phrasing.js";
import { runCommandTool } from "./run-command.js";
import { findFiles, searchFiles } from "./search-tools.js";
import type { Tool, ToolConditions, ToolContext } from "./tool.js";
import { edit, safePatch, writeFile } from "./write-tools.js";

/** Every tool, conditional ones included; `toolsFor` says which exist in a running server. */
export const TOOLS: readonly Tool[] = [
  readFile,
  readManyFiles,
  listFiles,
  searchFiles,
  findFiles,
  writeFile,
  safePatch,
  edit,
  applyEditBlocks,
  applyPatch,
  getDiagnostics,
  runCommandTool,
];

/** The tools that exist under these conditions (a tool without `available` always does). */
export function toolsFor(conditions: ToolConditions = {}, tools: readonly Tool[] = TOOLS): Tool[] {
  return tools.filter((t) => t.available === undefined || t.available(conditions));
}

/** The tools a model is given: every existing tool but the commands-only ones. */
export function modelTools(conditions: ToolConditions = {}): Tool[] {
  return toolsFor(conditions).filter((t) => t.audience !== "commands" || t.offered?.(conditions) === true);
}

export function findTool(name: string, conditions: ToolConditions = {}): Tool | undefined {
  return toolsFor(conditions).find((t) => t.name === name);
}

/** Names each problem by its field, in words a model can act on. */
export function describeIssues(tool: string, error: z.ZodError): string {
  const parts = error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join(".") : "(arguments)";
    if (issue.code === "unrecognized_keys")
      return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `\`${k}\``).join(", ")}`;
    if (issue.code === "invalid_type" && issue.input === undefined) return `\`${field}\` is required`;
    return `\`${field}\` ${issue.message}`;
  });
  return `Invalid arguments for ${tool}: ${parts.join("; ")}.`;
}

export interface FunctionDeclaration {
  name: string;
  description: string;
  parametersJsonSchema: Record<string, unknown>;
}

export function jsonSchemaOf(tool: Tool): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.params, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  delete schema["$schema"];
  return schema;
}

export function declarationOf(tool: Tool): FunctionDeclaration {
  return { name: tool.name, description: tool.description, parametersJsonSchema: jsonSchemaOf(tool) };
}

/** What the model is shown: one declaration per model tool existing under these conditions. */
export function functionDeclarations(conditions: ToolConditions = {}): FunctionDeclaration[] {
  return modelTools(conditions).map(declarationOf);
}

/**
 * Validates, then runs. Expected failures come back as envelopes, phrased for the
 * context's reader; a thrown error is a bug, reported as internal_error.
 */
export async function invokeTool(name: string, rawArgs: unknown, ctx: ToolContext): Promise<Envelope> {
  return phrasedFor(await validateAndRun(name, rawArgs, ctx), ctx.reader ?? "model");
}

async function validateAndRun(name: string, rawArgs: unknown, ctx: ToolContext): Promise<Envelope> {
  const existing = toolsFor(ctx.conditions);
  const tool = existing.find((t) => t.name === name);
  if (!tool) {
    const absent = TOOLS.find((t) => t.name === name)?.unavailable;
    if (absent !== undefined) return errorEnvelope("invalid_argument", absent);
    const near = closestNames(
      name,
      existing.map((t) => t.name),
    );
    return errorEnvelope(
      "invalid_argument",
      `Unknown tool \`${name}\`. Tools: ${existing.map((t) => t.name).join(", ")}.`,
      near.map((n) => `Did you mean ${n}?`),
    );
  }
  // Validation walks the arguments by recursion: too deep a value is refused before it.
  const tooDeep = argumentsTooDeep(name, rawArgs);
  if (tooDeep !== undefined) return errorEnvelope("invalid_argument", tooDeep);
  const parsed = tool.params.safeParse(rawArgs ?? {});
  if (!parsed.success) {
    const again =
      ctx.reader === "shell"
        ? "Run the command again with the arguments its --help shows."
        : `Call ${name} again with arguments that match its schema.`;
    return errorEnvelope("invalid_argument", describeIssues(name, parsed.error), [again]);
  }
  if (ctx.signal.aborted) return errorEnvelope("cancelled", "Cancelled before it started; nothing was done.");
  try {
    return await tool.run(parsed.data, ctx);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return errorEnvelope(
      "internal_error",
      `Internal Error: ${name} failed unexpectedly (${message}). Nothing was applied; please report this.`,
    );
  }
}
