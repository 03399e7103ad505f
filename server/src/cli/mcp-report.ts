// `lockstep config`'s account of the user's MCP servers: each one started (all at once, each
// bounded by its timeout), listed and closed again, so a server that cannot start, dies or
// never answers is named with why and its last stderr line before an agent run needs it.
import { configuredMcpServers, userFileOf } from "../config/mcp-servers.js";
import { isTrusted } from "../config/trust.js";
import { McpTools } from "../mcp/mcp-tools.js";
import type { ServerStatus } from "../mcp/server-connection.js";

export interface McpProbe {
  file: string;
  servers: ServerStatus[];
  problems: string[];
}

export async function probeMcpServers(root: string): Promise<McpProbe> {
  // The project's servers as the agent would see them: only in a trusted folder.
  const { servers, problems } = configuredMcpServers({
    root,
    trusted: isTrusted(root, process.env),
    env: process.env,
  });
  const tools = new McpTools(
    servers,
    () => root,
    () => Promise.resolve(false),
    problems,
  );
  try {
    await tools.prepare();
    return { file: userFileOf(process.env), servers: tools.status(), problems };
  } finally {
    await tools.close();
  }
}

export function mcpReport(probe: McpProbe): string[] {
  if (probe.servers.length === 0 && probe.problems.length === 0) return [];
  const out = ["", `  MCP servers (mcpServers in ${probe.file}; started here to check them):`];
  for (const s of probe.servers) {
    const what =
      s.status === "connected"
        ? `connected, ${s.tools.length} tools`
        : `${s.status}: ${s.error ?? "no reason given"}`;
    out.push(`    ${s.name} (${s.transport})  ${what}`);
    if (s.status !== "connected" && s.stderr) out.push(`      last stderr: ${s.stderr}`);
    for (const skipped of s.skipped)
      out.push(`      tool ${JSON.stringify(skipped.tool)} not offered: ${skipped.reason}`);
  }
  for (const p of probe.problems) out.push(`! ${p}`);
  return out;
}
