// A session's turn as session/update notifications, in order: the model's text and thoughts,
// each tool call from its start to its outcome, a change's diff before it lands, and the
// permission requests that refer to that call. Nothing of a turn goes out after its answer:
// `begin`/`end` mark the job whose updates are live. Knows the protocol only through `AcpPort`.
import type {
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionUpdate,
  ToolCallContent,
  ToolKind,
} from "@agentclientprotocol/sdk";
import type { StreamEvent, ToolCallEvent } from "../agent/events.js";
import type { ApprovalChannels } from "../review/policy.js";
import type { ProposedChange } from "../review/proposal.js";
import type { CallDecision, CallRequest } from "../review/call-approval.js";
import type { ClientFiles } from "./editor-link.js";
import type { AcpPermissions } from "./permission.js";
import type { ClientTerminals } from "./terminal-run.js";
import type { ShownDiff } from "../sessions/format.js";
import { shownOf } from "./shown-diffs.js";
import { diffsOf, type Locations, locationsOf, toolCallEnded, toolCallStarted } from "./updates.js";

/** Keeps what a change's call showed (the session store), so session/load can show it as sent. */
export type ShownRecorder = (jobId: string, callId: string, tool: string, files: ShownDiff[]) => void;

/** What a session needs of the connection. */
export interface AcpPort {
  update(sessionId: string, update: SessionUpdate): Promise<void>;
  requestPermission(
    params: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse>;
  /** The client's files, where it offers fs/read_text_file (and fs/write_text_file); undefined without. */
  files(sessionId: string): ClientFiles | undefined;
  /** The client's terminals, where it offers `terminal`; undefined without. */
  terminals(sessionId: string): ClientTerminals | undefined;
  log(what: string, value: unknown): void;
}

interface OpenCall {
  id: string;
  title: string;
  kind: ToolKind;
  /** The diffs shown for it (sent once, in the update before the question). */
  diffs: ToolCallContent[];
  /** The same diffs as the store keeps them (root-relative paths). */
  shown?: ShownDiff[];
  /** Content that stays in it to its end: the client's terminal the command runs in. */
  embedded: ToolCallContent[];
}

export class TurnUpdates {
  /** The job whose updates go out: none once its answer is decided, so nothing of a turn follows its answer. */
  private turn: string | undefined;
  /** The tool call now running (calls run one after another), its title and kind, and the diffs shown for it. */
  private call: OpenCall | undefined;
  private synthetic = 0;
  /** Files whose last change was refused as stale: the next change that lands on them is a retry. */
  private readonly stale = new Set<string>();
  /** Updates go out in order, and all of a prompt's before its answer. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly sessionId: string,
    private readonly port: AcpPort,
    private readonly permissions: AcpPermissions,
    private readonly where: Locations,
    private readonly record?: ShownRecorder,
  ) {}

  /** Resolves once every update sent so far is out. */
  get sent(): Promise<void> {
    return this.queue;
  }

  /** The tool call running now, if any. */
  get callId(): string | undefined {
    return this.call?.id;
  }

  begin(jobId: string): void {
    this.turn = jobId;
  }

  /** The turn's answer is decided: the call left open is ended, and nothing more of the turn goes out. */
  async end(cancelled: boolean): Promise<void> {
    this.turn = undefined;
    if (this.call)
      this.endOpenCall(
        this.call,
        cancelled
          ? "Cancelled: the turn was cancelled before this call finished."
          : "The turn ended before this call finished.",
      );
    await this.queue;
  }

  /** After the answer: no call is open. */
  reset(): void {
    this.call = undefined;
  }

  send(update: SessionUpdate): void {
    this.queue = this.queue
      .then(() => this.port.update(this.sessionId, update))
      .catch((error: unknown) => this.port.log("update_failed", String(error)));
  }

