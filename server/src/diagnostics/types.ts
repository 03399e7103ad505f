// The diagnostics room: a wrapped language server's diagnostics from the moment the relay
// hears them (which version of a document a list speaks for, versions.ts) through the record
// the agent reads (`get_diagnostics`, `diagnostics_after`: record.ts, child.ts) to what the
// editor is shown, merged with lockstep's own lists (publication.ts). It knows nothing of
// LSP's libraries, the relay's routing or the tools: the relay, the tool and the language
// server each reach it through the shapes below. This file holds those shapes.

/** What the room needs of a wrapped server: its name, its lists as they come, and its end. */
export interface ChildDiagnosticsSource {
  /** The wrapped server's command, for messages. */
  readonly childName: string;
  onDiagnostics(listener: (published: ChildDiagnostics) => void): void;
  /** The child died: what it said about documents is no longer true. */
  onChildGone(listener: () => void): void;
}

/** A diagnostic as the wrapped server sends it (LSP's shape, 0-based UTF-16 positions). */
export interface WireDiagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  severity?: number;
  code?: number | string;
  source?: string;
  message: string;
}

export interface ChildDiagnostics {
  /** The editor's URI of the document. */
  uri: string;
  diagnostics: WireDiagnostic[];
  /** The version the child named, if it named one. */
  version?: number;
  /**
   * The document version these speak for: the child's own; else the last version it was sent,
   * when that is the only one it was sent since its previous list for the document (a server
   * computes diagnostics on the text it has). Absent when it cannot be told: the child was sent
   * several versions since, and a list computed on an older one may still be on its way.
   */
  attributedVersion?: number;
}

/** One diagnostic as tools report it: 1-based lines and columns (UTF-16 code units, as LSP counts). */
export interface ToolDiagnostic {
  line: number;
  column: number;
  end_line: number;
  end_column: number;
  severity: "error" | "warning" | "information" | "hint";
  message: string;
  source?: string;
  code?: string | number;
}

export interface FileDiagnostics {
  /** `file://` URI (real path). */
  uri: string;
  /** The document version they speak for; null when it cannot be told (the server names none and was sent several). */
  version: number | null;
  diagnostics: ToolDiagnostic[];
}

/** What a change did to the wrapped server's diagnostics of its file. */
export interface DiagnosticsAfter {
  /** The version the list is for; null when none arrived, or when the server names no versions and it cannot be told. */
  version: number | null;
  diagnostics: (ToolDiagnostic & { new: boolean })[];
  /** received: the server's list for the new text; timeout: none within the wait; not_open: the server never sees this file. */
  status: "received" | "timeout" | "not_open";
  message?: string;
}

/** The wrapped server's diagnostics, as lockstep recorded them. */
export interface DiagnosticsView {
  /** The wrapped server's name, for messages. */
  readonly server: string;
  /** Every file it has diagnostics for now, or one file's. */
  current(uri?: string): FileDiagnostics[];
  /**
   * Called before a change is delivered (`baseVersion`: the buffer's version it was built on, null for
   * a file not open): the returned function waits for the server's diagnostics of the changed text.
   */
  watch(uri: string, baseVersion: number | null): (signal: AbortSignal) => Promise<DiagnosticsAfter>;
}
