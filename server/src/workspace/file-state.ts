// The versioned state of one file: what every read returns and every write names.

export interface FileState {
  /** Workspace-relative, `/`-separated. */
  file_path: string;
  /** `file://` URI of the file. */
  uri: string;
  /**
   * The editor's document version when the file is open; `null` when read from
   * disk, or after lockstep applied an edit the editor has not reported yet.
   */
  version: number | null;
  /** Hex SHA-256 of `content` exactly as it is. The hash is the lock. */
  sha256: string;
  content: string;
  /** Whether the text comes from an open editor buffer. */
  open: boolean;
  /**
   * Present (true) when `content` is an edit lockstep delivered that the editor said it
   * applied but has not confirmed with a didChange yet: the editor's claim, not its report.
   */
  unconfirmed?: true;
}
