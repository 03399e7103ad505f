// $/progress for a long command (a large patch, a search), created on first use
// where the client supports it and ended 250 ms after the last report. A job's
// progress (the agent's runs) is JobEvents' business.
import type { Connection, WorkDoneProgressServerReporter } from "vscode-languageserver";

export type ProgressReport = (message: string, percentage?: number) => void;

export function commandProgress(connection: Connection, supported: boolean): ProgressReport | undefined {
  if (!supported) return undefined;
  let reporter: Promise<WorkDoneProgressServerReporter> | undefined;
  let timer: NodeJS.Timeout | undefined;
  return (message, percentage) => {
    reporter ??= connection.window.createWorkDoneProgress().then((r) => {
      r.begin("lockstep", 0, message);
      return r;
    });
    const current = reporter;
    current
      .then((r) => {
        r.report(percentage ?? 0, message);
        clearTimeout(timer);
        timer = setTimeout(() => {
          r.done();
          // Ended: a later report begins a new progress rather than reusing a finished token.
          if (reporter === current) reporter = undefined;
        }, 250);
      })
      .catch(() => undefined);
  };
}
