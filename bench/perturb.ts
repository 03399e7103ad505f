// The ways a model gets a unified diff slightly wrong, each a pure function of
// a true diff (as `createPatch` writes it). Lines keep their own `\r`, so a
// CRLF diff stays CRLF where it was.
import type { Rng } from "./prng.js";

interface DiffLine {
  body: string;
  cr: boolean;
}

const HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;

function read(diff: string): DiffLine[] {
  const raw = diff.split("\n");
  if (raw[raw.length - 1] === "") raw.pop();
  return raw.map((l) => (l.endsWith("\r") ? { body: l.slice(0, -1), cr: true } : { body: l, cr: false }));
}

function write(lines: readonly DiffLine[]): string {
  return lines.map((l) => l.body + (l.cr ? "\r" : "") + "\n").join("");
}

function isHeader(line: DiffLine): boolean {
  return line.body.startsWith("@@");
}

interface Header {
  oldStart: number;
  oldCount: number | undefined;
  newStart: number;
  newCount: number | undefined;
  rest: string;
}

function parseHeader(body: string): Header | undefined {
  const m = HEADER.exec(body);
  if (!m) return undefined;
  const count = (s: string | undefined): number | undefined => (s === undefined ? undefined : Number(s));
  return {
    oldStart: Number(m[1]),
    oldCount: count(m[2]),
    newStart: Number(m[3]),
    newCount: count(m[4]),
    rest: m[5] ?? "",
  };
}

function formatHeader(h: Header): string {
  const side = (start: number, count: number | undefined): string =>
    count === undefined ? `${start}` : `${start},${count}`;
  return `@@ -${side(h.oldStart, h.oldCount)} +${side(h.newStart, h.newCount)} @@${h.rest}`;
}

/** Rewrites every hunk header; `fn` gets the hunk's 0-based index. */
function mapHeaders(diff: string, fn: (h: Header, index: number) => string): string {
  let index = 0;
  const lines = read(diff).map((l) => {
    if (!isHeader(l)) return l;
    const h = parseHeader(l.body);
    if (!h) return l;
    return { ...l, body: fn(h, index++) };
  });
  return write(lines);
}

/** Old and new starts of hunk i moved by `offset(i)`, never below line 1. */
export function shiftHeaders(diff: string, offset: (hunk: number) => number): string {
  return mapHeaders(diff, (h, i) => {
    const d = offset(i);
    return formatHeader({
      ...h,
      oldStart: Math.max(1, h.oldStart + d),
      newStart: Math.max(1, h.newStart + d),
    });
  });
}

/** A random offset of 10–60 lines, either direction. */
export function randomOffset(rng: Rng): number {
  return rng.int(10, 60) * (rng.chance(0.5) ? 1 : -1);
}

export function bareHeaders(diff: string): string {
  return mapHeaders(diff, () => "@@ @@");
}

/** Every header's counts replaced by numbers that are off by 1–3 (never the true ones). */
export function wrongCounts(diff: string, rng: Rng): string {
  const wrong = (n: number | undefined): number => {
    const base = n ?? 1;
    const options = [-3, -2, -1, 1, 2, 3].map((d) => base + d).filter((v) => v >= 0);
    return rng.pick(options);
  };
  return mapHeaders(diff, (h) =>
    formatHeader({ ...h, oldCount: wrong(h.oldCount), newCount: wrong(h.newCount) }),
  );
}

const PROSE = [
  "Here is the change to the file:",
  "Apply this patch to fix the issue.",
  "The following diff updates the function as requested.",
  "I made the edit below; the rest of the file stays as it is.",
];

/** `Index:`/`===`/`---`/`+++` lines dropped, the hunks fenced as ```diff after a sentence of prose. */
export function fencedWithoutFileHeaders(diff: string, rng: Rng): string {
  const lines = read(diff);
  const first = lines.findIndex(isHeader);
  const hunks =
    first === -1 ? [] : lines.slice(first).filter((l) => !/^(?:--- |\+\+\+ |Index: |={10,})/.test(l.body));
  return `${rng.pick(PROSE)}\n\n\`\`\`diff\n${write(hunks)}\`\`\`\n`;
}

/** Indices of context lines (in diff line order). */
function contextLines(lines: readonly DiffLine[]): number[] {
  const out: number[] = [];
  let inHunk = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (isHeader(l)) inHunk = true;
    else if (inHunk && l.body.startsWith(" ")) out.push(i);
  }
  return out;
}

/** Trailing spaces added to about a third of the context lines (at least one); undefined without context. */
export function padContext(diff: string, rng: Rng): string | undefined {
  const lines = read(diff);
  const ctx = contextLines(lines);
  if (ctx.length === 0) return undefined;
  const chosen = new Set(rng.shuffle(ctx).slice(0, Math.max(1, Math.round(ctx.length / 3))));
  return write(lines.map((l, i) => (chosen.has(i) ? { ...l, body: l.body + " ".repeat(rng.int(1, 3)) } : l)));
}

export type ReindentRule = "tabs->2 spaces" | "4 spaces->2 spaces" | "2 spaces->4 spaces";

const RULES: Record<ReindentRule, (indent: string) => string> = {
  "tabs->2 spaces": (ws) => ws.replace(/\t/g, "  "),
  // Levels of four become levels of two; a remainder (a JSDoc ` * `) stays as it is.
  "4 spaces->2 spaces": (ws) =>
    /^ *$/.test(ws) ? " ".repeat(2 * Math.floor(ws.length / 4) + (ws.length % 4)) : ws,
  "2 spaces->4 spaces": (ws) => (/^ *$/.test(ws) ? " ".repeat(2 * ws.length) : ws),
};

