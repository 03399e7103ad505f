// The one file that binds LSP to the domain: each handler converts params,
// calls into tools/, workspace/ or agent/, and converts the answer back.
import { fileURLToPath } from "node:url";
import {
  createConnection,
  DidChangeConfigurationNotification,
  ProposedFeatures,
  TextDocuments,
  MessageType,
  ShowMessageNotification,
  type CancellationToken,
  type CodeAction,
  type InitializeParams,
  type InitializeResult,
} from "vscode-languageserver/node.js";
import { TextDocument } from "vscode-languageserver-textdocument";
import { stdioTransport } from "./transport.js";
import { sessionApprover } from "../agent/approvals.js";
import { ModelEditCorrector } from "../agent/corrector.js";
import { AgentService } from "../agent/jobs.js";
import type { Model } from "../agent/model.js";
import { ModelFactory } from "../agent/providers/factory.js";
import { Session } from "../agent/session.js";
import { errorEnvelope, okEnvelope, type Envelope } from "../tools/envelope.js";
import { findTool, invokeTool } from "../tools/registry.js";
import { Sandbox } from "../workspace/sandbox.js";
import { Workspace } from "../workspace/workspace.js";
import { VERSION } from "../version.js";
import { agentActions } from "./agent-actions.js";
import { ApprovalDesk } from "./approval.js";
import { clientFlags, serverCapabilities, type ClientFlags } from "./capabilities.js";
import { editBlockActions, patchActions } from "./code-actions.js";
import { commandNames, executeCommand, type AgentCommand } from "./commands.js";
import { CompanionBinding } from "./companion-binding.js";
import { OpenDocuments } from "./documents.js";
import { LspEditorLink } from "./editor-link.js";
import { JobEvents } from "./job-events.js";
import { readSettings, DEFAULT_SETTINGS, type Settings } from "./settings.js";
import { signalOf } from "./cancellation.js";

/** Roots from the initialize params: workspace folders, else rootUri, else the current directory. */
function rootsOf(params: InitializeParams): string[] {
  const folders = params.workspaceFolders?.map((f) => f.uri) ?? [];
  const uris = folders.length > 0 ? folders : params.rootUri ? [params.rootUri] : [];
  const paths = uris.filter((u) => u.startsWith("file:")).map((u) => fileURLToPath(u));
  if (paths.length === 0 && params.rootPath) paths.push(params.rootPath);
  return paths.length > 0 ? paths : [process.cwd()];
}

/** Whether the key the provider reads is set (never the key itself). */
function keyFound(settings: Settings): boolean {
  const names = settings.apiKeyEnv !== undefined ? [settings.apiKeyEnv] : settings.provider === "openai" ? ["OPENAI_API_KEY"] : ["GEMINI_API_KEY", "GOOGLE_API_KEY"];
  return names.some((n) => (process.env[n] ?? "").trim() !== "");
}

