// The review desk in the editor: each pending hunk is an information
// diagnostic over the lines it changes, with code actions to accept or reject
// it, all hunks of a file, or to show the proposed diff. Positions are worked
// out on the buffer as it is now, and published again when it changes.
import { tmpdir } from "node:os";
import path from "node:path";
import { mkdir, writeFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import type { CodeAction, Connection, Diagnostic, Range } from "vscode-languageserver";
import { CodeActionKind, DiagnosticSeverity, MessageType } from "vscode-languageserver";
import type { LocatedHunk, ReviewDesk } from "../review/review-desk.js";
import type { ClientFlags } from "./capabilities.js";
import { COMMAND_PREFIX } from "./commands.js";
import type { DiagnosticsHub } from "../diagnostics/publication.js";
import type { OpenDocuments } from "./documents.js";
import { alwaysTitle } from "./approval.js";

const lineRange = (h: LocatedHunk): Range => ({
  start: { line: h.start, character: 0 },
  end: { line: h.end + 1, character: 0 },
});

function decideAction(
  title: string,
  argument: Record<string, unknown>,
  diagnostics?: Diagnostic[],
): CodeAction {
  return {
    title,
    kind: CodeActionKind.QuickFix,
    ...(diagnostics ? { diagnostics } : {}),
    command: { title, command: `${COMMAND_PREFIX}decide`, arguments: [argument] },
  };
}

export class ReviewView {
  /** One publish at a time per file, so a slow one never overwrites a newer one. */
  private readonly publishing = new Map<string, Promise<void>>();

  constructor(
    private readonly connection: Connection,
    private readonly flags: () => ClientFlags,
    private readonly open: OpenDocuments,
    private readonly hub: DiagnosticsHub<Diagnostic>,
    private readonly desk: () => ReviewDesk,
  ) {}

  /** Publishes the pending hunks of a file (real-path URI) where they are now. */
  refresh(uri: string): void {
    const next = (this.publishing.get(uri) ?? Promise.resolve()).then(async () => {
      const hunks = await this.desk().located(uri);
      this.hub.set(
        "review",
        this.open.editorUri(uri),
        hunks.map((h) => this.diagnostic(h)),
      );
    });
    const settled = next.catch(() => undefined);
    this.publishing.set(uri, settled);
    void settled.then(() => this.publishing.get(uri) === settled && this.publishing.delete(uri));
  }

  /** The buffer changed: hunks under review in it have moved. */
  documentChanged(uri: string): void {
    if (this.desk().uris().includes(uri)) this.refresh(uri);
  }

  private diagnostic(h: LocatedHunk): Diagnostic {
    const message = h.conflict
      ? `proposed change ${h.summary}: conflict, ${h.conflict}`
      : `proposed change ${h.summary}`;
    return {
      range: lineRange(h),
      severity: DiagnosticSeverity.Information,
      source: "lockstep",
      message,
      data: { hunk: h.hunk_id },
    };
  }

  /** Code actions for the hunks at `range`, and for every pending change of the file. */
  async actions(editorUri: string, range: Range): Promise<CodeAction[]> {
    const uri = this.open.realUri(editorUri);
    const hunks = await this.desk().located(uri);
    if (hunks.length === 0) return [];
    const out: CodeAction[] = [];
    for (const h of hunks) {
      if (h.end < range.start.line || h.start > range.end.line) continue;
      const diagnostic = [this.diagnostic(h)];
      out.push(
        decideAction("lockstep: Accept this change", { id: h.hunk_id, decision: "apply" }, diagnostic),
        decideAction("lockstep: Reject this change", { id: h.hunk_id, decision: "reject" }, diagnostic),
      );
    }
    const file = hunks[0]!.file_path;
    out.push(
      decideAction(`lockstep: Accept all proposed changes in ${file}`, {
        file_path: file,
        decision: "apply",
      }),
      decideAction(`lockstep: Reject all proposed changes in ${file}`, {
        file_path: file,
        decision: "reject",
      }),
    );
    const tools = new Map(hunks.map((h) => [h.change_id, h.tool]));
    for (const [change, tool] of tools)
      out.push(decideAction(`lockstep: ${alwaysTitle(tool)}`, { id: change, decision: "always" }));
    const title = "lockstep: Show proposed diff";
    out.push({
      title,
      kind: CodeActionKind.QuickFix,
      command: { title, command: `${COMMAND_PREFIX}review`, arguments: [{ file_path: file, show: true }] },
    });
    return out;
  }

  /** Shows the proposed diff of a file: as a document where the client opens one, else as a message. */
  async show(uri: string, filePath: string): Promise<void> {
    const diff = this.desk().diffOf(uri);
    if (diff === "") return;
    if (this.flags().showDocument) {
      const dir = path.join(tmpdir(), `lockstep-review-${process.pid}`);
      const file = path.join(dir, `${filePath.replace(/[\\/]/g, "_")}.diff`);
      await mkdir(dir, { recursive: true });
      await writeFile(file, diff, "utf8");
      const shown = await this.connection.window
        .showDocument({ uri: pathToFileURL(file).href, takeFocus: true })
        .catch(() => ({ success: false }));
      if (shown.success) return;
    }
    void this.connection.sendNotification("window/showMessage", {
      type: MessageType.Info,
      message: `lockstep: proposed changes to ${filePath}\n${diff}`,
    });
  }
}
