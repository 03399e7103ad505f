// One MCP server as lockstep keeps it: started when first needed through the MCP SDK's
// client (stdio or Streamable HTTP), kept for the process's life, its last stderr line
// kept to name why it failed, and restarted on the next use after it died, a few times
// at most. Connecting and listing are bounded by a timeout: a server that never answers
// `initialize` is named, not waited on.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import * as z from "zod";
import type { McpServerConfig } from "../config/mcp-servers.js";
import { checkTool, type ListedTool } from "./tool-shape.js";

export const CONNECT_TIMEOUT_MS = 15_000;
/** How long one tool call may run (progress notifications extend it). */
const CALL_TIMEOUT_MS = 300_000;
/** Restarts after the server died, for the process's life; then it stays down and is reported. */
export const MAX_RESTARTS = 3;
const MAX_PAGES = 20;
const MAX_TOOLS = 200;

export type ConnectionState = "not started" | "starting" | "connected" | "stopped" | "failed";

export interface ServerStatus {
  name: string;
  transport: "stdio" | "http";
  /** Where the server was configured: the user file's path, or `client` for an ACP client's. */
  from: string;
  status: ConnectionState;
  tools: string[];
  /** Tools not offered, and why (an invalid schema, a name too long). */
  skipped: { tool: string; reason: string }[];
  restarts: number;
  error?: string;
  /** The server's last line on stderr (stdio), for a failure's cause. */
  stderr?: string;
}

const LooseList = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });
const LooseCall = z.looseObject({
  content: z.array(z.unknown()).optional(),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().optional(),
});
export type CallResult = z.output<typeof LooseCall>;

const message = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).slice(0, 500);

export class ServerConnection {
  private client: Client | undefined;
  private starting: Promise<void> | undefined;
  private listed: ListedTool[] | undefined;
  /** The transport's last complaint (a line that is not JSON, a message too large), for when it stops. */
  private transportError: string | undefined;
  /** The stdio transport of the current start, whose `dropped` names a server cut off for what it sent. */
  private stdio: { dropped: string | undefined } | undefined;
  readonly state: ServerStatus;

  constructor(
    readonly config: McpServerConfig,
    from: string,
    private readonly cwd: () => string,
  ) {
    this.state = {
      name: config.name,
      transport: config.transport,
      from,
      status: "not started",
      tools: [],
      skipped: [],
      restarts: 0,
    };
  }

  /** The tools listed at the first connection (kept across restarts); empty until then. */
  tools(): readonly ListedTool[] {
    return this.listed ?? [];
  }

  /** Connects once; later calls wait for the same start. A start that failed is not retried. */
  start(): Promise<void> {
    if (this.state.status === "not started") this.starting = this.connect();
    return this.starting ?? Promise.resolve();
  }

  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallResult> {
    if (this.state.status === "stopped") {
      if (this.state.restarts >= MAX_RESTARTS)
        throw new Error(
          `it stopped ${MAX_RESTARTS + 1} times and is not restarted again this session${this.why()}`,
        );
      this.state.restarts++;
      this.starting = this.connect();
    }
    await this.start();
    const client = this.client;
    if (!client || this.state.status !== "connected")
      throw new Error(`it is not running (${this.state.status})${this.why()}`);
    try {
      return await client.request(
        { method: "tools/call", params: { name: tool, arguments: args } },
        LooseCall,
        { signal, timeout: CALL_TIMEOUT_MS, resetTimeoutOnProgress: true },
      );
    } catch (error) {
      if ((this.state.status as ConnectionState) === "stopped") {
        const last = this.transportError ? ` after: ${this.transportError}` : "";
        throw new Error(
          `it stopped while running ${tool}${last}${this.why()}; ${this.state.restarts < MAX_RESTARTS ? "it is restarted on the next call" : "it is not restarted again"}`,
        );
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  private why(): string {
    const parts = [
      this.state.error ? `: ${this.state.error}` : "",
      this.state.stderr ? ` (last stderr: ${this.state.stderr})` : "",
    ];
    return parts.join("");
  }

  private async connect(): Promise<void> {
    this.state.status = "starting";
    delete this.state.error;
    this.transportError = undefined;
    this.stdio = undefined;
    const timeout = this.config.timeout ?? CONNECT_TIMEOUT_MS;
    let client: Client | undefined;
    try {
      const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
      client = new Client({ name: "lockstep", version: "1" });
      const transport = await this.transport();
      const mine = client;
      client.onerror = (error) => (this.transportError = message(error).slice(0, 200));
      client.onclose = () => {
        if (this.client !== mine) return;
        this.client = undefined;
        this.state.status = "stopped";
      };
      await client.connect(transport, { timeout });
      this.client = client;
      if (this.listed === undefined) this.listed = await this.list(client, timeout);
      this.state.status = "connected";
    } catch (error) {
      this.client = undefined;
      await client?.close().catch(() => undefined);
      this.state.status = "failed";
      const dropped = (this.stdio as { dropped: string | undefined } | undefined)?.dropped;
      this.state.error =
        dropped ??
        (/timed out|timeout/i.test(message(error))
          ? `no answer within ${timeout} ms (${message(error)})`
          : message(error));
    }
  }

  private async transport(): Promise<Transport> {
    const c = this.config;
    if (c.transport === "http") {
      const { StreamableHTTPClientTransport } = await import(
        "@modelcontextprotocol/sdk/client/streamableHttp.js"
      );
      return new StreamableHTTPClientTransport(new URL(c.url), { requestInit: { headers: c.headers } });
    }
    const [{ getDefaultEnvironment }, { McpStdioTransport }] = await Promise.all([
      import("@modelcontextprotocol/sdk/client/stdio.js"),
      import("./stdio-transport.js"),
    ]);
    // A small safe environment (PATH, HOME, …) and what the entry names: the model's key is not passed on.
    const env = { ...getDefaultEnvironment(), ...c.env };
    const onStderrLine = (line: string): void => void (this.state.stderr = line);
    const transport = new McpStdioTransport(c.name, {
      command: c.command,
      args: c.args,
      env,
      cwd: c.cwd ?? this.cwd(),
      onStderrLine,
    });
    this.stdio = transport;
    return transport;
  }

  /** Every page of tools/list (bounded); each tool checked on its own, a bad one named and skipped. */
  private async list(client: Client, timeout: number): Promise<ListedTool[]> {
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await client.request(
        { method: "tools/list", params: cursor ? { cursor } : {} },
        LooseList,
        { timeout },
      );
      for (const raw of answer.tools) {
        const checked = checkTool(raw);
        if (!checked.ok) this.state.skipped.push({ tool: checked.name, reason: checked.reason });
        else if (tools.length >= MAX_TOOLS)
          this.state.skipped.push({ tool: checked.tool.name, reason: `more than ${MAX_TOOLS} tools` });
        else tools.push(checked.tool);
      }
      cursor = answer.nextCursor;
      if (!cursor) break;
    }
    this.state.tools = tools.map((t) => t.name);
    return tools;
  }
}
