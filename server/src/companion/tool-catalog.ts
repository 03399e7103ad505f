// What the companion offers over MCP, without the MCP SDK: lockstep's own tools
// from the one registry (the model's declarations: same names, descriptions and
// schemas, answers as the same envelopes) and the companion spec's tools. The
// SDK-facing files turn these into tools/list and tools/call.
import { functionDeclarations, findTool, invokeTool } from "../tools/registry.js";
import type { Envelope } from "../tools/envelope.js";
import type { ToolConditions, ToolContext } from "../tools/tool.js";

/** Who is calling: the MCP session and the agent's name from its initialize. */
export interface CallInfo {
  signal: AbortSignal;
  /** The MCP session id over HTTP; "stdio" for `lockstep mcp` on the disk. */
  session: string;
  /** clientInfo.name of the agent (e.g. "gemini-cli-mcp-client", "claude-code"). */
  client: string;
}

export interface ToolAnswer {
  content: { type: "text"; text: string }[];
  isError?: boolean;
}

export interface McpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
  call(args: Record<string, unknown>, call: CallInfo): Promise<ToolAnswer>;
}

/** An envelope as a tool result: its JSON as the one text block; a refusal is an error result. */
export function envelopeAnswer(envelope: Envelope): ToolAnswer {
  return envelope.ok
    ? { content: [{ type: "text", text: JSON.stringify(envelope) }] }
    : { content: [{ type: "text", text: JSON.stringify(envelope) }], isError: true };
}

export function errorAnswer(message: string): ToolAnswer {
  return { content: [{ type: "text", text: message }], isError: true };
}

/**
 * lockstep's tools, exactly as its own model is given them under the same conditions (get_diagnostics
 * only in wrap mode, …); modifying ones ask for approval through the context.
 */
export function registryTools(
  context: (call: CallInfo) => ToolContext,
  conditions: ToolConditions = {},
): McpTool[] {
  return functionDeclarations(conditions).map((declaration) => {
    const readOnly = findTool(declaration.name, conditions)?.kind === "read";
    return {
      name: declaration.name,
      description: declaration.description,
      inputSchema: declaration.parametersJsonSchema,
      annotations: { readOnlyHint: readOnly, destructiveHint: !readOnly },
      call: async (args, call) =>
        envelopeAnswer(await invokeTool(declaration.name, args, { ...context(call), conditions })),
    };
  });
}

export function unknownToolAnswer(name: string, tools: readonly McpTool[]): ToolAnswer {
  return errorAnswer(`Unknown tool \`${name}\`. Tools: ${tools.map((t) => t.name).join(", ")}.`);
}
