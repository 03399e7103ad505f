// How the imitated editor answers what the server asks of it: applyEdit (unless the style has
// none), workspace/configuration from the test's settings, lockstep's approval and save requests
// and showMessageRequest only when the test gave an answer, the rest as editors do. Knows nothing
// of the process, the connection or how an edit is applied to the buffers (apply-edit.ts).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ResponseError } from "vscode-jsonrpc/node.js";
import type {
  ApplyWorkspaceEditParams,
  ApplyWorkspaceEditResult,
  ConfigurationParams,
  ShowMessageRequestParams,
} from "vscode-languageserver-protocol";
import type { EditorStyle, StartOptions } from "./options.js";

/** What the answers need of the client. */
export interface AnsweringEditor {
  style: EditorStyle;
  root: string;
  options: StartOptions;
  configuration(): Record<string, unknown> | undefined;
  applyEdit(params: ApplyWorkspaceEditParams): Promise<ApplyWorkspaceEditResult>;
  saveUris(uris: readonly string[]): Promise<{ saved: string[] }>;
}

function lookup(tree: Record<string, unknown> | undefined, section: string | undefined): unknown {
  if (tree === undefined) return null;
  if (!section) return tree;
  let at: unknown = tree;
  for (const key of section.split(".")) {
    if (typeof at !== "object" || at === null || !(key in at)) return null;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

export function answerServerRequest(editor: AnsweringEditor, method: string, params: unknown): unknown {
  switch (method) {
    case "workspace/applyEdit":
      if (editor.style === "no-apply-edit")
        throw new ResponseError(-32601, "Unhandled method workspace/applyEdit");
      return editor.applyEdit(params as ApplyWorkspaceEditParams);
    case "workspace/configuration":
      return (params as ConfigurationParams).items.map((item) =>
        lookup(editor.configuration(), item.section),
      );
    case "lockstep/approve":
      if (!editor.options.approve) throw new ResponseError(-32601, "Unhandled method lockstep/approve");
      return editor.options.approve(params);
    case "window/showMessageRequest":
      if (!editor.options.showMessageRequest)
        throw new ResponseError(-32601, "Unhandled method window/showMessageRequest");
      return editor.options.showMessageRequest(params as ShowMessageRequestParams);
    case "lockstep/saveFiles":
      if (!editor.options.saveFiles) throw new ResponseError(-32601, "Unhandled method lockstep/saveFiles");
      return editor.saveUris((params as { uris: string[] }).uris);
    case "window/workDoneProgress/create":
    case "client/registerCapability":
    case "client/unregisterCapability":
      return null;
    case "window/showDocument":
      return { success: editor.style === "helix" };
    case "workspace/workspaceFolders":
      return [{ uri: pathToFileURL(editor.root).href, name: path.basename(editor.root) }];
    default:
      throw new ResponseError(-32601, `Unhandled method ${method}`);
  }
}
