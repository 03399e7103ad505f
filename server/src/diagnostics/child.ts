// A wrapped server's diagnostics wired from its source to their two readers: the record the
// agent reads (by real path: `get_diagnostics`, `diagnostics_after`) and the editor, which
// is shown them merged with lockstep's own (by the editor's URI). When the server goes, what
// it said is withdrawn from both.
import type { DiagnosticsHub } from "./publication.js";
import { DiagnosticsRecord } from "./record.js";
import type { ChildDiagnosticsSource, WireDiagnostic } from "./types.js";

export interface ChildDiagnosticsPorts<D extends WireDiagnostic> {
  /** The real-path URI of an editor URI (the editor may name a file through a link). */
  realUri: (uri: string) => string;
  hub: DiagnosticsHub<D>;
  /** The `diagnosticsWaitMs` setting, read at each change. */
  waitMs: () => number;
}

export function recordChildDiagnostics<D extends WireDiagnostic>(
  source: ChildDiagnosticsSource,
  ports: ChildDiagnosticsPorts<D>,
): DiagnosticsRecord {
  const record = new DiagnosticsRecord(source.childName, ports.waitMs);
  const published = new Set<string>();
  source.onDiagnostics((p) => {
    record.record(ports.realUri(p.uri), p.diagnostics, p.attributedVersion);
    // The child's lists are LSP's own diagnostics, passed on to the editor as they came.
    ports.hub.set("child", p.uri, p.diagnostics as D[], p.version);
    published.add(p.uri);
  });
  source.onChildGone(() => {
    record.clear();
    for (const uri of published) ports.hub.set("child", uri, []);
    published.clear();
  });
  return record;
}
