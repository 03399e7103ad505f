// get_diagnostics: what the user's own language server says about the files,
// for the version it speaks for. Exists only in wrap mode, where lockstep sits in
// front of that server and records what it publishes. A thin registry entry over the
// diagnostics room (diagnostics/): the record is `ctx.diagnostics`.
import * as z from "zod";
import { errorEnvelope, failureEnvelope, okEnvelope } from "./envelope.js";
import { filePath } from "./schemas.js";
import { defineTool } from "./tool.js";

const NOT_WRAPPED =
  "get_diagnostics needs wrap mode: lockstep must run in front of your language server to see its diagnostics. Start it as `lockstep --stdio --wrap -- CMD [ARGS...]` (e.g. `lockstep --stdio --wrap -- pyright-langserver --stdio`) in the editor's server command.";

export const getDiagnostics = defineTool({
  name: "get_diagnostics",
  kind: "read",
  description:
    "The language server's diagnostics (errors, warnings) for a file, or for every file it reported on when file_path is omitted: {files: [{file_path, version, diagnostics: [{line, column, end_line, end_column, severity, message, source?, code?}]}]}, lines and columns 1-based. version is the editor's version of the text they speak for: compare it with the version of your last read or write. Every successful change already carries diagnostics_after for the new text; call this to check other files or to look again later.",
  available: (conditions) => conditions.wrapped === true,
  unavailable: NOT_WRAPPED,
  params: z.object({ file_path: filePath.optional() }).strict(),
  async run(args, ctx) {
    const view = ctx.diagnostics;
    if (!view) return errorEnvelope("invalid_argument", NOT_WRAPPED);
    let uri: string | undefined;
    if (args.file_path !== undefined) {
      const resolved = await ctx.workspace.resolve(args.file_path, "read");
      if (!resolved.ok) return failureEnvelope(resolved.error);
      uri = resolved.value.uri;
    }
    const files = view.current(uri).flatMap((f) => {
      const rel = ctx.workspace.sandbox.relativize(f.uri);
      return rel === undefined ? [] : [{ file_path: rel, version: f.version, diagnostics: f.diagnostics }];
    });
    if (args.file_path !== undefined && files.length === 0) {
      return okEnvelope({
        files: [],
        message: `${view.server} has published no diagnostics for ${args.file_path}: it reports on files open in the editor, and may not have finished.`,
      });
    }
    return okEnvelope({ files });
  },
});
