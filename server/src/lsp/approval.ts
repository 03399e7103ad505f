// Asking the user about a change the model wants to make. Where the client has
// window/showMessageRequest: a prompt with Apply / Always allow / Reject.
// Where it has not (Helix 25.07): the change is staged, shown as information
// diagnostics on the lines it touches, and decided through code actions.
import { randomUUID } from "node:crypto";
import type { CodeAction, Connection, Diagnostic } from "vscode-languageserver";
import { CancellationTokenSource, CodeActionKind, DiagnosticSeverity, MessageType, ShowMessageRequest } from "vscode-languageserver";
import { approvalMessage, type ApprovalPrompt, type UserDecision } from "../agent/approvals.js";
import { computeTextEdits } from "../edit/text-edits.js";
import type { ProposedChange } from "../tools/tool.js";
import type { ClientFlags } from "./capabilities.js";
import { COMMAND_PREFIX } from "./commands.js";
import type { DiagnosticsHub } from "./diagnostics.js";
import { toLspEdits } from "./positions.js";

interface Staged {
  id: string;
  change: ProposedChange;
  uri: string;
  diagnostics: Diagnostic[];
  resolve: (decision: UserDecision) => void;
}

const APPLY = "Apply";
const REJECT = "Reject";
const alwaysTitle = (tool: string): string => `Always allow ${tool} this session`;

export class ApprovalDesk {
  private readonly staged = new Map<string, Staged>();

  constructor(
    private readonly connection: Connection,
    private readonly flags: () => ClientFlags,
    /** Maps a real-path file URI to the one the editor uses. */
    private readonly editorUri: (realUri: string) => string,
    private readonly diagnostics: DiagnosticsHub,
  ) {}

  readonly prompt: ApprovalPrompt = (change, signal) => (this.flags().messageActions ? this.ask(change, signal) : this.stage(change, signal));

  private async ask(change: ProposedChange, signal: AbortSignal): Promise<UserDecision> {
    const source = new CancellationTokenSource();
    // A cancelled prompt is a rejection at once: the client may never answer the request.
    let onAbort = (): void => undefined;
    const aborted = new Promise<null>((resolve) => {
      onAbort = () => {
        source.cancel();
        resolve(null);
      };
    });
    const cancel = (): void => onAbort();
    if (signal.aborted) return "reject";
    signal.addEventListener("abort", cancel, { once: true });
    try {
      const request = this.connection.sendRequest(
        ShowMessageRequest.type,
        { type: MessageType.Info, message: approvalMessage(change), actions: [{ title: APPLY }, { title: alwaysTitle(change.tool) }, { title: REJECT }] },
        source.token,
      );
      request.catch(() => undefined);
      const picked = await Promise.race([request, aborted]);
      if (signal.aborted) return "reject";
      if (picked?.title === APPLY) return "apply";
      if (picked?.title === alwaysTitle(change.tool)) return "always";
      return "reject";
    } catch {
      return "reject";
    } finally {
      signal.removeEventListener("abort", cancel);
      source.dispose();
    }
  }

  private stage(change: ProposedChange, signal: AbortSignal): Promise<UserDecision> {
    const id = randomUUID();
    const before = change.before?.content ?? "";
    const uri = this.editorUri(change.uri);
    const edits = toLspEdits(before, computeTextEdits(before, change.after));
    const message = `${approvalMessage(change)} Use code actions to apply or reject it.`;
    const diagnostics: Diagnostic[] = edits.map((e) => ({ range: e.range, severity: DiagnosticSeverity.Information, source: "lockstep", message, data: { staged: id } }));
    return new Promise<UserDecision>((resolve) => {
      const done = (decision: UserDecision): void => {
        if (!this.staged.delete(id)) return;
        signal.removeEventListener("abort", onAbort);
        this.publish(uri);
        resolve(decision);
      };
      const onAbort = (): void => done("reject");
      this.staged.set(id, { id, change, uri, diagnostics, resolve: done });
      signal.addEventListener("abort", onAbort, { once: true });
      this.publish(uri);
      void this.connection.sendNotification("window/showMessage", { type: MessageType.Info, message });
    });
  }

  /** Code actions for changes staged on this document. */
  actionsFor(editorUri: string): CodeAction[] {
    const out: CodeAction[] = [];
    for (const s of this.staged.values()) {
      if (s.uri !== editorUri) continue;
      const cmd = (title: string, decision: UserDecision): CodeAction => ({
        title,
        kind: CodeActionKind.QuickFix,
        diagnostics: s.diagnostics,
        command: { title, command: `${COMMAND_PREFIX}decide`, arguments: [{ id: s.id, decision }] },
      });
      const what = `${s.change.tool} on ${s.change.file_path} (+${s.change.added} −${s.change.removed})`;
      out.push(cmd(`lockstep: apply ${what}`, "apply"), cmd(`lockstep: reject ${what}`, "reject"), cmd(`lockstep: ${alwaysTitle(s.change.tool).toLowerCase()}`, "always"));
    }
    return out;
  }

  /** lockstep.decide {id, decision}: the user's answer to a staged change. */
  decide(id: string, decision: UserDecision): boolean {
    const s = this.staged.get(id);
    if (!s) return false;
    s.resolve(decision);
    return true;
  }

  /** Decides every staged change (server shutdown, session reset). */
  rejectAll(): void {
    for (const s of [...this.staged.values()]) s.resolve("reject");
  }

  private publish(uri: string): void {
    const diagnostics = [...this.staged.values()].filter((s) => s.uri === uri).flatMap((s) => s.diagnostics);
    this.diagnostics.set("staged", uri, diagnostics);
  }
}
