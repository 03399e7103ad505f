// Capabilities are decided once, here: the client's become plain flags the
// rest of the server reads, and the server's own are one snapshot-tested object.
import type { ClientCapabilities, ServerCapabilities } from "vscode-languageserver";
import { CodeActionKind, TextDocumentSyncKind } from "vscode-languageserver";

export interface ClientFlags {
  /** workspace/applyEdit is available. */
  canApplyEdit: boolean;
  /** TextDocumentEdit with versions (documentChanges) is understood. */
  versionedEdits: boolean;
  /** CreateFile resource operations are understood. */
  createFiles: boolean;
  /** DeleteFile resource operations are understood. */
  deleteFiles: boolean;
  /** window/showMessageRequest with action items. */
  messageActions: boolean;
  /** lockstep/approve: the client shows the change while it asks (lockstep's own clients). */
  approvalWithDiff: boolean;
  /** lockstep/approve also for a command's and an MCP call's question (`experimental.lockstepApprovalKinds`). */
  approvalCommands: boolean;
  approvalCalls: boolean;
  /** Server-initiated $/progress. */
  workDoneProgress: boolean;
  /** window/showDocument. */
  showDocument: boolean;
  /** workspace/configuration is advertised. */
  configuration: boolean;
  /** workspace/didChangeConfiguration can be registered dynamically. */
  configurationChanges: boolean;
  /** lockstep's own `lockstep/saveFiles` request (its Neovim client: `experimental.lockstep.saveFiles`). */
  saveFiles: boolean;
}

export function clientFlags(caps: ClientCapabilities): ClientFlags {
  const edit = caps.workspace?.workspaceEdit;
  return {
    canApplyEdit: caps.workspace?.applyEdit === true,
    versionedEdits: edit?.documentChanges === true,
    createFiles: edit?.documentChanges === true && (edit.resourceOperations ?? []).includes("create"),
    deleteFiles: edit?.documentChanges === true && (edit.resourceOperations ?? []).includes("delete"),
    messageActions: caps.window?.showMessage !== undefined || lockstepApproval(caps),
    approvalWithDiff: lockstepApproval(caps),
    approvalCommands: lockstepApproval(caps) && approvalKinds(caps).includes("command"),
    approvalCalls: lockstepApproval(caps) && approvalKinds(caps).includes("call"),
    workDoneProgress: caps.window?.workDoneProgress === true,
    showDocument: caps.window?.showDocument?.support === true,
    configuration: caps.workspace?.configuration === true,
    configurationChanges: caps.workspace?.didChangeConfiguration?.dynamicRegistration === true,
    saveFiles:
      (caps.experimental as { lockstep?: { saveFiles?: unknown } } | undefined)?.lockstep?.saveFiles === true,
  };
}

function lockstepApproval(caps: ClientCapabilities): boolean {
  const experimental: unknown = caps.experimental;
  return (
    typeof experimental === "object" &&
    experimental !== null &&
    (experimental as Record<string, unknown>)["lockstepApproval"] === true
  );
}

/** The other questions a lockstep client shows itself: `command`, `call`. */
function approvalKinds(caps: ClientCapabilities): unknown[] {
  const kinds = (caps.experimental as { lockstepApprovalKinds?: unknown } | undefined)?.lockstepApprovalKinds;
  return Array.isArray(kinds) ? kinds : [];
}

export function serverCapabilities(commands: readonly string[]): ServerCapabilities {
  return {
    textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
    executeCommandProvider: { commands: [...commands] },
    codeActionProvider: {
      codeActionKinds: [CodeActionKind.QuickFix, CodeActionKind.Source, CodeActionKind.RefactorRewrite],
    },
    workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
  };
}
