// What lockstep's server knows of the wrapped server: its diagnostics (which the relay never
// forwards raw: the diagnostics room records them and lockstep publishes them merged with its
// own, as `ChildDiagnosticsSource`), its state, and when it restarted. The documents to
// re-open come from lockstep.
import type { ChildDiagnosticsSource } from "../diagnostics/types.js";

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

export interface WrapLink extends ChildDiagnosticsSource {
  status(): WrapStatus;
  /** Where a restarted child's open documents come from. */
  openDocuments(provider: () => OpenDocument[]): void;
}
