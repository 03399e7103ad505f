// Binds the companion endpoint (companion/) to this LSP session: the editor's
// PID and name from initialize, its open files from the document events, tool
// calls approved in the editor like the agent's, and openDiff staged through the
// session's approval path. The endpoint starts after `initialized`, off the
// start-up path, and only loads the MCP SDK when an agent connects.
import { fileURLToPath } from "node:url";
import type { InitializeParams, TextDocuments } from "vscode-languageserver";
import type { TextDocument } from "vscode-languageserver-textdocument";
import { Companion, type CompanionFacts } from "../companion/companion.js";
import { ideInfoOf } from "../companion/discovery.js";
import type { CallInfo } from "../companion/tool-catalog.js";
import { workspaceReviewer } from "../companion/workspace-reviewer.js";
import type { Journal } from "../review/journal.js";
import {
  sessionApprover,
  type AllowedTools,
  type ApprovalChannels,
  type ApprovalMode,
} from "../review/policy.js";
import type { ProposedChange } from "../review/proposal.js";
import type { DiagnosticsView } from "../diagnostics/types.js";
import type { ToolConditions, ToolContext } from "../tools/tool.js";
import type { Workspace } from "../workspace/workspace.js";
import type { OpenDocuments } from "./documents.js";

export interface CompanionDeps {
  documents: TextDocuments<TextDocument>;
  open: OpenDocuments;
  approvalMode: () => ApprovalMode;
  /** The session's prompt and review desk: agents' changes are asked about as the built-in agent's are. */
  channels: ApprovalChannels;
  journal: Journal;
  log: (what: string, value: unknown) => void;
  warn: (message: string) => void;
  /** Which conditional tools exist (wrap mode, the provider): agents get what the built-in agent gets. */
  conditions?: () => ToolConditions;
  /** A wrapped language server's diagnostics (wrap mode). */
  diagnostics?: DiagnosticsView;
}

/** The change as the user is asked about it: which agent wants it, so "always allow" is per agent and tool. */
function fromAgent(change: ProposedChange, label: string): ProposedChange {
  return Object.create(change, { tool: { value: label, enumerable: true } }) as ProposedChange;
}

const pathOf = (uri: string): string | undefined => {
  if (!uri.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
};

export class CompanionBinding {
  private companion: Companion | undefined;
  /** Why there is no endpoint: not started yet, turned off, or the error it failed with. */
  private failure = "starting (after the editor's initialized notification)";
  private editorPid = process.ppid;
  private clientName: string | undefined;
  /** "Always allow" given to agents lives apart from the built-in agent's. */
  private readonly allowed: AllowedTools = { alwaysAllowed: new Set<string>() };

  constructor(private readonly deps: CompanionDeps) {
    const touched = (uri: string): void => {
      const file = pathOf(deps.open.realUri(uri));
      if (file) this.companion?.fileTouched(file);
    };
    deps.documents.onDidOpen((e) => touched(e.document.uri));
    deps.documents.onDidChangeContent((e) => touched(e.document.uri));
    deps.documents.onDidClose((e) => {
      const file = pathOf(deps.open.realUri(e.document.uri));
      if (file) this.companion?.fileClosed(file);
    });
  }

  /** From initialize: whose PID names the discovery file, and the editor's name. */
  prepare(params: InitializeParams): void {
    if (typeof params.processId === "number" && params.processId > 0) this.editorPid = params.processId;
    this.clientName = params.clientInfo?.name;
  }

  async start(workspace: Workspace, enabled: boolean): Promise<void> {
    if (this.companion) return;
    if (!enabled) {
      this.failure = 'off (setting "companion": false)';
      return;
    }
    const approve = sessionApprover(this.allowed, this.deps.approvalMode, this.deps.channels);
    const toolContext = (call: CallInfo): ToolContext => ({
      workspace,
      signal: call.signal,
      approve: (change, signal) => approve(fromAgent(change, `${change.tool} from ${call.client}`), signal),
      journal: this.deps.journal,
      ...(this.deps.conditions ? { conditions: this.deps.conditions() } : {}),
      ...(this.deps.diagnostics ? { diagnostics: this.deps.diagnostics } : {}),
    });
    try {
      this.companion = await Companion.start({
        editorPid: this.editorPid,
        roots: workspace.sandbox.roots,
        ideInfo: ideInfoOf(this.clientName),
        toolContext,
        ...(this.deps.conditions ? { conditions: this.deps.conditions } : {}),
        // openDiff is reviewed hunk by hunk every time, whatever "always allow" or `approval` say: the agent asked for a review.
        reviewer: workspaceReviewer({
          workspace,
          approve: async (change, signal) => ({
            reviewed: (await this.deps.channels.review(change, signal)).reviewed,
          }),
          journal: this.deps.journal,
          warn: this.deps.warn,
        }),
        log: this.deps.log,
      });
      // Files opened before the endpoint was up.
      for (const doc of this.deps.documents.all()) {
        const file = pathOf(this.deps.open.realUri(doc.uri));
        if (file) this.companion.fileTouched(file);
      }
    } catch (error) {
      this.failure = error instanceof Error ? error.message : String(error);
      this.deps.warn(
        `lockstep: the companion endpoint for other agents could not start (${this.failure}). Set "companion": false to turn it off.`,
      );
    }
  }

  facts(): CompanionFacts | { enabled: false; reason: string } {
    return this.companion ? this.companion.facts() : { enabled: false, reason: this.failure };
  }

  reset(): void {
    this.allowed.alwaysAllowed.clear();
  }

  async stop(): Promise<void> {
    const companion = this.companion;
    this.companion = undefined;
    await companion?.stop();
  }
}
