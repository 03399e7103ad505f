// One ACP session: a workspace rooted at the session's cwd (the client's
// buffers where it offers them), lockstep's own agent (assembled by
// assembly/assemble-agent.ts, as for the language server) and its events turned into
// session/update notifications (turn-updates.ts). Knows the protocol only through `AcpPort`.
import type {
  McpServer,
  PromptResponse,
  SessionModeState,
  SessionConfigOption,
  ContentBlock,
} from "@agentclientprotocol/sdk";
import type { AgentService } from "../agent/agent-service.js";
import type { Conversation } from "../agent/conversation.js";
import { assembleAgent } from "../assembly/assemble-agent.js";
import type { Settings } from "../config/settings.js";
import type { Journal } from "../review/journal.js";
import {
  loadIntoConversation,
  type Found,
  type SessionRecorder,
  type SessionStore,
  type StoredSession,
} from "../sessions/index.js";
import type { McpTools } from "../mcp/mcp-tools.js";
import type { Sandbox } from "../workspace/sandbox.js";
import { Workspace } from "../workspace/workspace.js";
import { applyConfigOption, approvalModes, configOptions, type SessionTrust } from "./config-options.js";
import { acpCommandDoor } from "./command-door.js";
import { AcpEditorLink } from "./editor-link.js";
import { clientServers, type ClientServers } from "./mcp-servers.js";
import { AcpPermissions } from "./permission.js";
import { promptText } from "./prompt.js";
import { replayUpdates } from "./history-replay.js";
import { Locations } from "./updates.js";
import { TurnUpdates, type AcpPort } from "./turn-updates.js";

export type { AcpPort };

export type PromptOutcome =
  | { ok: true; response: PromptResponse }
  | { ok: false; code: "busy" | "invalid" | "auth" | "failed"; message: string };

export class AcpSession {
  readonly conversation: Conversation;
  readonly workspace: Workspace;
  readonly agent: AgentService;
  /** Every change applied in this session, kept in the session store with the conversation. */
  private readonly journal: Journal;
  private readonly recorder: SessionRecorder;
  private readonly where: Locations;
  private readonly updates: TurnUpdates;
  private readonly mcp: () => McpTools;
  /** The MCP servers the client passed with session/new. */
  private client: ClientServers = { sources: [], refused: [] };
  /** The job now running, if any: one prompt at a time. */
  private running: string | undefined;

  constructor(
    readonly id: string,
    readonly cwd: string,
    sandbox: Sandbox,
    private settings: Settings,
    private readonly port: AcpPort,
    /** The project's session store; undefined with the `sessions` setting false. */
    store: SessionStore | undefined,
  ) {
    const files = port.files(id);
    const link = files ? new AcpEditorLink(files, sandbox.roots[0]!, cwd) : undefined;
    this.workspace = new Workspace(sandbox, link ? { editor: link } : {});
    this.where = new Locations(cwd);
    // Once the user answers a question, the client's text is read again before anything is written.
    const request: AcpPort["requestPermission"] = (params, signal) =>
      port.requestPermission(params, signal).finally(() => link?.decided());
    this.updates = new TurnUpdates(id, port, new AcpPermissions(id, request), this.where, (...shown) =>
      this.recorder.shown(...shown),
    );
    const updates = this.updates;
    const assembled = assembleAgent({
      settings: () => this.settings,
      store: () => store,
      // The store names the session's file by this session's id, so session/load finds it by the id the client holds.
      sessionId: () => id,
      ports: {
        workspace: () => this.workspace,
        approvalMode: () => this.approvalMode(),
        channels: updates.channels(),
        beforeApproval: (change) => updates.showChange(change),
        emit: (event) => updates.onEvent(event),
        observeTool: (event) => updates.onToolCall(event),
        mcpServers: () => this.client.sources,
        callPrompt: () => (request, signal) => updates.askCall(request, signal),
        log: port.log,
        warn: (message) => port.log("sessions", message),
        commands: acpCommandDoor({
          sessionId: id,
          request,
          callId: () => updates.callId,
          sent: () => updates.sent,
          send: (update) => updates.send(update),
          terminals: port.terminals(id),
          embed: (content) => updates.embed(content),
        }),
      },
    });
    this.agent = assembled.agent;
    this.conversation = assembled.conversation;
    this.journal = assembled.journal;
    this.recorder = assembled.recorder;
    this.mcp = assembled.mcp;
  }

  /** Writes the session's file now (session/new): it exists, listed and loadable, before its first prompt. */
  storeNow(): void {
    this.recorder.begin();
  }

  /**
   * Connects the MCP servers the client passed (the client expects them up with the session);
   * the settings' servers join them and start with the first prompt. Each one's state is in the status.
   */
  async connectMcp(servers: readonly McpServer[]): Promise<void> {
    this.client = clientServers(servers);
    if (this.client.sources.length > 0)
      await this.mcp().prepare(this.client.sources.map((s) => s.config.name));
  }

