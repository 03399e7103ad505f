// Every textDocument/publishDiagnostics lockstep sends goes through here. The
// editor sees one server, and each publish replaces everything that server said
// about the document before; so the lists of each source (changes staged for
// approval, hunks under review, a wrapped server's own) are kept apart and the
// union is published whenever one of them changes. No source erases another.
// Knows nothing of the connection: the language server gives `send`, and the diagnostic's
// type (LSP's own, for the review desk's code-action data) is the caller's `D`.
import type { WireDiagnostic } from "./types.js";

/** Who said it: hunks of changes under review (staged for approval), or the wrapped language server. */
export type DiagnosticSource = "review" | "child";

export interface PublishedDiagnostics<D extends WireDiagnostic = WireDiagnostic> {
  uri: string;
  diagnostics: D[];
  version?: number;
}

interface DocumentDiagnostics<D> {
  bySource: Map<DiagnosticSource, D[]>;
  /** The wrapped server's version for its own list; lockstep's lists are versionless. */
  version?: number;
}

/** Publication order: the wrapped server's first, as its client would have shown them alone. */
const ORDER: readonly DiagnosticSource[] = ["child", "review"];

export class DiagnosticsHub<D extends WireDiagnostic = WireDiagnostic> {
  private readonly documents = new Map<string, DocumentDiagnostics<D>>();

  constructor(private readonly send: (published: PublishedDiagnostics<D>) => void) {}

  /** Replaces what `source` says about the document (editor URI) and publishes the union. */
  set(source: DiagnosticSource, uri: string, diagnostics: D[], version?: number): void {
    let doc = this.documents.get(uri);
    if (!doc) {
      if (diagnostics.length === 0) {
        // Nothing known and nothing to say: an empty publish still clears what the editor shows.
        this.send({ uri, diagnostics: [], ...(version !== undefined ? { version } : {}) });
        return;
      }
      doc = { bySource: new Map() };
      this.documents.set(uri, doc);
    }
    if (diagnostics.length === 0) doc.bySource.delete(source);
    else doc.bySource.set(source, diagnostics);
    if (source === "child") doc.version = version;
    const merged = ORDER.flatMap((s) => doc.bySource.get(s) ?? []);
    // The wrapped server's version is passed on only when its list is all there is: a client may drop
    // a publish whose version is behind the buffer, and lockstep's own entries must not go with it.
    const childOnly = doc.bySource.size === 1 && doc.bySource.has("child");
    const published: PublishedDiagnostics<D> = {
      uri,
      diagnostics: merged,
      ...(childOnly && doc.version !== undefined ? { version: doc.version } : {}),
    };
    if (doc.bySource.size === 0) this.documents.delete(uri);
    this.send(published);
  }

  /** What `source` says about the document now. */
  get(source: DiagnosticSource, uri: string): D[] {
    return this.documents.get(uri)?.bySource.get(source) ?? [];
  }
}