/** The re-indentation a model plausibly makes of a file indented by `unit`. */
export function ruleForUnit(unit: string | undefined): ReindentRule | undefined {
  if (unit === "\t") return "tabs->2 spaces";
  if (unit === "    ") return "4 spaces->2 spaces";
  if (unit === "  ") return "2 spaces->4 spaces";
  return undefined;
}

/**
 * Every hunk line (context, removed and added) re-indented by `rule`; undefined
 * when that changes nothing or maps two different indents of the diff to one
 * (the original would not be recoverable).
 */
export function reindent(diff: string, rule: ReindentRule): string | undefined {
  const map = RULES[rule];
  const lines = read(diff);
  const hunkLine: boolean[] = [];
  let inHunk = false;
  for (const l of lines) {
    if (isHeader(l)) inHunk = true;
    hunkLine.push(inHunk && /^[ +-]/.test(l.body));
  }
  const indents = new Set<string>();
  lines.forEach((l, i) => {
    if (hunkLine[i] && l.body.slice(1).trim() !== "") indents.add(/^[ \t]*/.exec(l.body.slice(1))![0]);
  });
  const images = new Set([...indents].map(map));
  const changes = [...indents].some((ws) => map(ws) !== ws);
  if (!changes || images.size !== indents.size) return undefined;
  const out = lines.map((l, i) => {
    if (!hunkLine[i]) return l;
    const text = l.body.slice(1);
    const ws = /^[ \t]*/.exec(text)![0];
    return { ...l, body: l.body[0] + map(ws) + text.slice(ws.length) };
  });
  return write(out);
}

/** Where a context line was replaced: the hunk, and the line's index among the hunk's old-side lines. */
export interface Hallucination {
  diff: string;
  hunk: number;
  oldIndex: number;
  original: string;
}

/**
 * One context line that is not next to a + or - line replaced by `invent(line)`;
 * undefined when no such line exists or `invent` declines all of them.
 */
export function hallucinateContext(
  diff: string,
  rng: Rng,
  invent: (line: string) => string | undefined,
): Hallucination | undefined {
  const lines = read(diff);
  const candidates: { at: number; hunk: number; oldIndex: number }[] = [];
  let hunk = -1;
  let oldIndex = 0;
  const isChange = (l: DiffLine | undefined): boolean =>
    l !== undefined && (l.body.startsWith("+") || l.body.startsWith("-")) && !isHeader(l);
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (isHeader(l)) {
      hunk++;
      oldIndex = 0;
      continue;
    }
    if (hunk < 0) continue;
    if (l.body.startsWith(" ")) {
      if (l.body.trim() !== "" && !isChange(lines[i - 1]) && !isChange(lines[i + 1]))
        candidates.push({ at: i, hunk, oldIndex });
      oldIndex++;
    } else if (l.body.startsWith("-")) oldIndex++;
  }
  for (const c of rng.shuffle(candidates)) {
    const line = lines[c.at]!;
    const original = line.body.slice(1);
    const replacement = invent(original);
    if (replacement === undefined) continue;
    const out = lines.slice();
    out[c.at] = { ...line, body: " " + replacement };
    return { diff: write(out), hunk: c.hunk, oldIndex: c.oldIndex, original };
  }
  return undefined;
}

/** Blank context lines written as empty lines; undefined when the diff has none. */
export function dropBlankPrefix(diff: string): string | undefined {
  const lines = read(diff);
  let inHunk = false;
  let changed = false;
  const out = lines.map((l) => {
    if (isHeader(l)) inHunk = true;
    if (inHunk && l.body === " ") {
      changed = true;
      return { ...l, body: "" };
    }
    return l;
  });
  return changed ? write(out) : undefined;
}

/** The file name in the `Index:`/`---`/`+++` lines replaced, so a diff claims another file. */
export function renameFile(diff: string, name: string): string {
  return write(
    read(diff).map((l) => {
      if (isHeader(l)) return l;
      const m = /^(Index: |--- |\+\+\+ )(\S+)(.*)$/.exec(l.body);
      return m ? { ...l, body: m[1] + name + m[3] } : l;
    }),
  );
}

/** Each hunk's old side (context and removed lines, without the op), in diff order. */
export function hunkOldSides(diff: string): { oldStart: number | undefined; lines: string[] }[] {
  const out: { oldStart: number | undefined; lines: string[] }[] = [];
  for (const l of read(diff)) {
    if (isHeader(l)) {
      out.push({ oldStart: parseHeader(l.body)?.oldStart, lines: [] });
      continue;
    }
    const cur = out[out.length - 1];
    if (cur && (l.body.startsWith(" ") || l.body.startsWith("-"))) cur.lines.push(l.body.slice(1));
  }
  return out;
}

/** The file headers and hunk `index` alone, its new start set to its old start (as if no other hunk came first). */
export function singleHunk(diff: string, index: number): string {
  const lines = read(diff);
  const out: DiffLine[] = [];
  let hunk = -1;
  for (const l of lines) {
    if (isHeader(l)) {
      hunk++;
      if (hunk === index) {
        const h = parseHeader(l.body);
        out.push(h ? { ...l, body: formatHeader({ ...h, newStart: h.oldStart }) } : l);
      }
      continue;
    }
    if (hunk === -1 || hunk === index) out.push(l);
  }
  return write(out);
}
