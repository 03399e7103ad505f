// An editor's didChange applied to its buffer. vscode-languageserver-textdocument
// applies content changes one at a time, copying the whole text for each: a
// 13,000-hunk edit came back from the editor as 13,000 changes to a 40,000-line
// buffer and held the server for 11 s. Here a run of changes that each lie
// before the previous one (Neovim and Eglot send a multi-edit last first) or
// after it (Helix, first first) is resolved against one text and applied in one
// pass. Anything else goes through the library one change at a time, and so does
// any text holding a "\r" (a change there can join or split a line break and
// move the lines after it), so the result is always the library's own.
import {
  TextDocument,
  type Position,
  type TextDocumentContentChangeEvent,
} from "vscode-languageserver-textdocument";

type RangeChange = Extract<TextDocumentContentChangeEvent, { range: unknown }>;

interface Span {
  start: number;
  end: number;
  text: string;
}

const isRange = (c: TextDocumentContentChangeEvent): c is RangeChange =>
  "range" in c && c.range !== undefined;
const before = (a: Position, b: Position): boolean =>
  a.line < b.line || (a.line === b.line && a.character <= b.character);

/** Where the end of `text` falls when it is inserted at `at`. */
function endOf(at: Position, text: string): Position {
  const lastBreak = text.lastIndexOf("\n");
  if (lastBreak < 0) return { line: at.line, character: at.character + text.length };
  let lines = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lines++;
  return { line: at.line + lines, character: text.length - lastBreak - 1 };
}

/** Positions resolved on one text, only where the library would resolve them the same way (no clamping). */
class Resolver {
  constructor(private readonly doc: TextDocument) {}

  offset(p: Position): number | undefined {
    if (p.line < 0 || p.line >= this.doc.lineCount || p.character < 0) return undefined;
    const start = this.doc.offsetAt({ line: p.line, character: 0 });
    const lineEnd = this.doc.offsetAt({ line: p.line, character: Number.MAX_SAFE_INTEGER });
    return p.character <= lineEnd - start ? start + p.character : undefined;
  }

  span(
    change: TextDocumentContentChangeEvent,
    start = isRange(change) ? change.range.start : undefined,
    end = isRange(change) ? change.range.end : undefined,
  ): Span | undefined {
    if (!start || !end || change.text.includes("\r") || !before(start, end)) return undefined;
    const s = this.offset(start);
    const e = this.offset(end);
    return s === undefined || e === undefined ? undefined : { start: s, end: e, text: change.text };
  }
}

/** Changes from `from` on that each lie wholly before the previous one: all resolved on the text as it is. */
function descending(
  resolver: Resolver,
  changes: readonly TextDocumentContentChangeEvent[],
  from: number,
): Span[] {
  const spans: Span[] = [];
  for (let i = from; i < changes.length; i++) {
    const span = resolver.span(changes[i]!);
    if (!span || (spans.length > 0 && span.end > spans[spans.length - 1]!.start)) break;
    spans.push(span);
  }
  // Applied last first: at one offset, the later insertion comes first.
  return spans.reverse();
}

/** Changes from `from` on that each start after the previous one's new text: mapped back to the text as it is. */
function ascending(
  resolver: Resolver,
  changes: readonly TextDocumentContentChangeEvent[],
  from: number,
): Span[] {
  const spans: Span[] = [];
  // The end of the last change's new text (in the buffer's coordinates then) and of what it replaced (in the text's).
  let endNew: Position | undefined;
  let endOld: Position | undefined;
  const toOld = (p: Position): Position =>
    p.line === endNew!.line
      ? { line: endOld!.line, character: endOld!.character + p.character - endNew!.character }
      : { line: p.line - endNew!.line + endOld!.line, character: p.character };
  for (let i = from; i < changes.length; i++) {
    const change = changes[i]!;
    if (!isRange(change)) break;
    const { start, end } = change.range;
    if (endNew && !before(endNew, start)) break;
    const span = endNew ? resolver.span(change, toOld(start), toOld(end)) : resolver.span(change);
    if (!span) break;
    endOld = endNew ? toOld(end) : end;
    endNew = endOf(start, change.text);
    spans.push(span);
  }
  return spans;
}

function applySpans(text: string, spans: readonly Span[]): string {
  const parts: string[] = [];
  let at = 0;
  for (const s of spans) {
    parts.push(text.slice(at, s.start), s.text);
    at = s.end;
  }
  parts.push(text.slice(at));
  return parts.join("");
}

/** The library's `TextDocument.update`, with the same result, in one pass per run of ordered changes. */
export function updateDocument(
  document: TextDocument,
  changes: TextDocumentContentChangeEvent[],
  version: number,
): TextDocument {
  let i = 0;
  while (i < changes.length) {
    // One change (a keystroke) costs the library little: the text is not scanned for it.
    let spans: Span[] = [];
    if (
      i + 1 < changes.length &&
      isRange(changes[i]!) &&
      isRange(changes[i + 1]!) &&
      !document.getText().includes("\r")
    ) {
      const resolver = new Resolver(document);
      const down = descending(resolver, changes, i);
      spans = down.length >= 2 ? down : ascending(resolver, changes, i);
    }
    if (spans.length < 2) {
      TextDocument.update(document, [changes[i]!], version);
      i++;
      continue;
    }
    TextDocument.update(document, [{ text: applySpans(document.getText(), spans) }], version);
    i += spans.length;
  }
  if (changes.length === 0) TextDocument.update(document, [], version);
  return document;
}

/** A TextDocuments configuration: the library's documents, updated as above. */
export const BatchedTextDocument = { create: TextDocument.create, update: updateDocument };