  onEvent(event: StreamEvent): void {
    if (!this.live(event.job_id)) return;
    if (event.kind === "text" && event.text !== "")
      this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.text } });
    if (event.kind === "thought" && event.text !== "")
      this.send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.text } });
    // Edit blocks in an answer run outside any tool call: their own call ends with their result.
    if (event.kind === "tool_result" && this.call?.id.includes(":edit-blocks:")) {
      const text: ToolCallContent = { type: "content", content: { type: "text", text: event.message } };
      // Landed: the diff shown stays in view. Not landed: the words replace it.
      const shown = event.ok && this.call.diffs.length > 0;
      this.send({
        sessionUpdate: "tool_call_update",
        toolCallId: this.call.id,
        status: event.ok ? "completed" : "failed",
        ...(shown ? {} : { content: [text] }),
      });
      this.call = undefined;
    }
  }

  onToolCall(event: ToolCallEvent): void {
    if (!this.live(event.job_id)) return;
    if (event.phase === "start") {
      const started = toolCallStarted(event, this.where);
      this.call = {
        id: event.call_id,
        title: started.title,
        kind: started.kind ?? "other",
        diffs: [],
        embedded: [],
      };
      this.send({ sessionUpdate: "tool_call", ...started });
      return;
    }
    const open = this.call?.id === event.call_id ? this.call : undefined;
    const shown = open !== undefined && open.diffs.length > 0 ? { title: open.title } : undefined;
    const file = typeof event.call.args["file_path"] === "string" ? event.call.args["file_path"] : undefined;
    const retried =
      file !== undefined && this.stale.has(file) && event.result.ok && event.result.data["applied"] === true;
    if (file !== undefined) {
      if (!event.result.ok && event.result.error.code === "state_mismatch") this.stale.add(file);
      else if (event.result.ok) this.stale.delete(file);
    }
    this.send({
      sessionUpdate: "tool_call_update",
      ...toolCallEnded(event, shown, retried, this.where, open?.embedded ?? []),
    });
    this.call = undefined;
  }

  /**
   * How the session's policy asks over ACP: session/request_permission on the call whose diff
   * the client was just sent (its id, title, kind and files; the diff is not sent again).
   */
  channels(): ApprovalChannels {
    return {
      prompt: () => async (change, signal) => {
        const call = this.callFor(change);
        await this.queue;
        return this.permissions.ask(
          change.tool,
          {
            toolCallId: call.id,
            title: call.title,
            kind: call.kind,
            status: "pending",
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
  async showChange(change: ProposedChange): Promise<void> {
    const call = this.callFor(change);
    // A change across files is one request: a diff per file. A large one is cut to fit a client's line.
    const sized = diffsOf(change, this.where);
    call.diffs.push(...sized.map((d) => d.content));
    const cuts = sized.flatMap((d) => (d.location?.line !== undefined ? [d.location] : []));
    if (this.live(change.job_id)) {
      call.shown = [...(call.shown ?? []), ...shownOf(change, sized)];
      this.record?.(change.job_id!, call.id, change.tool, call.shown);
      this.send({
        sessionUpdate: "tool_call_update",
        toolCallId: call.id,
        content: call.diffs,
        locations: [
          ...cuts,
          ...locationsOf(change, this.where).filter((l) => !cuts.some((c) => c.path === l.path)),
        ],
      });
    }
    await this.queue;
  }

  /** An MCP server's tool, asked about over session/request_permission (the policy decided it must ask). */
  async askCall(request: CallRequest, signal: AbortSignal): Promise<CallDecision | "dismissed"> {
    const id = this.call?.id ?? `lockstep:external:${++this.synthetic}`;
    await this.queue;
    return this.permissions.askCall(
      request.name,
      request.server,
      {
        toolCallId: id,
        status: "pending",
        title: `${request.server}: ${request.tool}`,
        kind: "other",
        rawInput: request.args,
      },
      signal,
    );
  }

  /** Content that stays in the running call to its end (the terminal a command runs in), sent now. */
  embed(content: ToolCallContent): void {
    const call = this.call;
    if (!call) return;
    call.embedded.push(content);
    this.send({ sessionUpdate: "tool_call_update", toolCallId: call.id, content: [...call.embedded] });
  }

  private endOpenCall(call: OpenCall, words: string): void {
    this.call = undefined;
    this.send({
      sessionUpdate: "tool_call_update",
      toolCallId: call.id,
      status: "failed",
      content: [...call.embedded, { type: "content", content: { type: "text", text: words } }],
    });
  }

  /** Whether an update of this job may still go out (its turn has not been answered). */
  private live(jobId: string | undefined): boolean {
    return jobId !== undefined && jobId === this.turn;
  }

  /** The tool call a change belongs to; edit blocks in an answer have none, so they get their own. */
  private callFor(change: ProposedChange): OpenCall {
    // A tool still running after its turn was answered is shown nothing: a call of its own, never sent.
    if (!this.live(change.job_id))
      return {
        id: `${change.job_id ?? "lockstep"}:late`,
        title: change.tool,
        kind: "edit",
        diffs: [],
        embedded: [],
      };
    if (this.call) return this.call;
    const id = `${change.job_id ?? "lockstep"}:edit-blocks:${++this.synthetic}`;
    const names = (change.files ?? [change]).map((f) => f.file_path).join(", ");
    this.call = { id, title: `${change.tool} ${names}`, kind: "edit", diffs: [], embedded: [] };
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
}
