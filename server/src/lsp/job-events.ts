// Where an agent job's events go: the lockstep/stream notification (Neovim,
// Emacs, the terminal), $/progress where the client shows it, and the markdown
// transcript for clients that show neither (Helix).
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Connection, WorkDoneProgressServerReporter } from "vscode-languageserver";
import type { StreamEvent } from "../agent/events.js";
import { Transcript } from "../agent/transcript.js";
import { redactTokens } from "../sessions/secrets.js";
import type { ClientFlags } from "./capabilities.js";

export class JobEvents {
  private readonly progress = new Map<string, Promise<WorkDoneProgressServerReporter>>();
  private readonly transcripts = new Map<string, Transcript>();

  constructor(
    private readonly connection: Connection,
    private readonly flags: () => ClientFlags,
    /** The transcript setting, and the root a relative one is relative to. */
    private readonly transcript: () => { setting: string | undefined; root: string },
    private readonly warn: (message: string) => void,
  ) {}

  readonly emit = (event: StreamEvent): void => {
    void this.connection.sendNotification("lockstep/stream", event);
    this.reportProgress(event);
    const file = this.transcriptFile();
    if (file) {
      const { setting, root } = this.transcript();
      const within = setting !== undefined && !path.isAbsolute(setting) ? root : undefined;
      const t = this.transcripts.get(file) ?? new Transcript(file, redactTokens, within);
      this.transcripts.set(file, t);
      t.record(event, this.warn);
    }
  };

  /** Opens the transcript beside the user's work, where the client can show documents. */
  showTranscript(): void {
    const file = this.transcriptFile();
    if (file && this.flags().showDocument)
      void this.connection.window
        .showDocument({ uri: pathToFileURL(file).href, takeFocus: false })
        .catch(() => undefined);
  }

  private transcriptFile(): string | undefined {
    const { setting, root } = this.transcript();
    return setting === undefined ? undefined : path.resolve(root, setting);
  }

  private reportProgress(event: StreamEvent): void {
    if (!this.flags().workDoneProgress) return;
    if (event.kind === "status" && event.status === "running" && !this.progress.has(event.job_id)) {
      const created = this.connection.window.createWorkDoneProgress().then((r) => {
        r.begin("lockstep", undefined, event.message ?? "thinking", true);
        return r;
      });
      created.catch(() => undefined);
      this.progress.set(event.job_id, created);
      return;
    }
    const reporter = this.progress.get(event.job_id);
    if (!reporter) return;
    if (event.kind === "status" && event.message !== undefined) {
      const message = event.message;
      void reporter.then((r) => r.report(message)).catch(() => undefined);
    }
    if (event.kind === "tool_call")
      void reporter
        .then((r) => r.report(`${event.tool}${event.file_path ? ` ${event.file_path}` : ""}`))
        .catch(() => undefined);
    if (event.kind === "done") {
      void reporter.then((r) => r.done()).catch(() => undefined);
      this.progress.delete(event.job_id);
    }
  }
}
