// Open editor buffers, keyed by the real path of their file. Editors name a
// file by the path they opened it under (maybe through a symlink); the ledger
// speaks of real paths, so the two are mapped here once, on open.
import { realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { TextDocuments } from "vscode-languageserver";
import type { TextDocument } from "vscode-languageserver-textdocument";

export function realFileUri(uri: string): string {
  if (!uri.startsWith("file:")) return uri;
  let file: string;
  try {
    file = fileURLToPath(uri);
  } catch {
    return uri;
  }
  try {
    return pathToFileURL(realpathSync.native(file)).href;
  } catch {
    // Not on disk yet (a new buffer): resolve the directory, keep the name.
    try {
      return pathToFileURL(path.join(realpathSync.native(path.dirname(file)), path.basename(file))).href;
    } catch {
      return pathToFileURL(file).href;
    }
  }
}

export class OpenDocuments {
  /** real-path URI → the URI the editor uses. */
  private readonly editorUris = new Map<string, string>();
  private readonly realUris = new Map<string, string>();

  constructor(private readonly documents: TextDocuments<TextDocument>) {}

  opened(editorUri: string): string {
    const real = realFileUri(editorUri);
    this.editorUris.set(real, editorUri);
    this.realUris.set(editorUri, real);
    return real;
  }

  closed(editorUri: string): string {
    const real = this.realUris.get(editorUri) ?? realFileUri(editorUri);
    this.realUris.delete(editorUri);
    if (this.editorUris.get(real) === editorUri) this.editorUris.delete(real);
    return real;
  }

  realUri(editorUri: string): string {
    return this.realUris.get(editorUri) ?? realFileUri(editorUri);
  }

  /** The URI to address the editor with for a real-path URI. */
  editorUri(realUri: string): string {
    return this.editorUris.get(realUri) ?? realUri;
  }

  /** The real-path URIs of the open documents. */
  openRealUris(): IterableIterator<string> {
    return this.editorUris.keys();
  }

  get(realUri: string): TextDocument | undefined {
    const editorUri = this.editorUris.get(realUri);
    return editorUri === undefined ? undefined : this.documents.get(editorUri);
  }

  byEditorUri(editorUri: string): TextDocument | undefined {
    return this.documents.get(editorUri);
  }
}
