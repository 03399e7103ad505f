// The one assembly of the agent, for every door (the language server, which `lockstep ask`
// and the demo drive too, and `lockstep acp`): the model from the settings, the
// conversation, the journal and the session store's recorder listening to it, the approval
// policy, the corrector, and the tool conditions the settings decide (`patchTool`). A door
// brings its ports (workspace, approval channels, events, external tools, diagnostics) and
// never its own copy of this wiring, so what is added here reaches every door: the MCP
// servers of the user's settings join a door's own (an ACP client's) here, once.
// assembly/ knows nothing of any protocol: nothing here imports LSP or ACP.
import { baseUrlInUse } from "../config/provider-facts.js";
import { AgentService } from "../agent/agent-service.js";
import { Conversation } from "../agent/conversation.js";
import { ModelEditCorrector } from "../agent/corrector.js";
import type { StreamEvent, ToolCallEvent } from "../agent/events.js";
import { ModelFactory } from "../agent/providers/factory.js";
import { configuredMcpServers } from "../config/mcp-servers.js";
import { isTrusted } from "../config/trust.js";
import type { Settings } from "../config/settings.js";
import { McpTools, type McpSource } from "../mcp/mcp-tools.js";
import { callApprover, type CallPrompt } from "../review/call-approval.js";
import { Journal } from "../review/journal.js";
import { sessionApprover, type ApprovalChannels, type ApprovalMode } from "../review/policy.js";
import type { ProposedChange } from "../review/proposal.js";
import { SessionRecorder, type SessionStore } from "../sessions/index.js";
import { redactTokens } from "../sessions/secrets.js";
import { patchToolCondition } from "../tools/apply-patch-tool.js";
import type { DiagnosticsView } from "../diagnostics/types.js";
import { commandAccess, type CommandDoor } from "../tools/command-question.js";
import type { ToolConditions } from "../tools/tool.js";
import type { Workspace } from "../workspace/workspace.js";

/** What a door supplies: how it reaches the user, the editor and the files. */
export interface AgentPorts {
  /** The workspace runs work in (a door that has none yet throws). */
  workspace: () => Workspace;
  /** The approval mode in force, as this door understands it. */
  approvalMode: () => ApprovalMode;
  /** How this door asks: a prompt where it has one, a review desk where it stages. */
  channels: ApprovalChannels;
  /** Runs before every approval decision (ACP shows the change as a diff first). */
  beforeApproval?: (change: ProposedChange) => Promise<void>;
  emit: (event: StreamEvent) => void;
  /** Each tool call and its result, for a door that shows them one by one (ACP). */
  observeTool?: (event: ToolCallEvent) => void;
  /** MCP servers this door brings (an ACP client's), read at first use; they win over the settings' on a name. */
  mcpServers?: () => readonly McpSource[];
  /** How this door asks about a call of an MCP server's tool; undefined where it cannot (the call is declined). */
  callPrompt?: () => CallPrompt | undefined;
  /** Conditions the door knows of (a wrapped server); the settings' own are added here. */
  conditions?: ToolConditions;
  /** A wrapped language server's diagnostics (wrap mode). */
  diagnostics?: DiagnosticsView;
  /** --debug lines: every tool call and its result. */
  log?: (what: string, value: unknown) => void;
  /** A problem of the session store, for the user. */
  warn: (message: string) => void;
  /** How this door asks about a command and shows its output; without it run_command is not offered. */
  commands?: CommandDoor;
}

export interface AgentAssemblyInput {
  /** The settings in force, read at each use (an editor or a config option may change them). */
  settings: () => Settings;
  /** The project's session store; undefined with `sessions: false` or before there is a root. */
  store: () => SessionStore | undefined;
  /** The stored session's id when the door names it (ACP: the client's session id); a new one when absent. */
  sessionId?: () => string;
  ports: AgentPorts;
}

export interface AssembledAgent {
  agent: AgentService;
  conversation: Conversation;
  /** Every change applied, for revert; the recorder listens to it. */
  journal: Journal;
  recorder: SessionRecorder;
  /** The conditional tools in force: the door's and the settings'. */
  conditions: () => ToolConditions;
  /** The MCP servers (the door's and the user's settings'), made at first use; none start before a run needs them. */
  mcp: () => McpTools;
}

export function assembleAgent({ settings, store, sessionId, ports }: AgentAssemblyInput): AssembledAgent {
  const conversation = new Conversation();
  const journal = new Journal();
  const models = new ModelFactory(settings);
  const model = () => models.current();
  const recorder = new SessionRecorder({
    store,
    provider: () => {
      const s = settings();
      const baseUrl = baseUrlInUse(s);
      return { provider: s.provider, model: s.model ?? null, ...(baseUrl ? { baseUrl } : {}) };
    },
    warn: ports.warn,
    ...(sessionId ? { id: sessionId } : {}),
  });
  journal.listen(recorder);
  const conditions = (): ToolConditions => ({
    ...ports.conditions,
    ...patchToolCondition(settings()),
    commands: ports.commands !== undefined && settings().commands !== "off",
  });
  // "Stop" at a question ends the run the change belongs to.
  const policy = sessionApprover(conversation, ports.approvalMode, ports.channels, (jobId) =>
    agent.stop(jobId),
  );
  const before = ports.beforeApproval;
  const approveCall = callApprover(conversation, ports.approvalMode, () => ports.callPrompt?.());
  let mcp: McpTools | undefined;
  const mcpTools = (): McpTools => {
    if (mcp) return mcp;
    const root = ports.workspace().sandbox.roots[0] ?? process.cwd();
    // A project's servers only in a folder the user trusts.
    const trusted = isTrusted(root, process.env);
    const { servers, problems } = configuredMcpServers({
      root,
      trusted,
      env: process.env,
      door: ports.mcpServers?.() ?? [],
    });
    const cwd = (): string => root;
    mcp = new McpTools(
      servers,
      cwd,
      // The run's job goes with the question: a door that offers "stop" ends that run.
      (request, ctx) =>
        approveCall({ ...request, ...(ctx.jobId !== undefined ? { job_id: ctx.jobId } : {}) }, ctx.signal),
      problems,
      ports.warn,
    );
    return mcp;
  };
  const agent = new AgentService({
    sink: recorder,
    workspace: ports.workspace,
    conversation,
    model,
    approve: before ? async (change, signal) => (await before(change), policy(change, signal)) : policy,
    journal,
    corrector: new ModelEditCorrector(model),
    emit: ports.emit,
    limits: () => ({ maxTurns: settings().maxTurns, maxToolCalls: settings().maxToolCalls }),
    toolCalling: () => settings().tools,
    conditions,
    ...(ports.observeTool ? { observeTool: ports.observeTool } : {}),
    externalTools: mcpTools,
    ...(ports.diagnostics ? { diagnostics: ports.diagnostics } : {}),
    ...(ports.log ? { log: ports.log } : {}),
    ...(ports.commands
      ? { commands: commandAccess(settings, conversation.alwaysAllowed, ports.commands, redactTokens) }
      : {}),
  });
  return { agent, conversation, journal, recorder, conditions, mcp: mcpTools };
}
