// What lockstep's server knows of the wrapped server: its name, the diagnostics
// it publishes (which the relay never forwards raw: lockstep merges them with its
// own), and when it restarted. The documents to re-open come from lockstep.

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

export interface OpenDocument {
  uri: string;
  languageId: string;
  version: number;
  text: string;
}

/** The wrapped server as `lockstep.session` shows it. */
export interface WrapStatus {
  server: string;
  /** `failed`: it did not initialize, or has died for good; `reason` says why in one line, `missing` what the editor lost. */
  state: "running" | "restarting" | "failed";
  restarts: number;
  reason?: string;
  missing?: string[];
  /** How many of its log and progress messages were dropped while the editor did not read (absent: none). */
  dropped?: number;
}

export interface WrapLink {
  /** The wrapped server's command, for messages. */
  readonly childName: string;
  status(): WrapStatus;
  onDiagnostics(listener: (published: ChildDiagnostics) => void): void;
  /** The child died: what it said about documents is no longer true. */
  onChildGone(listener: () => void): void;
  /** Where a restarted child's open documents come from. */
  openDocuments(provider: () => OpenDocument[]): void;
}
