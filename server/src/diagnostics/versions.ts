// Which text of a document a wrapped server's list speaks for. A server computes diagnostics
// on the text it has; when it names no version, the list is the last text it was sent only if
// that is the one text sent since its previous list: after two, the list may be the older
// text's, computed before the newer arrived. The relay tells this what it sends and hears.
import type { ChildDiagnostics, WireDiagnostic } from "./types.js";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export class SentVersions {
  /** Per document, the last version the child was sent, and how many it was sent since its last list for it. */
  private readonly sent = new Map<string, { version: number; sinceList: number }>();

  /** A notification the editor sent the child: a didOpen or didChange names a version. */
  noteSent(method: string, params: unknown): void {
    if (method !== "textDocument/didOpen" && method !== "textDocument/didChange") return;
    const doc = isObject(params) ? params["textDocument"] : undefined;
    if (!isObject(doc) || typeof doc["uri"] !== "string" || typeof doc["version"] !== "number") return;
    this.sent.set(doc["uri"], {
      version: doc["version"],
      sinceList: (this.sent.get(doc["uri"])?.sinceList ?? 0) + 1,
    });
  }

  /** A restarted child was sent the document afresh: that text is the one it has. */
  reopened(uri: string, version: number): void {
    this.sent.set(uri, { version, sinceList: 1 });
  }

  /** The child's publishDiagnostics params as a list with the version it speaks for; undefined when malformed. */
  received(params: unknown): ChildDiagnostics | undefined {
    const p = isObject(params) ? params : {};
    if (typeof p["uri"] !== "string" || !Array.isArray(p["diagnostics"])) return undefined;
    const version = typeof p["version"] === "number" ? p["version"] : undefined;
    const published: ChildDiagnostics = {
      uri: p["uri"],
      diagnostics: p["diagnostics"] as WireDiagnostic[],
      ...(version !== undefined ? { version } : {}),
    };
    const sent = this.sent.get(p["uri"]);
    if (sent) this.sent.set(p["uri"], { version: sent.version, sinceList: 0 });
    const attributed = version ?? (sent && sent.sinceList <= 1 ? sent.version : undefined);
    if (attributed !== undefined) published.attributedVersion = attributed;
    return published;
  }
}