  /** The folder's trust, when the session was opened with the settings of its root. */
  trust: SessionTrust | undefined;

  configOptions(): SessionConfigOption[] {
    return configOptions(this.settings, this.trust);
  }

  /** The folder was trusted: its settings read again, in full. The next model call uses them. */
  trusted(settings: Settings, trust: SessionTrust): void {
    this.settings = settings;
    this.trust = trust;
  }

  modes(): SessionModeState {
    return approvalModes(this.settings);
  }

  /** Sets one config option; a message when the id or value is not one this session offers. */
  setConfigOption(configId: string, value: string): { ok: true } | { ok: false; message: string } {
    const next = applyConfigOption(this.settings, configId, value);
    if (!next.ok) return next;
    this.settings = next.settings;
    return { ok: true };
  }

  /** What `/session` shows: the session's facts, as lockstep.session does in an editor. */
  status(): Record<string, unknown> {
    return {
      session_id: this.id,
      cwd: this.cwd,
      provider: this.settings.provider,
      model: this.settings.model ?? null,
      approval: this.approvalMode(),
      editor_files: this.port.files(this.id)
        ? this.port.files(this.id)?.write
          ? "read and write"
          : "read only (writes go to disk, over disk text only)"
        : "none (the disk)",
      mcp_servers: [...this.client.refused, ...this.mcp().status()],
      ...(this.mcp().problems.length > 0 ? { mcp_problems: this.mcp().problems } : {}),
      stored: this.recorder.live(),
      ...this.conversation.facts(),
    };
  }

  async prompt(blocks: readonly ContentBlock[]): Promise<PromptOutcome> {
    if (this.running !== undefined) {
      return {
        ok: false,
        code: "busy",
        message:
          "A prompt is already running in this session: lockstep runs one at a time. Wait for it to end, or cancel it (session/cancel) first.",
      };
    }
    const text = await promptText(blocks, this.workspace.sandbox);
    if (!text.ok) return { ok: false, code: "invalid", message: text.message };
    if (/^\/session\s*$/.test(text.text)) {
      this.updates.send({
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "```json\n" + JSON.stringify(this.status(), null, 2) + "\n```" },
      });
      await this.updates.sent;
      return { ok: true, response: { stopReason: "end_turn" } };
    }
    const started = this.agent.ask({ prompt: text.text });
    if (!started.ok) return { ok: false, code: "invalid", message: started.error.message };
    const jobId = String(started.data["job_id"]);
    this.running = jobId;
    this.updates.begin(jobId);
    try {
      const job = await this.agent.settled(jobId);
      // The turn's answer is decided: what its tools do from now on (a read or a write the client
      // still owes, a permission answered late) is not sent; the call left open is ended here.
      await this.updates.end(job?.status === "cancelled");
      if (!job || job.status === "cancelled") return { ok: true, response: { stopReason: "cancelled" } };
      if (job.status === "done") return { ok: true, response: { stopReason: "end_turn" } };
      const error = job.error ?? { code: "failed", message: "The run failed." };
      if (error.code === "turn_limit" || error.code === "tool_call_limit") {
        this.updates.send({
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: `\n\n${error.message}` },
        });
        await this.updates.sent;
        return { ok: true, response: { stopReason: "max_turn_requests" } };
      }
      return { ok: false, code: error.code === "no_api_key" ? "auth" : "failed", message: error.message };
    } finally {
      this.running = undefined;
      this.updates.reset();
    }
  }

  /** Stops the running turn: the model stream, the running tool and a pending permission request. */
  cancel(): void {
    if (this.running !== undefined) this.agent.cancel({ job_id: this.running });
  }

  async close(): Promise<void> {
    this.cancel();
    this.agent.cancelAll();
    this.recorder.close();
    await this.mcp().close();
  }

  /**
   * Continues the stored session of this id: its history, usage and journal become this session's,
   * and the store appends to its file from now on. `replay`: its conversation is sent as
   * session/updates first (session/load); session/resume does not.
   */
  async resumeStored(replay: boolean): Promise<Found<StoredSession>> {
    const resumed = this.recorder.resume(this.id);
    if (!resumed.ok) return resumed;
    loadIntoConversation(resumed.value, this.conversation, this.journal);
    if (replay) {
      for (const update of replayUpdates(
        resumed.value.history,
        resumed.value.runs.map((r) => r.prompt),
        this.where,
        resumed.value.journal,
        { jobs: resumed.value.runs.map((r) => r.job_id), shown: resumed.value.shown },
      ))
        this.updates.send(update);
      await this.updates.sent;
    }
    return resumed;
  }

  private approvalMode(): "ask" | "auto" {
    // ACP has no hunk-by-hunk review: "review" asks per change, as "ask" does.
    return this.settings.approval === "auto" ? "auto" : "ask";
  }
}
