// companion/: lockstep's tools for agents in a terminal. Knows nothing of LSP (lsp/ binds it).
// The companion endpoint of one editor session: lockstep's tools and gemini-cli's
// IDE companion contract over MCP (Streamable HTTP on loopback), announced by a
// discovery file that lives exactly as long as this process serves it.
// Nothing here knows LSP: the session supplies a tool context, a diff reviewer
// and the editor's open files.
import path from "node:path";
import type { ToolConditions, ToolContext } from "../tools/tool.js";
import { VERSION } from "../version.js";
import { DiffDesk, type DiffReviewer } from "./diff-desk.js";
import {
  discoveryPath,
  removeDiscovery,
  sweepStale,
  sweepStaleSync,
  writeDiscovery,
  type IdeInfo,
} from "./discovery.js";
import type { HttpSessions } from "./http-sessions.js";
import { listenLoopback, newToken, type Endpoint } from "./http-endpoint.js";
import { OpenFiles } from "./open-files.js";
import { registryTools, type CallInfo, type McpTool } from "./tool-catalog.js";

export interface CompanionOptions {
  /** The editor's process id (LSP initialize's processId), which names the discovery file. */
  editorPid: number;
  roots: readonly string[];
  ideInfo: IdeInfo;
  /** The context a tool call from an agent runs in: this session's workspace and approval. */
  toolContext(call: CallInfo): ToolContext;
  /** Which conditional tools exist in this session (as for the built-in agent); read at each listing. */
  conditions?: () => ToolConditions;
  reviewer: DiffReviewer;
  log(what: string, value: unknown): void;
}

/** What lockstep.session shows. Never the token. */
export interface CompanionFacts {
  port: number;
  discovery_file: string;
  /** The line to paste into a terminal that gemini-cli will run in (tie-break between sessions). */
  environment: string;
  agents: number;
  pending_diffs: string[];
}

export function editorInstructions(ide: IdeInfo, roots: readonly string[]): string {
  return [
    `lockstep serves the files of the editor session ${ide.displayName} (${roots.join(", ")}), unsaved buffers included.`,
    "read_file and read_many_files return what the user sees, with `version` (the editor's buffer version, null when read from disk) and `sha256`.",
    "Every write names the sha256 it was built on (`base_content_sha256`); if the text changed since (the user typed), nothing is written and the current state is returned: rebuild the change from it.",
    "Changes land in the editor's buffers, unsaved, once the user approves them in the editor. openDiff and closeDiff follow gemini-cli's IDE companion spec.",
  ].join("\n");
}

let exitHooked = false;
const liveFiles = new Set<string>();

/**
 * One set of handlers per process: the files still announced are removed on
 * exit and on the usual signals, and so are the files of servers that died since.
 */
function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  const remove = (): void => {
    for (const file of liveFiles) removeDiscovery(file);
    sweepStaleSync();
  };
  process.on("exit", remove);
  for (const [signal, code] of [
    ["SIGTERM", 143],
    ["SIGINT", 130],
    ["SIGHUP", 129],
  ] as const) {
    process.once(signal, () => {
      remove();
      process.exit(code);
    });
  }
}

export class Companion {
  private sessions: HttpSessions | undefined;
  private readonly desk: DiffDesk;
  private readonly openFiles: OpenFiles;
  /** The tools for the conditions they were built under (building them renders every JSON schema). */
  private built: { key: string; tools: McpTool[] } | undefined;
  private endpoint: Endpoint | undefined;
  private file: string | undefined;

  private constructor(private readonly options: CompanionOptions) {
    this.desk = new DiffDesk(options.reviewer, (session, method, params) =>
      this.sessions?.notify(session, method, params),
    );
    this.openFiles = new OpenFiles((context) =>
      this.sessions?.broadcast("ide/contextUpdate", { ...context }),
    );
  }

  private tools(): McpTool[] {
    const conditions = this.options.conditions?.() ?? {};
    const key = JSON.stringify(conditions);
    if (this.built?.key === key) return this.built.tools;
    const log = this.options.log;
    // Every agent's call and its answer go to the debug log, as the editor's commands do.
    const tools = [
      ...this.desk.tools(),
      ...registryTools((call) => this.options.toolContext(call), conditions),
    ].map((tool) => ({
      ...tool,
      call: async (args: Record<string, unknown>, call: CallInfo) => {
        log("mcp_call", { client: call.client, tool: tool.name, arguments: args });
        const answer = await tool.call(args, call);
        log("mcp_result", { client: call.client, tool: tool.name, answer });
        return answer;
      },
    }));
    this.built = { key, tools };
    return tools;
  }

  /** Sweeps files of dead servers, listens, writes the discovery file. Throws when it cannot listen or write. */
  static async start(options: CompanionOptions): Promise<Companion> {
    const companion = new Companion(options);
    const swept = await sweepStale();
    if (swept.length > 0) options.log("companion_swept", swept);
    const token = newToken();
    const spec = {
      tools: () => companion.tools(),
      instructions: editorInstructions(options.ideInfo, options.roots),
    };
    const endpoint = await listenLoopback(token, async () => {
      const { HttpSessions } = await import("./http-sessions.js");
      companion.sessions = new HttpSessions(spec, {
        streamOpened: () => companion.openFiles.announce(),
        closed: (session) => companion.desk.sessionClosed(session),
      });
      return companion.sessions.handle;
    });
    companion.endpoint = endpoint;
    hookExit();
    const file = discoveryPath(options.editorPid, endpoint.port);
    liveFiles.add(file);
    try {
      await writeDiscovery(options.editorPid, {
        port: endpoint.port,
        workspacePath: options.roots.join(path.delimiter),
        authToken: token,
        ideInfo: options.ideInfo,
        lockstep: { pid: process.pid, version: VERSION },
      });
    } catch (error) {
      liveFiles.delete(file);
      await endpoint.close();
      throw error;
    }
    companion.file = file;
    options.log("companion", { port: endpoint.port, discovery_file: file });
    return companion;
  }

  facts(): CompanionFacts {
    return {
      port: this.endpoint?.port ?? 0,
      discovery_file: this.file ?? "",
      environment: `GEMINI_CLI_IDE_SERVER_PORT=${this.endpoint?.port ?? 0}`,
      agents: this.sessions?.count ?? 0,
      pending_diffs: this.desk.pending(),
    };
  }

  /** A file was opened or changed in the editor (absolute path). */
  fileTouched(file: string): void {
    this.openFiles.touch(file);
  }

  fileClosed(file: string): void {
    this.openFiles.closed(file);
  }

  async stop(): Promise<void> {
    this.desk.closeAll();
    this.openFiles.dispose();
    if (this.file) {
      removeDiscovery(this.file);
      liveFiles.delete(this.file);
      this.file = undefined;
    }
    await this.sessions?.close();
    await this.endpoint?.close();
  }
}
