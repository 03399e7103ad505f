// One ACP session: a workspace rooted at the session's cwd (the client's
// buffers where it offers them), lockstep's own agent (assembled by
// assembly/assemble-agent.ts, as for the language server) and its events turned into
// session/update notifications. Knows the protocol only through `AcpPort`.
import type {
  McpServer,
  PromptResponse,
  ToolKind,
  SessionModeState,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionConfigOption,
  SessionUpdate,
  ToolCallContent,
  ContentBlock,
} from "@agentclientprotocol/sdk";
import type { AgentService } from "../agent/agent-service.js";
import type { Conversation } from "../agent/conversation.js";
import type { StreamEvent, ToolCallEvent } from "../agent/events.js";
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
import type { ApprovalChannels } from "../review/policy.js";
import type { ProposedChange } from "../review/proposal.js";
import type { CallDecision, CallRequest } from "../review/call-approval.js";
import type { McpTools } from "../mcp/mcp-tools.js";
import type { Sandbox } from "../workspace/sandbox.js";
import { Workspace } from "../workspace/workspace.js";
import { applyConfigOption, approvalModes, configOptions, type SessionTrust } from "./config-options.js";
import { acpCommandDoor } from "./command-door.js";
import { AcpEditorLink, type ClientFiles } from "./editor-link.js";
import { clientServers, type ClientServers } from "./mcp-servers.js";
import { AcpPermissions } from "./permission.js";
import { promptText } from "./prompt.js";
import { replayUpdates } from "./history-replay.js";
import { diffsOf, Locations, locationsOf, toolCallEnded, toolCallStarted } from "./updates.js";

