// mcp/: the MCP servers the agent uses (the user's settings' and an ACP client's), one
// code path for both, connected through the MCP SDK's client. Their tools are offered to
// the model beside lockstep's own under names prefixed by their server, each call asked
// about through the session's approval (lockstep cannot know what another server's tool
// does), each result bounded like any tool's. Knows nothing of the doors (LSP, ACP, the
// terminal): a door gives the servers and the approval, and reads the status.
import type { FunctionCall, FunctionDeclaration } from "../agent/model.js";
import type { ExternalTools } from "../agent/run.js";
import type { McpServerConfig } from "../config/mcp-servers.js";
import { argumentsTooDeep } from "../jsonrpc/limits.js";
import { errorEnvelope, okEnvelope, type Envelope } from "../tools/envelope.js";
import type { ToolContext } from "../tools/tool.js";
import { ServerConnection, type ServerStatus } from "./server-connection.js";
import { functionName, resultText } from "./tool-shape.js";

/** One call as the approval sees it. `trusted`: the user's file marks the server `trust: true`. */
export interface McpCallRequest {
  /** The name the model called (`mcp__server__tool`): what "always allow this tool" remembers. */
  name: string;
  server: string;
  tool: string;
  args: Record<string, unknown>;
  trusted: boolean;
}

/** true: run it; false or `{ reason }`: the user declined (saying why); "undecided": nobody decided. */
export type McpApproval = (
  request: McpCallRequest,
  ctx: ToolContext,
) => Promise<boolean | "undecided" | { reason: string }>;

/** A server to connect and where it was configured (a file's path, or `client`). */
export interface McpSource {
  config: McpServerConfig;
  from: string;
}

interface Offered {
  connection: ServerConnection;
  tool: string;
  declaration: FunctionDeclaration;
}

export class McpTools implements ExternalTools {
  private readonly connections: ServerConnection[];
  private offered = new Map<string, Offered>();
  private built = 0;

  constructor(
    sources: readonly McpSource[],
    cwd: () => string,
    private readonly approve: McpApproval,
    /** Problems found before connecting (an entry left out, a name given twice): part of the status. */
    readonly problems: readonly string[] = [],
    /** Tells the user once of each problem and each server that did not start (the editor's message). */
    private readonly warn?: (message: string) => void,
  ) {
    this.connections = sources.map((s) => new ServerConnection(s.config, s.from, cwd));
    for (const problem of problems) warn?.(`lockstep: ${problem}.`);
  }

  /**
   * Starts every server not yet started, all at once, each bounded by its timeout: the first
   * request waits for them, later ones do not. A server that fails is in the status, not an error.
   */
  async prepare(names?: readonly string[]): Promise<void> {
    const wanted = this.connections.filter((c) => names === undefined || names.includes(c.config.name));
    const fresh = wanted.filter((c) => c.state.status === "not started");
    await Promise.all(wanted.map((c) => c.start()));
    for (const c of fresh) {
      if (c.state.status !== "failed") continue;
      const stderr = c.state.stderr ? ` (last stderr: ${c.state.stderr})` : "";
      this.warn?.(
        `lockstep: the MCP server ${c.config.name} did not start: ${c.state.error ?? "no reason given"}${stderr}. Its tools are not offered; lockstep config says more.`,
      );
    }
  }

  declarations(): FunctionDeclaration[] {
    return [...this.table().values()].map((o) => o.declaration);
  }

  has(name: string): boolean {
    return this.table().has(name);
  }

  status(): ServerStatus[] {
    return this.connections.map((c) => ({
      ...c.state,
      tools: [...c.state.tools],
      skipped: [...c.state.skipped],
    }));
  }

  async run(call: FunctionCall, ctx: ToolContext): Promise<Envelope> {
    const offered = this.table().get(call.name);
    if (!offered) return errorEnvelope("not_found", `No tool ${call.name} in this session.`);
    const tooDeep = argumentsTooDeep(call.name, call.args);
    if (tooDeep !== undefined) return errorEnvelope("invalid_argument", tooDeep);
    const { connection, tool } = offered;
    const server = connection.config.name;
    const request: McpCallRequest = {
      name: call.name,
      server,
      tool,
      args: call.args,
      trusted: connection.config.trust && connection.state.from !== "client",
    };
    const approved = await this.approve(request, ctx);
    if (approved === "undecided") {
      return errorEnvelope(
        "cancelled",
        `Cancelled: no decision on the call of ${tool} on the MCP server ${server}. Nothing was run; the user did not reject it.`,
        ["Tell the user the call was not decided; offer it again if they still want it."],
      );
    }
    if (approved !== true) {
      const said = typeof approved === "object" ? ` The user said: ${JSON.stringify(approved.reason)}` : "";
      return errorEnvelope(
        "rejected",
        `Rejected: the user declined the call of ${tool} on the MCP server ${server}. Nothing was run.${said}`,
        [
          said === ""
            ? "Ask the user what they want instead; do not retry the same call."
            : "Do what the user said instead; do not retry the same call.",
        ],
      );
    }
    if (ctx.signal.aborted) return errorEnvelope("cancelled", "Cancelled: the tool was not run.");
    try {
      const result = await connection.call(tool, call.args, ctx.signal);
      const { text, truncated } = resultText(result.content, result.structuredContent);
      if (result.isError === true)
        return errorEnvelope(
          "io_error",
          `The MCP server ${server} answered ${tool} with an error: ${text || "(no message)"}`,
        );
      return okEnvelope({
        message: `${server} ${tool}: done${truncated ? " (result cut to its head and tail)" : ""}.`,
        result: text,
        ...(truncated ? { truncated } : {}),
      });
    } catch (error) {
      if (ctx.signal.aborted) return errorEnvelope("cancelled", `Cancelled while ${tool} ran on ${server}.`);
      const why = (error instanceof Error ? error.message : String(error)).slice(0, 800);
      return errorEnvelope("io_error", `The MCP server ${server} failed on ${tool}: ${why}`);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }

  /** The tools on offer, rebuilt when a server has listed its tools since; names stay stable in the process. */
  private table(): Map<string, Offered> {
    const listed = this.connections.reduce((n, c) => n + c.tools().length, 0);
    if (listed === this.built) return this.offered;
    const taken = new Set<string>();
    const next = new Map<string, Offered>();
    for (const connection of this.connections) {
      for (const t of connection.tools()) {
        const name = functionName(connection.config.name, t.name, taken);
        const declaration: FunctionDeclaration = {
          name,
          description: `${t.description} (tool ${t.name} of the MCP server ${connection.config.name}; each call asks the user)`,
          parametersJsonSchema: t.inputSchema,
        };
        next.set(name, { connection, tool: t.name, declaration });
      }
    }
    this.offered = next;
    this.built = listed;
    return next;
  }
}
