// What the editor lost when the wrapped server is gone: its features by name,
// read off the capabilities it announced, or, when it never initialized, off
// the editor's own capabilities (what the editor would have asked it for).
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** A server capability, the client capability that asks for it, and the feature's name for a person. */
const FEATURES: readonly (readonly [server: string, client: string, name: string])[] = [
  ["hoverProvider", "hover", "hover"],
  ["completionProvider", "completion", "completion"],
  ["signatureHelpProvider", "signatureHelp", "signature help"],
  ["declarationProvider", "declaration", "declaration"],
  ["definitionProvider", "definition", "definition"],
  ["typeDefinitionProvider", "typeDefinition", "type definition"],
  ["implementationProvider", "implementation", "implementation"],
  ["referencesProvider", "references", "references"],
  ["documentHighlightProvider", "documentHighlight", "highlights"],
  ["documentSymbolProvider", "documentSymbol", "document symbols"],
  ["workspaceSymbolProvider", "", "workspace symbols"],
  ["codeActionProvider", "codeAction", "its code actions"],
  ["codeLensProvider", "codeLens", "code lens"],
  ["documentLinkProvider", "documentLink", "document links"],
  ["colorProvider", "colorProvider", "colors"],
  ["documentFormattingProvider", "formatting", "formatting"],
  ["documentRangeFormattingProvider", "rangeFormatting", "range formatting"],
  ["documentOnTypeFormattingProvider", "onTypeFormatting", "on-type formatting"],
  ["renameProvider", "rename", "rename"],
  ["foldingRangeProvider", "foldingRange", "folding"],
  ["selectionRangeProvider", "selectionRange", "selection ranges"],
  ["linkedEditingRangeProvider", "linkedEditingRange", "linked editing"],
  ["callHierarchyProvider", "callHierarchy", "call hierarchy"],
  ["typeHierarchyProvider", "typeHierarchy", "type hierarchy"],
  ["semanticTokensProvider", "semanticTokens", "semantic tokens"],
  ["inlayHintProvider", "inlayHint", "inlay hints"],
  ["inlineValueProvider", "inlineValue", "inline values"],
  ["executeCommandProvider", "", "its commands"],
];

/**
 * The features gone with the child. Push diagnostics are announced by no capability, so whether this server
 * would have published any cannot be told; they are listed always, as lockstep's own diagnostics tools read them.
 */
export function missingFeatures(
  childCapabilities: Json | undefined,
  initializeParams: Json | undefined,
): string[] {
  if (childCapabilities) {
    const offered = FEATURES.filter(([server]) => {
      const value = childCapabilities[server];
      return value !== undefined && value !== null && value !== false;
    });
    return [...offered.map(([, , name]) => name), "diagnostics"];
  }
  // Never initialized: what it would have offered is unknown; what the editor can ask for is known.
  const caps = isObject(initializeParams?.["capabilities"]) ? initializeParams["capabilities"] : {};
  const textDocument = isObject(caps["textDocument"]) ? caps["textDocument"] : {};
  // Editors ask for the common ones whether or not they announce them (few list hover's capability).
  const common = new Set(["hover", "completion", "definition", "references"]);
  const asked = FEATURES.filter(
    ([, client, name]) => common.has(name) || (client !== "" && textDocument[client] !== undefined),
  ).map(([, , name]) => name);
  return [...asked, "diagnostics"];
}

/** One line for `lockstep.session`'s reason: the stderr tail's last line, when there is one, names the cause. */
export function reasonLine(why: string, stderrTail: string): string {
  const last = stderrTail
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .pop();
  const line = last ? `${why} (its last words: ${last.slice(0, 200)})` : why;
  return line.replace(/\s*\n\s*/g, " ");
}
