// The server's parts, made once per connection and shared by the handlers: the
// composition root. Handlers read the state that initialize fills in (client
// flags, the workspace) through `state`, never through globals.
import {
  MessageType,
  ShowMessageNotification,
  TextDocuments,
  type Connection,
  type Diagnostic,
} from "vscode-languageserver";
import type { TextDocument } from "vscode-languageserver-textdocument";
import type { AgentService } from "../agent/agent-service.js";
import type { Conversation } from "../agent/conversation.js";
import { assembleAgent } from "../assembly/assemble-agent.js";
import { recordChildDiagnostics } from "../diagnostics/child.js";
import { DiagnosticsHub } from "../diagnostics/publication.js";
import type { DiagnosticsRecord } from "../diagnostics/record.js";
import type { WrapLink, WrapStatus } from "../relay/wrap-link.js";
import type { McpTools } from "../mcp/mcp-tools.js";
import type { Journal } from "../review/journal.js";
import type { ApprovalChannels } from "../review/policy.js";
import { ReviewDesk } from "../review/review-desk.js";
import { keySecrets, SessionStore, stateDirectory, type SessionRecorder } from "../sessions/index.js";
import { redact } from "../sessions/format.js";
import { redactTokens } from "../sessions/secrets.js";
import { commandTitle } from "../tools/command-question.js";
import type { ToolConditions } from "../tools/tool.js";
import type { Workspace } from "../workspace/workspace.js";
import { commandPrompt, messagePrompt } from "./approval.js";
import { callPrompt } from "./call-approval-prompt.js";
import { clientFlags, type ClientFlags } from "./capabilities.js";
import { CompanionBinding } from "./companion-binding.js";
import { BatchedTextDocument } from "./document-update.js";
import { OpenDocuments } from "./documents.js";
import { JobEvents } from "./job-events.js";
import { LiveSettings } from "./live-settings.js";
import { scrubUrls } from "../config/shown-url.js";
import { ReviewView } from "./review-view.js";
import { PendingCommands } from "./pending-commands.js";

export interface ServerState {
  flags: ClientFlags;
  workspace: Workspace | undefined;
  /** initialize's clientInfo.name: lockstep's own terminal client asks about trust itself. */
  clientName?: string | undefined;
}

export interface ServerContext {
  readonly connection: Connection;
  readonly documents: TextDocuments<TextDocument>;
  readonly open: OpenDocuments;
  readonly state: ServerState;
  readonly settings: LiveSettings;
  readonly conversation: Conversation;
  /** The MCP servers of the user's settings, started by the first run that can use them. */
  readonly mcp: () => McpTools;
  readonly diagnostics: DiagnosticsHub<Diagnostic>;
  /** Commands waiting as code actions, where the editor shows no prompt. */
  readonly pendingCommands: PendingCommands;
  /** Changes staged for review, hunk by hunk, and how the editor sees them. */
  readonly review: ReviewDesk;
  readonly reviewView: ReviewView;
  /** Every change applied in this process, for lockstep.revert. */
  readonly journal: Journal;
  readonly agent: AgentService;
  /** The project's session store (undefined with `sessions: false` or before initialize). */
  readonly sessions: () => SessionStore | undefined;
  /** The live session's side of the store: what it writes, and resume. */
  readonly recorder: SessionRecorder;
  readonly events: JobEvents;
  readonly companion: CompanionBinding;
  /** Which conditional tools exist: get_diagnostics in wrap mode. */
  readonly conditions: ToolConditions;
  /** The wrapped server's diagnostics, in wrap mode. */
  readonly childDiagnostics: DiagnosticsRecord | undefined;
  /** The wrapped server's state, in wrap mode. */
  readonly wrapStatus: () => WrapStatus | null;
  /** JSON lines on stderr with --debug or the `debug` setting. */
  readonly debug: (what: string, value: unknown) => void;
  readonly notify: (type: MessageType, message: string) => void;
  readonly warn: (message: string) => void;
}

