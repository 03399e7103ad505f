// initialize: the client's capabilities become flags once, settings come from
// initializationOptions, and the workspace is made over the roots the client names.
import { fileURLToPath } from "node:url";
import type { InitializeParams, InitializeResult } from "vscode-languageserver";
import { VERSION } from "../../version.js";
import { Sandbox } from "../../workspace/sandbox.js";
import { Workspace } from "../../workspace/workspace.js";
import { clientFlags, serverCapabilities } from "../capabilities.js";
import { commandNames } from "../commands.js";
import { DECIDED_LABEL, LspEditorLink } from "../editor-link.js";
import type { ServerContext } from "../server-context.js";

/** Roots from the initialize params: workspace folders, else rootUri, else the current directory. */
export function rootsOf(params: InitializeParams): string[] {
  const folders = params.workspaceFolders?.map((f) => f.uri) ?? [];
  const uris = folders.length > 0 ? folders : params.rootUri ? [params.rootUri] : [];
  const paths = uris.filter((u) => u.startsWith("file:")).map((u) => fileURLToPath(u));
  if (paths.length === 0 && params.rootPath) paths.push(params.rootPath);
  return paths.length > 0 ? paths : [process.cwd()];
}

export function initializeHandler(ctx: ServerContext) {
  return async (params: InitializeParams): Promise<InitializeResult> => {
    const flags = clientFlags(params.capabilities);
    ctx.state.flags = flags;
    ctx.state.clientName = params.clientInfo?.name;
    const roots = rootsOf(params);
    ctx.settings.readProjectFile(roots[0] ?? process.cwd(), params.clientInfo?.name === "lockstep");
    ctx.settings.apply(params.initializationOptions);
    const sandbox = await Sandbox.create(roots);
    const settings = ctx.settings;
    ctx.state.workspace = new Workspace(sandbox, {
      editor: new LspEditorLink(
        ctx.connection,
        ctx.open,
        flags,
        () => settings.current.applyEditTimeoutMs,
        () => (settings.current.approval === "auto" ? "lockstep" : DECIDED_LABEL),
      ),
      // Read at each delivery: workspace/configuration arrives after initialize.
      get closedFileEdits() {
        return settings.current.closedFileEdits;
      },
    });
    ctx.companion.prepare(params);
    ctx.debug("initialize", { roots: sandbox.roots, flags });
    return {
      capabilities: serverCapabilities(commandNames(ctx.conditions)),
      serverInfo: { name: "lockstep", version: VERSION },
    };
  };
}
