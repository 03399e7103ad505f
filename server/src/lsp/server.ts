// lsp/: the language server door. Knows nothing of ACP; nothing below it knows of LSP.
// The one file that binds LSP to the server's parts: each handler lives in
// handlers/ (or with its part) and converts params, calls the domain and
// converts the answer back. Nothing here decides anything.
import {
  createConnection,
  DidChangeConfigurationNotification,
  ProposedFeatures,
} from "vscode-languageserver/node.js";
import { codeActionHandler } from "./handlers/code-action.js";
import { executeCommandHandler } from "./handlers/execute-command.js";
import { initializeHandler } from "./handlers/initialize.js";
import { Relay } from "../relay/relay.js";
import { createServerContext } from "./server-context.js";
import { rawStdio, stdioTransport } from "./transport.js";
import { offerTrust } from "./trust-offer.js";

/** `--wrap -- CMD ARGS`: the language server lockstep runs in front of. */
export interface WrapCommand {
  command: string;
  args: string[];
}

export async function runServer(argv: string[], wrap?: WrapCommand): Promise<number> {
  const debugFlag = argv.includes("--debug");
  // Wrap mode: the relay owns the editor's stdio and lockstep's server talks to it in memory. Either way
  // the reader over stdin ends the process on a broken frame instead of going silent.
  const relay = wrap
    ? new Relay({
        editor: rawStdio(),
        command: wrap.command,
        args: wrap.args,
        exit: (code) => process.exit(code),
        log: (what, value) => debugFlag && process.stderr.write(JSON.stringify({ [what]: value }) + "\n"),
      })
    : undefined;
  const transport = relay ? undefined : stdioTransport();
  const connection = createConnection(
    ProposedFeatures.all,
    (relay?.lockstep ?? transport!).reader,
    (relay?.lockstep ?? transport!).writer,
  );
  const ctx = createServerContext(connection, { debug: debugFlag, ...(relay ? { wrap: relay } : {}) });
  // A notification that cannot be sent (the client went away mid-run) must not take the server down.
  process.on("unhandledRejection", (reason) => {
    process.stderr.write(`lockstep: ${reason instanceof Error ? reason.message : String(reason)}\n`);
  });

  connection.onInitialize(initializeHandler(ctx));
  connection.onInitialized(() => {
    if (ctx.state.flags.configurationChanges)
      void connection.client.register(DidChangeConfigurationNotification.type, { section: "lockstep" });
    void ctx.settings
      .fetch()
      .then(
        () => ctx.state.workspace && ctx.companion.start(ctx.state.workspace, ctx.settings.current.companion),
      );
    void offerTrust(ctx);
  });
  connection.onDidChangeConfiguration((change) => void ctx.settings.changed(change.settings));

  const { documents, open } = ctx;
  documents.onDidOpen((e) => ctx.state.workspace?.documentChanged(open.opened(e.document.uri)));
  documents.onDidChangeContent((e) => {
    const uri = open.realUri(e.document.uri);
    ctx.state.workspace?.documentChanged(uri);
    ctx.reviewView.documentChanged(uri);
  });
  documents.onDidClose((e) => ctx.state.workspace?.documentChanged(open.closed(e.document.uri)));

  connection.onRequest("workspace/executeCommand", executeCommandHandler(ctx));
  connection.onCodeAction(codeActionHandler(ctx));
  connection.onShutdown(() => {
    transport?.shutdownReceived(); // in wrap mode the relay saw the shutdown itself
    ctx.agent.cancelAll();
    ctx.review.rejectAll();
    ctx.recorder.close();
    return ctx.companion.stop();
  });

  documents.listen(connection);
  connection.listen();
  return new Promise<number>(() => undefined); // the connection ends the process on exit
}