export function createServerContext(
  connection: Connection,
  options: { debug: boolean; wrap?: WrapLink },
): ServerContext {
  const documents = new TextDocuments(BatchedTextDocument);
  const open = new OpenDocuments(documents);
  const state: ServerState = { flags: clientFlags({}), workspace: undefined };
  const flags = (): ClientFlags => state.flags;
  const notify = (type: MessageType, message: string): void =>
    void connection.sendNotification(ShowMessageNotification.type, { type, message }).catch(() => undefined);
  const warn = (message: string): void => notify(MessageType.Warning, message);
  const settings = new LiveSettings(connection, flags, warn);
  const debug = (what: string, value: unknown): void => {
    if (options.debug || settings.current.debug)
      process.stderr.write(
        redactTokens(scrubUrls(JSON.stringify({ time: new Date().toISOString(), [what]: value }))) + "\n",
      );
  };
  // Every publishDiagnostics lockstep sends goes through this hub (diagnostics/publication.ts).
  const diagnostics = new DiagnosticsHub<Diagnostic>(
    (published) => void connection.sendDiagnostics(published).catch(() => undefined),
  );
  const conditions: ToolConditions = options.wrap ? { wrapped: true } : {};
  const childDiagnostics = options.wrap
    ? wrapped(options.wrap, {
        documents,
        open,
        diagnostics,
        waitMs: () => settings.current.diagnosticsWaitMs,
      })
    : undefined;
  const prompt = messagePrompt(connection, () => state.flags.approvalWithDiff);
  const askCommand = commandPrompt(
    connection,
    () => state.flags.approvalCommands,
    (jobId) => agent.stop(jobId),
  );
  const pendingCommands = new PendingCommands(
    (q) =>
      q.job_id !== undefined &&
      events.emit({
        job_id: q.job_id,
        kind: "status",
        status: "running",
        message: `waiting for you: run \`${commandTitle(q.command)}\`? (code actions: run, always, reject)`,
      }),
  );
  // A call's arguments are the model's: a key it quotes is not shown.
  const askCall = callPrompt(
    connection,
    () => state.flags.approvalCalls,
    (text) => redact(text, keySecrets(settings.current.apiKeyEnv)),
    (jobId) => agent.stop(jobId),
  );
  // A prompt for the whole change where the editor has one; else (and in review mode) the change is staged.
  const channels: ApprovalChannels = {
    prompt: () => (state.flags.messageActions ? prompt : undefined),
    review: (change, signal) => review.stage(change, signal),
  };
  const requireWorkspace = (): Workspace => {
    if (!state.workspace) throw new Error("the server is not initialized");
    return state.workspace;
  };
  const events = new JobEvents(
    connection,
    flags,
    () => ({
      setting: settings.current.transcript,
      root: state.workspace?.sandbox.roots[0] ?? process.cwd(),
    }),
    warn,
  );
  const sessions = projectStore(
    () => state.workspace?.sandbox.roots[0],
    () => settings.current,
  );
  const { agent, conversation, journal, recorder, mcp } = assembleAgent({
    settings: () => settings.current,
    store: sessions,
    ports: {
      workspace: requireWorkspace,
      approvalMode: () => settings.current.approval,
      channels,
      callPrompt: () => (state.flags.messageActions ? askCall : undefined),
      emit: events.emit,
      conditions,
      ...(childDiagnostics ? { diagnostics: childDiagnostics } : {}),
      log: debug,
      warn,
      commands: {
        // Where the editor shows no prompt, the command waits as code actions (pending-commands.ts).
        prompt: () => (state.flags.messageActions ? askCommand : pendingCommands.prompt),
        output: (jobId, text) =>
          jobId !== undefined && events.emit({ job_id: jobId, kind: "output", tool: "run_command", text }),
        // The chat's status line and $/progress name the command, not only the tool.
        started: (jobId, command) =>
          jobId !== undefined &&
          events.emit({
            job_id: jobId,
            kind: "status",
            status: "running",
            message: `running \`${commandTitle(command)}\``,
          }),
      },
    },
  });
  const review: ReviewDesk = new ReviewDesk({
    workspace: () => state.workspace,
    journal,
    changed: (uri) => reviewView.refresh(uri),
    waiting: (change) =>
      change.job_id !== undefined &&
      events.emit({
        job_id: change.job_id,
        kind: "status",
        status: "running",
        message: `waiting for review of ${change.file_path}`,
      }),
  });
  const reviewView = new ReviewView(connection, flags, open, diagnostics, () => review);
  const companion = new CompanionBinding({
    documents,
    open,
    approvalMode: () => settings.current.approval,
    channels,
    journal,
    log: debug,
    warn,
    conditions: () => conditions,
    ...(childDiagnostics ? { diagnostics: childDiagnostics } : {}),
  });
  return {
    connection,
    documents,
    open,
    state,
    settings,
    conversation,
    mcp,
    diagnostics,
    pendingCommands,
    review,
    reviewView,
    journal,
    agent,
    sessions,
    recorder,
    events,
    companion,
    conditions,
    childDiagnostics,
    wrapStatus: () => options.wrap?.status() ?? null,
    debug,
    notify,
    warn,
  };
}

/**
 * Wrap mode: the child's diagnostics go to the diagnostics room (recorded for the agent, published merged
 * with lockstep's own); a restarted child re-opens the documents the editor has open.
 */
function wrapped(
  link: WrapLink,
  parts: {
    documents: TextDocuments<TextDocument>;
    open: OpenDocuments;
    diagnostics: DiagnosticsHub<Diagnostic>;
    waitMs: () => number;
  },
): DiagnosticsRecord {
  link.openDocuments(() =>
    parts.documents
      .all()
      .map((d) => ({ uri: d.uri, languageId: d.languageId, version: d.version, text: d.getText() })),
  );
  return recordChildDiagnostics(link, {
    realUri: (uri) => parts.open.realUri(uri),
    hub: parts.diagnostics,
    waitMs: parts.waitMs,
  });
}

/** One store per project root and folder setting, made when first asked for; none with `sessions: false`. */
function projectStore(
  root: () => string | undefined,
  current: () => { sessions: boolean; sessionsDir?: string | undefined; apiKeyEnv?: string | undefined },
): () => SessionStore | undefined {
  let made: SessionStore | undefined;
  return () => {
    const s = current();
    const realRoot = root();
    if (!s.sessions || realRoot === undefined) return undefined;
    const dir = stateDirectory(s.sessionsDir);
    if (made?.realRoot !== realRoot || made.stateDir !== dir)
      made = new SessionStore(realRoot, dir, () => keySecrets(current().apiKeyEnv));
    return made;
  };
}
