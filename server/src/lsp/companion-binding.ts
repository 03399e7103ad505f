// Binds the companion endpoint (companion/) to this LSP session: the editor's
// PID and name from initialize, its open files from the document events, tool
// calls approved in the editor like the agent's, and openDiff staged through the
// session's approval path. The endpoint starts after `initialized`, off the
// start-up path, and only loads the MCP SDK when an agent connects.
import { fileURLToPath } from "node:url";
import type { InitializeParams, TextDocuments } from "vscode-languageserver";
import type { TextDocument } from "vscode-languageserver-textdocument";
import { createTwoFilesPatch } from "diff";
import { sessionApprover, type ApprovalMode, type ApprovalPrompt } from "../agent/approvals.js";
import { Session } from "../agent/session.js";
import { Companion, type CompanionFacts } from "../companion/companion.js";
import type { CurrentText, DiffOutcome, DiffReviewer } from "../companion/diff-desk.js";
import { ideInfoOf } from "../companion/discovery.js";
import type { CallInfo } from "../companion/tool-catalog.js";
import { invokeTool } from "../tools/registry.js";
import type { Approver, ProposedChange, ToolContext } from "../tools/tool.js";
import { readTextFile } from "../workspace/disk.js";
import type { Workspace } from "../workspace/workspace.js";
import type { OpenDocuments } from "./documents.js";

export interface CompanionDeps {
  documents: TextDocuments<TextDocument>;
  open: OpenDocuments;
  approvalMode: () => ApprovalMode;
  prompt: ApprovalPrompt;
  log: (what: string, value: unknown) => void;
  warn: (message: string) => void;
}

/** The change as the user is asked about it: which agent wants it, so "always allow" is per agent and tool. */
function fromAgent(change: ProposedChange, label: string): ProposedChange {
  return Object.create(change, { tool: { value: label, enumerable: true } }) as ProposedChange;
}

/** How long ide/diffAccepted waits for the editor to report the applied text (eglot reports on a 0.5 s idle timer). */
const CONFIRM_WAIT_MS = 2000;

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
  private readonly session = new Session();

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
    const approve = sessionApprover(this.session, this.deps.approvalMode, this.deps.prompt);
    const toolContext = (call: CallInfo): ToolContext => ({
      workspace,
      signal: call.signal,
      approve: (change, signal) => approve(fromAgent(change, `${change.tool} from ${call.client}`), signal),
    });
    try {
      this.companion = await Companion.start({
        editorPid: this.editorPid,
        roots: workspace.sandbox.roots,
        ideInfo: ideInfoOf(this.clientName),
        toolContext,
        reviewer: this.reviewer(workspace),
        log: this.deps.log,
      });
      // Files opened before the endpoint was up.
      for (const doc of this.deps.documents.all()) {
        const file = pathOf(this.deps.open.realUri(doc.uri));
        if (file) this.companion.fileTouched(file);
      }
    } catch (error) {
      this.failure = error instanceof Error ? error.message : String(error);
      this.deps.warn(`lockstep: the companion endpoint for other agents could not start (${this.failure}). Set "companion": false to turn it off.`);
    }
  }

  facts(): CompanionFacts | { enabled: false; reason: string } {
    return this.companion ? this.companion.facts() : { enabled: false, reason: this.failure };
  }

  reset(): void {
    this.session.reset();
  }

  async stop(): Promise<void> {
    const companion = this.companion;
    this.companion = undefined;
    await companion?.stop();
  }

  /**
   * openDiff through the session's approval path (lsp/approval.ts: a prompt, or a staged
   * change decided by code action). The agent built its proposal on the disk's text; when
   * the buffer holds unsaved typing, the proposal goes in as a patch placed by content on
   * the buffer, so the typing stays and a hunk over typed lines is refused, never forced.
   */
  private reviewer(workspace: Workspace): DiffReviewer {
    const current = async (filePath: string): Promise<CurrentText | null | { error: string }> => {
      const resolved = await workspace.resolve(filePath, "write");
      if (!resolved.ok) return { error: resolved.error.message };
      const read = await workspace.read(resolved.value);
      if (read.ok) return { content: read.value.content, sha256: read.value.sha256 };
      return read.error.code === "not_found" ? null : { error: read.error.message };
    };
    const review = async ({ filePath, content }: { filePath: string; content: string }, signal: AbortSignal): Promise<DiffOutcome> => {
      const prompt: Approver = async (change, s) => ((await this.deps.prompt(fromAgent(change, "openDiff"), s)) === "reject" ? "reject" : "apply");
      const ctx: ToolContext = { workspace, signal, approve: prompt };
      const now = await current(filePath);
      if (now !== null && "error" in now) return { status: "rejected", message: now.error };
      let result;
      if (now === null) result = await invokeTool("write_file", { file_path: filePath, content }, ctx);
      else {
        const resolved = await workspace.resolve(filePath, "write");
        const disk = resolved.ok && resolved.value.exists ? await readTextFile(resolved.value.abs) : undefined;
        const seen = disk?.ok ? disk.value.content : now.content;
        result =
          seen === now.content
            ? await invokeTool("write_file", { file_path: filePath, content, base_content_sha256: now.sha256 }, ctx)
            : await invokeTool("safe_patch", { file_path: filePath, unified_diff: createTwoFilesPatch(filePath, filePath, seen, content, "", "", { context: 3 }), base_content_sha256: now.sha256 }, ctx);
      }
      if (!result.ok) {
        // The user declined or the agent withdrew it: nothing to say. Anything else the user should hear.
        if (result.error.code !== "rejected" && result.error.code !== "cancelled") this.deps.warn(`lockstep: an agent's proposal for ${filePath} was not staged: ${result.error.message}`);
        return { status: "rejected", message: result.error.message };
      }
      const state = result.data["latest_file_state"] as { content?: unknown } | undefined;
      if (typeof state?.content !== "string") return { status: "rejected", message: "no file state in the result" };
      return { status: "accepted", content: await confirmed(filePath, state.content) };
    };
    // The editor's reply to an edit is a claim (Neovim answers applied: true for an edit it skipped);
    // its next report is the truth. The agent hears the text the buffer reports, once it does.
    const confirmed = async (filePath: string, delivered: string): Promise<string> => {
      const until = Date.now() + CONFIRM_WAIT_MS;
      const resolved = await workspace.resolve(filePath, "read");
      if (!resolved.ok) return delivered;
      for (;;) {
        const read = await workspace.read(resolved.value);
        if (!read.ok || !read.value.open) return delivered;
        if (read.value.version !== null) return read.value.content;
        if (Date.now() > until) return delivered;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    return { current, review };
  }
}
