// Line facts the bench computes on its own, independent of the engine under
// test, so the ground truth never borrows the code it judges.

/** Lines of an LF text without terminators, and whether the last one had one. */
export interface Lines {
  lines: string[];
  finalNewline: boolean;
}

export function splitText(text: string): Lines {
  if (text === "") return { lines: [], finalNewline: true };
  const finalNewline = text.endsWith("\n");
  const lines = (finalNewline ? text.slice(0, -1) : text).split("\n");
  return { lines, finalNewline };
}

export function joinText({ lines, finalNewline }: Lines): string {
  if (lines.length === 0) return "";
  return lines.join("\n") + (finalNewline ? "\n" : "");
}

export function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, "\r\n");
}

/** Leading/trailing whitespace dropped and inner runs folded: "the same line" for a whitespace-blind reader. */
export function fold(line: string): string {
  return line.trim().replace(/\s+/g, " ");
}

export function leadingWhitespace(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

/** Every start where `needle` occurs in `haystack` as a contiguous run (compare keyed lines, e.g. folded). */
export function occurrences(haystack: readonly string[], needle: readonly string[]): number[] {
  const out: number[] = [];
  if (needle.length === 0) return out;
  for (let s = 0; s + needle.length <= haystack.length; s++) {
    let i = 0;
    while (i < needle.length && haystack[s + i] === needle[i]) i++;
    if (i === needle.length) out.push(s);
  }
  return out;
}

/**
 * The file's indentation step: a tab, four spaces or two spaces, when at least
 * 90% of the indented code lines agree (JSDoc ` * ` lines are left out); else undefined.
 */
export function indentUnit(lines: readonly string[]): "\t" | "    " | "  " | undefined {
  let tabs = 0;
  const spaces: number[] = [];
  for (const l of lines) {
    const ws = leadingWhitespace(l);
    if (ws === "" || ws.length === l.length || l.slice(ws.length).startsWith("*")) continue;
    if (ws.startsWith("\t")) tabs++;
    else if (/^ +$/.test(ws)) spaces.push(ws.length);
  }
  if (tabs === 0 && spaces.length === 0) return undefined;
  if (tabs > spaces.length) return "\t";
  const share = (step: number): number => spaces.filter((n) => n % step === 0).length / spaces.length;
  if (share(4) >= 0.9) return "    ";
  if (share(2) >= 0.9) return "  ";
  return undefined;
}