/** What a session needs of the connection. */
export interface AcpPort {
  update(sessionId: string, update: SessionUpdate): Promise<void>;
  requestPermission(
    params: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse>;
  /** The client's files, where it offers fs/read_text_file (and fs/write_text_file); undefined without. */
  files(sessionId: string): ClientFiles | undefined;
  log(what: string, value: unknown): void;
}

interface OpenCall {
  id: string;
  title: string;
  kind: ToolKind;
  diffs: ToolCallContent[];
}

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
  private readonly permissions: AcpPermissions;
  private readonly where: Locations;
  private readonly mcp: () => McpTools;
  /** The MCP servers the client passed with session/new. */
  private client: ClientServers = { sources: [], refused: [] };
  /** The job now running, if any: one prompt at a time. */
  private running: string | undefined;
  /** The job whose updates go out: none once its answer is decided, so nothing of a turn follows its answer. */
  private turn: string | undefined;
  /** The tool call now running (calls run one after another), its title and kind, and the diffs shown for it. */
  private call: OpenCall | undefined;
  private synthetic = 0;
  /** Files whose last change was refused as stale: the next change that lands on them is a retry. */
  private readonly stale = new Set<string>();
  /** Updates go out in order, and all of a prompt's before its answer. */
  private sent: Promise<void> = Promise.resolve();

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
    this.workspace = new Workspace(
      sandbox,
      files ? { editor: new AcpEditorLink(files, sandbox.roots[0]!, cwd) } : {},
    );
    this.where = new Locations(cwd);
    this.permissions = new AcpPermissions(id, port.requestPermission);
    const assembled = assembleAgent({
      settings: () => this.settings,
      store: () => store,
      // The store names the session's file by this session's id, so session/load finds it by the id the client holds.
      sessionId: () => id,
      ports: {
        workspace: () => this.workspace,
        approvalMode: () => this.approvalMode(),
        channels: this.channels(),
        beforeApproval: (change) => this.showChange(change),
        emit: (event) => this.onEvent(event),
        observeTool: (event) => this.onToolCall(event),
        mcpServers: () => this.client.sources,
        callPrompt: () => (request, signal) => this.askCall(request, signal),
        log: port.log,
        warn: (message) => port.log("sessions", message),
        commands: acpCommandDoor({
          sessionId: id,
          request: port.requestPermission,
          callId: () => this.call?.id,
          sent: () => this.sent,
          send: (update) => this.send(update),
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
      this.send({
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "```json\n" + JSON.stringify(this.status(), null, 2) + "\n```" },
      });
      await this.sent;
      return { ok: true, response: { stopReason: "end_turn" } };
    }
    const started = this.agent.ask({ prompt: text.text });
    if (!started.ok) return { ok: false, code: "invalid", message: started.error.message };
    const jobId = String(started.data["job_id"]);
    this.running = jobId;
    this.turn = jobId;
    try {
      const job = await this.agent.settled(jobId);
      // The turn's answer is decided: what its tools do from now on (a read or a write the client
      // still owes, a permission answered late) is not sent; the call left open is ended here.
      this.turn = undefined;
      if (this.call)
        this.endOpenCall(
          this.call,
          job?.status === "cancelled"
            ? "Cancelled: the turn was cancelled before this call finished."
            : "The turn ended before this call finished.",
        );
      await this.sent;
      if (!job || job.status === "cancelled") return { ok: true, response: { stopReason: "cancelled" } };
      if (job.status === "done") return { ok: true, response: { stopReason: "end_turn" } };
      const error = job.error ?? { code: "failed", message: "The run failed." };
      if (error.code === "turn_limit" || error.code === "tool_call_limit") {
        this.send({
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: `\n\n${error.message}` },
        });
        await this.sent;
        return { ok: true, response: { stopReason: "max_turn_requests" } };
      }
      return { ok: false, code: error.code === "no_api_key" ? "auth" : "failed", message: error.message };
    } finally {
      this.running = undefined;
      this.call = undefined;
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
      ))
        this.send(update);
      await this.sent;
    }
    return resumed;
  }

  private approvalMode(): "ask" | "auto" {
    // ACP has no hunk-by-hunk review: "review" asks per change, as "ask" does.
    return this.settings.approval === "auto" ? "auto" : "ask";
  }

  private endOpenCall(call: OpenCall, words: string): void {
    this.call = undefined;
    this.send({
      sessionUpdate: "tool_call_update",
      toolCallId: call.id,
      status: "failed",
      content: [...call.diffs, { type: "content", content: { type: "text", text: words } }],
    });
  }

  /** Whether an update of this job may still go out (its turn has not been answered). */
  private live(jobId: string | undefined): boolean {
    return jobId !== undefined && jobId === this.turn;
  }

  private send(update: SessionUpdate): void {
    this.sent = this.sent
      .then(() => this.port.update(this.id, update))
      .catch((error: unknown) => this.port.log("update_failed", String(error)));
  }

  private onEvent(event: StreamEvent): void {
    if (!this.live(event.job_id)) return;
    if (event.kind === "text" && event.text !== "")
      this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.text } });
    if (event.kind === "thought" && event.text !== "")
      this.send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.text } });
    // Edit blocks in an answer run outside any tool call: their own call ends with their result.
    if (event.kind === "tool_result" && this.call?.id.includes(":edit-blocks:")) {
      const text: ToolCallContent = { type: "content", content: { type: "text", text: event.message } };
      this.send({
        sessionUpdate: "tool_call_update",
        toolCallId: this.call.id,
        status: event.ok ? "completed" : "failed",
        content: [...this.call.diffs, text],
      });
      this.call = undefined;
    }
  }

  private onToolCall(event: ToolCallEvent): void {
    if (!this.live(event.job_id)) return;
    if (event.phase === "start") {
      const started = toolCallStarted(event, this.where);
      this.call = { id: event.call_id, title: started.title, kind: started.kind ?? "other", diffs: [] };
      this.send({ sessionUpdate: "tool_call", ...started });
      return;
    }
    const diffs = this.call?.id === event.call_id ? this.call.diffs : [];
    const file = typeof event.call.args["file_path"] === "string" ? event.call.args["file_path"] : undefined;
    const retried =
      file !== undefined && this.stale.has(file) && event.result.ok && event.result.data["applied"] === true;
    if (file !== undefined) {
      if (!event.result.ok && event.result.error.code === "state_mismatch") this.stale.add(file);
      else if (event.result.ok) this.stale.delete(file);
    }
    this.send({ sessionUpdate: "tool_call_update", ...toolCallEnded(event, diffs, retried, this.where) });
    this.call = undefined;
  }

  /** The tool call a change belongs to; edit blocks in an answer have none, so they get their own. */
  private callFor(change: ProposedChange): OpenCall {
    // A tool still running after its turn was answered is shown nothing: a call of its own, never sent.
    if (!this.live(change.job_id))
      return { id: `${change.job_id ?? "lockstep"}:late`, title: change.tool, kind: "edit", diffs: [] };
    if (this.call) return this.call;
    const id = `${change.job_id ?? "lockstep"}:edit-blocks:${++this.synthetic}`;
    const names = (change.files ?? [change]).map((f) => f.file_path).join(", ");
    this.call = { id, title: `${change.tool} ${names}`, kind: "edit", diffs: [] };
    this.send({
      sessionUpdate: "tool_call",
      toolCallId: id,
      title: this.call.title,
      kind: "edit",
      status: "in_progress",
      locations: locationsOf(change, this.where),
    });
    return this.call;
  }

  /** How the session's policy asks over ACP: session/request_permission, with the call's diffs. */
  private channels(): ApprovalChannels {
    return {
      prompt: () => async (change, signal) => {
        const call = this.callFor(change);
        await this.sent;
        return this.permissions.ask(
          change.tool,
          {
            toolCallId: call.id,
            title: call.title,
            kind: call.kind,
            status: "pending",
            content: call.diffs,
            locations: locationsOf(change, this.where),
          },
          signal,
        );
      },
      // Never reached: the prompt above always answers. Declining is the safe answer if it were.
      review: async () => ({ reviewed: { hunks: [{ hunk_id: "all", status: "rejected" }] }, always: false }),
    };
  }

  /** Every change is shown as a diff before anything lands; then the session's policy decides. */
  private async showChange(change: ProposedChange): Promise<void> {
    const call = this.callFor(change);
    // A change across files is one request: a diff per file.
    call.diffs.push(...diffsOf(change, this.where));
    if (this.live(change.job_id))
      this.send({
        sessionUpdate: "tool_call_update",
        toolCallId: call.id,
        content: call.diffs,
        locations: locationsOf(change, this.where),
      });
    await this.sent;
  }

  /** An MCP server's tool, asked about over session/request_permission (the policy decided it must ask). */
  private async askCall(request: CallRequest, signal: AbortSignal): Promise<CallDecision | "dismissed"> {
    const id = this.call?.id ?? `lockstep:external:${++this.synthetic}`;
    await this.sent;
    return this.permissions.askCall(
      request.name,
      request.server,
      {
        toolCallId: id,
        status: "pending",
        title: `${request.server}: ${request.tool}`,
        rawInput: request.args,
      },
      signal,
    );
  }
}