export async function runServer(argv: string[]): Promise<number> {
  // Our own reader over stdin: it ends the process on a broken frame instead of going silent.
  const transport = stdioTransport();
  const connection = createConnection(ProposedFeatures.all, transport.reader, transport.writer);
  const textDocuments = new TextDocuments(TextDocument);
  const open = new OpenDocuments(textDocuments);
  const session = new Session();
  let flags: ClientFlags = clientFlags({});
  let settings: Settings = DEFAULT_SETTINGS;
  let workspace: Workspace | undefined;
  const debugFlag = argv.includes("--debug");
  const debug = (what: string, value: unknown): void => {
    if (debugFlag || settings.debug) process.stderr.write(JSON.stringify({ time: new Date().toISOString(), [what]: value }) + "\n");
  };
  // A notification that cannot be sent (the client went away mid-run) must not take the server down.
  process.on("unhandledRejection", (reason) => {
    process.stderr.write(`lockstep: ${reason instanceof Error ? reason.message : String(reason)}\n`);
  });
  const notify = (type: MessageType, message: string): void => void connection.sendNotification(ShowMessageNotification.type, { type, message });
  const warn = (message: string): void => notify(MessageType.Warning, message);

  const applySettings = (raw: unknown): void => {
    const read = readSettings(raw, settings);
    settings = read.settings;
    if (read.problems.length > 0) warn(`lockstep settings: ${read.problems.join("; ")}. Defaults are used for those.`);
  };
  const fetchSettings = async (): Promise<void> => {
    if (!flags.configuration) return;
    try {
      const [section] = (await connection.workspace.getConfiguration([{ section: "lockstep" }])) as unknown[];
      if (section !== null && section !== undefined) applySettings(section);
    } catch {
      // A client that advertises configuration but fails to answer keeps its initializationOptions.
    }
  };

  const models = new ModelFactory(() => settings);
  const currentModel = (): Promise<Model> => models.current();
  const desk = new ApprovalDesk(connection, () => flags, (uri) => open.editorUri(uri));
  const requireWorkspace = (): Workspace => {
    if (!workspace) throw new Error("the server is not initialized");
    return workspace;
  };
  const companion = new CompanionBinding({ documents: textDocuments, open, approvalMode: () => settings.approval, prompt: desk.prompt, log: debug, warn });
  const events = new JobEvents(connection, () => flags, () => ({ setting: settings.transcript, root: workspace?.sandbox.roots[0] ?? process.cwd() }), warn);
  const agent = new AgentService({
    workspace: requireWorkspace,
    session,
    model: currentModel,
    approve: sessionApprover(session, () => settings.approval, desk.prompt),
    corrector: new ModelEditCorrector(currentModel),
    emit: events.emit,
    log: debug,
    limits: () => ({ maxTurns: settings.maxTurns, maxToolCalls: settings.maxToolCalls }),
    toolCalling: () => settings.tools,
  });

  const agentCommand = async (command: AgentCommand, args: unknown): Promise<Envelope> => {
    switch (command) {
      case "ask": {
        const started = agent.ask(args);
        if (started.ok) events.showTranscript();
        return started;
      }
      case "job":
        return agent.job(args);
      case "cancel":
        return agent.cancel(args);
      case "session":
        return okEnvelope({ ...session.facts(), project_instructions: await agent.projectInstructions(), provider: settings.provider, model: settings.model ?? (settings.provider === "gemini" ? "gemini-2.5-flash" : null), baseUrl: settings.baseUrl ?? null, key_found: keyFound(settings), approval: settings.approval, version: VERSION, companion: companion.facts() });
      case "reset_session":
        agent.cancelAll();
        desk.rejectAll();
        session.reset();
        companion.reset();
        return okEnvelope({ message: "Session cleared: history, files in context and every 'always allow' are gone." });
      case "decide": {
        const a = (args ?? {}) as { id?: unknown; decision?: unknown };
        const decision = a.decision === "apply" || a.decision === "always" || a.decision === "reject" ? a.decision : undefined;
        if (typeof a.id !== "string" || !decision) return errorEnvelope("invalid_argument", "lockstep.decide needs {id, decision: apply | always | reject}.");
        return desk.decide(a.id, decision) ? okEnvelope({ id: a.id, decision }) : errorEnvelope("not_found", `No staged change ${a.id}; it was decided or cancelled already.`);
      }
    }
  };

  connection.onInitialize(async (params): Promise<InitializeResult> => {
    flags = clientFlags(params.capabilities);
    applySettings(params.initializationOptions);
    const sandbox = await Sandbox.create(rootsOf(params));
    workspace = new Workspace(sandbox, {
      editor: new LspEditorLink(connection, open, flags, () => settings.applyEditTimeoutMs),
      // Read at each delivery: workspace/configuration arrives after initialize.
      get closedFileEdits() {
        return settings.closedFileEdits;
      },
    });
    companion.prepare(params);
    debug("initialize", { roots: sandbox.roots, flags });
    return { capabilities: serverCapabilities(commandNames()), serverInfo: { name: "lockstep", version: VERSION } };
  });

  connection.onInitialized(() => {
    if (flags.configurationChanges) void connection.client.register(DidChangeConfigurationNotification.type, { section: "lockstep" });
    void fetchSettings().then(() => workspace && companion.start(workspace, settings.companion));
  });
  connection.onDidChangeConfiguration((change) => {
    const raw = (change.settings as { lockstep?: unknown } | null)?.lockstep;
    if (raw !== undefined) applySettings(raw);
    else void fetchSettings();
  });

  textDocuments.onDidOpen((e) => workspace?.documentChanged(open.opened(e.document.uri)));
  textDocuments.onDidChangeContent((e) => workspace?.documentChanged(open.realUri(e.document.uri)));
  textDocuments.onDidClose((e) => workspace?.documentChanged(open.closed(e.document.uri)));

  // Bound by method name: the library's own binding reads `params.workDoneToken` first and answers
  // `params: null` with a TypeError. The protocol's shape is a claim; it is checked here.
  connection.onRequest("workspace/executeCommand", async (raw: unknown, token: CancellationToken) => {
    const params = raw as { command?: unknown; arguments?: unknown[] } | null;
    if (typeof params !== "object" || params === null || typeof params.command !== "string") {
      return errorEnvelope("invalid_argument", "Invalid Argument: workspace/executeCommand needs params {command: \"lockstep.<name>\", arguments: [{...}]}; the request had none or a command that is not a string.", [
        "Send the command's name as a string, and its argument object as the one element of arguments.",
      ]);
    }
    if (params.arguments !== undefined && !Array.isArray(params.arguments)) {
      return errorEnvelope("invalid_argument", `Invalid Argument: the arguments of ${params.command} must be a list holding one object.`, ["Send arguments: [{...}]."]);
    }
    const command = params.command;
    const signal = signalOf(token);
    debug("command", { command, arguments: params.arguments });
    let result: Envelope;
    if (!workspace) result = errorEnvelope("internal_error", "Internal Error: the server was not initialized.");
    else {
      const ws = workspace;
      result = await executeCommand(
        {
          toolContext: (s) => ({ workspace: ws, signal: s, approve: async () => "apply", progress: progressReporter() }),
          agent: (command, args) => agentCommand(command, args),
        },
        command,
        params.arguments,
        signal,
      );
    }
    debug("result", result);
    if (!result.ok && findTool(command.slice("lockstep.".length))?.kind === "modify") warn(result.error.message);
    else if (result.ok && command === "lockstep.apply_edit_blocks") {
      const blocks = (result.data["blocks"] ?? []) as unknown[];
      notify(MessageType.Info, `lockstep: ${blocks.length} edit block${blocks.length === 1 ? "" : "s"} ${params.arguments?.[0] && (params.arguments[0] as { dry_run?: boolean }).dry_run ? "checked" : "applied"}.`);
    }
    return result;
  });

  /** $/progress for long commands, created on first use where the client supports it. */
  const progressReporter = (): ((message: string, percentage?: number) => void) | undefined => {
    if (!flags.workDoneProgress) return undefined;
    let reporter: Promise<{ report(p: number, m?: string): void; done(): void }> | undefined;
    let timer: NodeJS.Timeout | undefined;
    return (message, percentage) => {
      reporter ??= connection.window.createWorkDoneProgress().then((r) => {
        r.begin("lockstep", 0, message);
        return r;
      });
      const current = reporter;
      void current.then((r) => {
        r.report(percentage ?? 0, message);
        clearTimeout(timer);
        timer = setTimeout(() => {
          r.done();
          // Ended: a later report begins a new progress rather than reusing a finished token.
          if (reporter === current) reporter = undefined;
        }, 250);
      });
    };
  };

  connection.onCodeAction(async (params): Promise<CodeAction[]> => {
    const doc = open.byEditorUri(params.textDocument.uri);
    if (!doc || !workspace) return [];
    const ws = workspace;
    const text = doc.getText();
    const relative = ws.sandbox.relativize(open.realUri(doc.uri));
    const actions: CodeAction[] = [...desk.actionsFor(params.textDocument.uri), ...editBlockActions(text)];
    actions.push(
      ...(await patchActions(doc.uri, doc.languageId, text, async (target) => {
        const read = await invokeTool("read_file", { file_path: target }, { workspace: ws, signal: new AbortController().signal, approve: async () => "apply" });
        return read.ok ? { file_path: String(read.data["file_path"]), sha256: String(read.data["sha256"]) } : undefined;
      })),
    );
    if (relative !== undefined) actions.push(...agentActions(doc, relative, params.range, params.context.diagnostics));
    return actions;
  });

  connection.onShutdown(() => {
    transport.shutdownReceived();
    agent.cancelAll();
    desk.rejectAll();
    return companion.stop();
  });

  textDocuments.listen(connection);
  connection.listen();
  return new Promise<number>(() => undefined); // the connection ends the process on exit
}
