// Text and LSP positions for the test client: UTF-16 positions (lines end at
// \n, \r\n or \r), finding a range by the text it covers, and applying text
// edits the way the LSP says (every range refers to the text before any edit).
// The buffers use the span helpers to apply an edit and to state the same
// edit as didChange content changes.
import type {
  Position,
  Range,
  TextDocumentContentChangeEvent,
  TextEdit,
} from "vscode-languageserver-protocol";

/** An edit as offsets into the text it applies to. */
export interface Span {
  start: number;
  end: number;
  newText: string;
}

/** Offsets where each line starts; lines end at \n, \r\n or \r. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  // The native search keeps a big buffer's edits cheap (the bench applies one per patch).
  if (!text.includes("\r")) {
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
    return starts;
  }
  const eol = /\r\n?|\n/g;
  for (let m = eol.exec(text); m !== null; m = eol.exec(text)) starts.push(m.index + m[0].length);
  return starts;
}

/** LSP position (UTF-16) → offset, clamped as the spec says: past the line end is the line end, past the last line is the end. */
export function offsetAt(text: string, position: Position, starts = lineStarts(text)): number {
  if (position.line < 0) return 0;
  const start = starts[position.line];
  if (start === undefined) return text.length;
  let end = starts[position.line + 1] ?? text.length;
  // The line's own length excludes its terminator.
  if (end > start && text.charCodeAt(end - 1) === 10) end--;
  if (end > start && text.charCodeAt(end - 1) === 13) end--;
  return start + Math.min(Math.max(position.character, 0), end - start);
}

export function positionAt(text: string, offset: number, starts = lineStarts(text)): Position {
  const at = Math.min(Math.max(offset, 0), text.length);
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, character: at - starts[lo]! };
}

/** The range of the `occurrence`-th (0-based) occurrence of `find` in `text`. */
export function rangeOf(text: string, find: string, occurrence = 0): Range {
  let at = -1;
  for (let i = 0; i <= occurrence; i++) {
    at = text.indexOf(find, at + 1);
    if (at === -1)
      throw new Error(`${JSON.stringify(find)} does not occur ${occurrence + 1} time(s) in the text`);
  }
  const starts = lineStarts(text);
  return { start: positionAt(text, at, starts), end: positionAt(text, at + find.length, starts) };
}

export function wholeRange(text: string): Range {
  return { start: { line: 0, character: 0 }, end: positionAt(text, text.length) };
}

/** Edits in order of position (ties keep their given order), each as offsets into `text`. */
export function sortedOffsets(text: string, edits: readonly TextEdit[], starts = lineStarts(text)): Span[] {
  const spans = edits.map((e, i) => ({
    start: offsetAt(text, e.range.start, starts),
    end: offsetAt(text, e.range.end, starts),
    newText: e.newText,
    i,
  }));
  spans.sort((a, b) => a.start - b.start || a.i - b.i);
  for (let k = 0; k < spans.length; k++) {
    const s = spans[k]!;
    if (s.end < s.start) throw new Error(`text edit with end before start: ${JSON.stringify(edits[s.i])}`);
    const next = spans[k + 1];
    if (next && next.start < s.end)
      throw new Error(
        `overlapping text edits: ${JSON.stringify(edits[s.i])} and ${JSON.stringify(edits[next.i])}`,
      );
  }
  return spans;
}

/** Applies LSP text edits, all ranges referring to `text` (the LSP rule); throws on overlaps. */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  return applySpans(text, sortedOffsets(text, edits));
}

/** Applies spans sorted by position and not overlapping (what sortedOffsets returns). */
export function applySpans(text: string, spans: readonly Span[]): string {
  let out = "";
  let at = 0;
  for (const s of spans) {
    out += text.slice(at, s.start) + s.newText;
    at = s.end;
  }
  return out + text.slice(at);
}

/**
 * The same edits as didChange content changes, which apply one after another:
 * last position first, so each range is still valid when its turn comes.
 */
export function contentChangesFor(
  text: string,
  spans: readonly Span[],
  starts: number[],
): TextDocumentContentChangeEvent[] {
  return [...spans].reverse().map((s) => ({
    range: { start: positionAt(text, s.start, starts), end: positionAt(text, s.end, starts) },
    text: s.newText,
  }));
}
