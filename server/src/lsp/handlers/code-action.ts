// textDocument/codeAction: commands waiting for a decision, hunks under review to decide, edit blocks and patches in
// the buffer, `lockstep:` instructions and "Fix with lockstep" on diagnostics.
import type { CodeAction, CodeActionParams } from "vscode-languageserver";
import { agentActions } from "../agent-actions.js";
import { editBlockActions, envelopeActions, patchActions } from "../code-actions.js";
import type { ServerContext } from "../server-context.js";

export function codeActionHandler(ctx: ServerContext) {
  return async (params: CodeActionParams): Promise<CodeAction[]> => {
    const doc = ctx.open.byEditorUri(params.textDocument.uri);
    const workspace = ctx.state.workspace;
    if (!doc || !workspace) return [];
    const text = doc.getText();
    const actions: CodeAction[] = [
      ...ctx.pendingCommands.actions(),
      ...(await ctx.reviewView.actions(params.textDocument.uri, params.range)),
      ...editBlockActions(text),
      ...envelopeActions(text),
    ];
    // A patch's base is its target's state now: if that changes before the user picks the action, the hash check refuses it.
    const stateOf = async (target: string): Promise<{ file_path: string; sha256: string } | undefined> => {
      const resolved = await workspace.resolve(target, "read");
      const read = resolved.ok ? await workspace.read(resolved.value) : undefined;
      return read?.ok ? { file_path: read.value.file_path, sha256: read.value.sha256 } : undefined;
    };
    actions.push(...(await patchActions(doc.uri, doc.languageId, text, stateOf)));
    const relative = workspace.sandbox.relativize(ctx.open.realUri(doc.uri));
    if (relative !== undefined)
      actions.push(...agentActions(doc, relative, params.range, params.context.diagnostics));
    return actions;
  };
}
