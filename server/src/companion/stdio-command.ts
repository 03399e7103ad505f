// `lockstep mcp`: MCP over stdio for agents configured by a command line (Claude
// Code, Codex, opencode, gemini-cli's mcpServers). With an editor session whose
// workspace holds the current directory, it relays every message to that
// session's endpoint, so the agent reads the unsaved buffers and its writes are
// approved in the editor. Without one it serves the same tools on the disk.
import { parseArgs } from "node:util";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { Sandbox } from "../workspace/sandbox.js";
import { Workspace } from "../workspace/workspace.js";
import { findSessions, type FoundSession } from "./discovery.js";
import { MCP_PATH } from "./http-endpoint.js";
import { createMcpServer } from "./mcp-server.js";
import { BoundedStdioTransport } from "./stdio-lines.js";
import { registryTools } from "./tool-catalog.js";

export const MCP_USAGE = `lockstep mcp [--port N] [--root DIR] [--disk]
  MCP over stdio. Relays to the editor session whose workspace holds DIR (default: the
  current directory; --port picks one session); with none, or with --disk, serves the
  files on disk (versions null, sha256 locks still enforced).`;

type Err = (s: string) => void;

export function diskInstructions(root: string, why: string): string {
  return [
    `lockstep serves the files on disk under ${root}: ${why}`,
    "read_file and read_many_files return `version: null` (no editor buffer is seen) and `sha256`.",
    "Every write names the sha256 it was built on (`base_content_sha256`); if the file changed since, nothing is written and the current state is returned: rebuild the change from it.",
    "Start the editor with lockstep first to work on its unsaved buffers instead.",
  ].join("\n");
}

export async function runMcpCommand(args: string[], stderr: Err): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { port: { type: "string" }, root: { type: "string" }, disk: { type: "boolean" } },
  });
  if (positionals.length > 0)
    throw new Error(`mcp takes no positional arguments (got ${positionals.join(" ")})`);
  if (values.port !== undefined && !/^\d+$/.test(values.port))
    throw new Error(`--port takes a port number (got ${values.port})`);
  const root = values.root ?? process.cwd();
  const port = values.port === undefined ? undefined : Number(values.port);
  if (values.disk) return serveDisk(root, "started with --disk.", stderr);
  const [session] = await findSessions(root, port);
  if (session) return relay(session, stderr);
  if (port !== undefined) {
    stderr(
      `lockstep mcp: no editor session on port ${port} whose workspace holds ${root}. Run \`lockstep mcp\` without --port to use the disk, or check the port with the lockstep.session command in the editor.\n`,
    );
    return 1;
  }
  return serveDisk(root, "no editor session with lockstep holds this directory.", stderr);
}

async function serveDisk(root: string, why: string, stderr: Err): Promise<number> {
  const sandbox = await Sandbox.create([root]);
  const workspace = new Workspace(sandbox);
  // The agent asks its user before calling a tool; there is no editor here to ask again.
  const tools = registryTools((call) => ({ workspace, signal: call.signal, approve: async () => "apply" }));
  const server = createMcpServer(
    { tools: () => tools, instructions: diskInstructions(sandbox.roots[0]!, why) },
    () => "stdio",
  );
  const transport = new BoundedStdioTransport(stderr);
  const closed = new Promise<number>((resolve) => (transport.onclose = () => resolve(0)));
  await server.connect(transport);
  process.stdin.once("end", () => void server.close());
  return closed;
}

const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: string | number; method: string } =>
  "method" in m && "id" in m;

/** Passes every message both ways unchanged; the editor session answers initialize, so its instructions reach the agent. */
async function relay(session: FoundSession, stderr: Err): Promise<number> {
  const { port, authToken } = session.info;
  const upstream = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}${MCP_PATH}`), {
    requestInit: { headers: { Authorization: `Bearer ${authToken}` } },
  });
  const downstream = new BoundedStdioTransport(stderr);
  const initializeIds = new Set<string | number>();
  let lost: string | undefined;

  downstream.onmessage = (message) => {
    if (isRequest(message) && message.method === "initialize") initializeIds.add(message.id);
    upstream.send(message).catch((error: unknown) => {
      lost = error instanceof Error ? error.message : String(error);
      stderr(`lockstep mcp: the editor session on port ${port} did not take a message: ${lost}\n`);
      if (isRequest(message)) {
        void downstream.send({
          jsonrpc: "2.0",
          id: message.id,
          error: {
            code: -32603,
            message: `lockstep: the editor session on port ${port} is gone (${lost}). Restart lockstep mcp: it connects to the next session, or serves the disk.`,
          },
        });
      }
    });
  };
  upstream.onmessage = (message) => {
    if ("id" in message && "result" in message && initializeIds.delete(message.id)) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === "string") upstream.setProtocolVersion(version);
    }
    void downstream.send(message);
  };
  upstream.onerror = (error) => stderr(`lockstep mcp: ${error.message}\n`);

  const closed = new Promise<number>((resolve) => {
    downstream.onclose = () => {
      void upstream
        .terminateSession()
        .catch(() => undefined)
        .finally(() => void upstream.close());
      resolve(lost === undefined ? 0 : 1);
    };
  });
  await upstream.start();
  await downstream.start();
  process.stdin.once("end", () => void downstream.close());
  stderr(
    `lockstep mcp: relaying to the editor session ${session.info.ideInfo?.displayName ?? ""} on port ${port} (${session.file}).\n`,
  );
  return closed;
}
