// The wrapped server's diagnostics as the agent sees them: the latest list per
// document with the version it speaks for, converted to 1-based lines and named
// severities, and a wait for the list of a changed text (`diagnostics_after`).
import type {
  DiagnosticsAfter,
  DiagnosticsView,
  FileDiagnostics,
  ToolDiagnostic,
  WireDiagnostic,
} from "./types.js";

/**
 * After a list for the new text, how long to wait for a later one: servers publish in parts (syntax,
 * then types, then suggestions), and the last list is the whole.
 */
export const SETTLE_MS = 100;

const SEVERITY: Record<number, ToolDiagnostic["severity"]> = {
  1: "error",
  2: "warning",
  3: "information",
  4: "hint",
};

export function toToolDiagnostic(d: WireDiagnostic): ToolDiagnostic {
  return {
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    end_line: d.range.end.line + 1,
    end_column: d.range.end.character + 1,
    // LSP: a missing severity is the client's to decide; error is what editors show.
    severity: SEVERITY[d.severity ?? 1] ?? "error",
    message: d.message,
    ...(d.source !== undefined ? { source: d.source } : {}),
    ...(d.code !== undefined ? { code: d.code } : {}),
  };
}

/** Same problem, wherever the edit moved it: positions shift with every change above them. */
const identity = (d: ToolDiagnostic): string =>
  JSON.stringify([d.severity, d.source ?? "", d.code ?? "", d.message]);

/** Marks each diagnostic new unless an equal one was there before (counted, so a second copy is new). */
export function markNew(
  before: readonly ToolDiagnostic[],
  after: readonly ToolDiagnostic[],
): (ToolDiagnostic & { new: boolean })[] {
  const seen = new Map<string, number>();
  for (const d of before) seen.set(identity(d), (seen.get(identity(d)) ?? 0) + 1);
  return after.map((d) => {
    const left = seen.get(identity(d)) ?? 0;
    if (left > 0) seen.set(identity(d), left - 1);
    return { ...d, new: left === 0 };
  });
}

const sameList = (a: readonly ToolDiagnostic[], b: readonly ToolDiagnostic[]): boolean =>
  JSON.stringify(a) === JSON.stringify(b);

interface Entry extends FileDiagnostics {
  /** Publication count when this list arrived. */
  seq: number;
}

export class DiagnosticsRecord implements DiagnosticsView {
  private readonly files = new Map<string, Entry>();
  private seq = 0;
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly server: string,
    /** The `diagnosticsWaitMs` setting, read at each change. */
    private readonly waitMs: () => number,
  ) {}

  /** A publish from the wrapped server (real-path URI); `version` undefined when it cannot be told. */
  record(uri: string, diagnostics: readonly WireDiagnostic[], version: number | undefined): void {
    this.files.set(uri, {
      uri,
      version: version ?? null,
      diagnostics: diagnostics.map(toToolDiagnostic),
      seq: ++this.seq,
    });
    for (const wake of [...this.waiters]) wake();
  }

  /** The server went away: nothing it said is known to hold. */
  clear(): void {
    this.files.clear();
  }

  current(uri?: string): FileDiagnostics[] {
    const entries =
      uri === undefined
        ? [...this.files.values()]
        : [this.files.get(uri)].filter((e): e is Entry => e !== undefined);
    return entries.map(({ uri: u, version, diagnostics }) => ({ uri: u, version, diagnostics }));
  }

  watch(uri: string, baseVersion: number | null): (signal: AbortSignal) => Promise<DiagnosticsAfter> {
    const before = this.files.get(uri)?.diagnostics ?? [];
    const startSeq = this.seq;
    // The list of the new text: published after the change began, for a known version past the one it was
    // built on. One whose version cannot be told is kept aside, in case no other comes.
    const next = (seq: number) => (): Entry | undefined => {
      const e = this.files.get(uri);
      return e && e.seq > seq ? e : undefined;
    };
    return async (signal) => {
      const wait = this.waitMs();
      if (wait <= 0)
        return {
          version: null,
          diagnostics: [],
          status: "timeout",
          message: "Not waited for (diagnosticsWaitMs is 0); call get_diagnostics to see them.",
        };
      const deadline = Date.now() + wait;
      let seq = startSeq;
      let found: Entry | undefined;
      let unsure: Entry | undefined;
      for (;;) {
        // Once a list is found, a later one within the settling time replaces it. A list exactly as before the
        // change (the same diagnostics at the same places) may have left the server before the change reached
        // it: a later one is waited for until the deadline, and this one is taken only if none comes.
        const settle = found && !sameList(found.diagnostics, before) ? SETTLE_MS : Infinity;
        const left = Math.min(settle, deadline - Date.now());
        const entry =
          left > 0 && !signal.aborted
            ? (next(seq)() ?? (await this.until(next(seq), left, signal)))
            : undefined;
        if (!entry) break;
        seq = entry.seq;
        if (baseVersion === null) found = entry;
        else if (entry.version === null) unsure = entry;
        else if (entry.version > baseVersion) found = entry;
      }
      if (found)
        return {
          version: found.version,
          diagnostics: markNew(before, found.diagnostics),
          status: "received",
        };
      if (unsure) {
        return {
          version: null,
          diagnostics: markNew(before, unsure.diagnostics),
          status: "received",
          message: `${this.server} names no versions and was sent more than one text of this file since its last list, so this list may be for an earlier text. Call get_diagnostics later to check.`,
        };
      }
      const why =
        baseVersion === null
          ? `the file is not open in the editor, so ${this.server} may never see it`
          : `${this.server} published nothing for the new text within ${wait} ms`;
      return {
        version: null,
        diagnostics: [],
        status: baseVersion === null ? "not_open" : "timeout",
        message: `No diagnostics: ${why}. Call get_diagnostics later to check.`,
      };
    };
  }

  private until(found: () => Entry | undefined, ms: number, signal: AbortSignal): Promise<Entry | undefined> {
    return new Promise((resolve) => {
      const finish = (entry: Entry | undefined): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
        signal.removeEventListener("abort", abort);
        resolve(entry);
      };
      const check = (): void => {
        const entry = found();
        if (entry) finish(entry);
      };
      const abort = (): void => finish(undefined);
      const timer = setTimeout(abort, ms);
      this.waiters.add(check);
      signal.addEventListener("abort", abort, { once: true });
    });
  }
}
