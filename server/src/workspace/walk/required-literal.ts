// What a file must contain for a pattern to match a line of it, found from the
// pattern's text: most files of a tree hold none of it, and those are never
// decoded nor matched (the search thread looks for these bytes first). The
// reading is conservative: anything not understood gives no prefilter, never a
// wrong one, so a prefilter only ever skips files the pattern cannot match.

/**
 * How the search thread looks for a pattern's required text in a file's raw
 * bytes: case-sensitive literals with Buffer.indexOf (no text made); under
 * case folding, a regular expression run over the bytes read as latin1 (one
 * character per byte), about as fast, at the cost of a string per piece.
 */
export type Prefilter =
  /** Any of these byte strings (each written one character per byte, latin1). */
  | { kind: "bytes"; needles: string[] }
  | {
      kind: "regex";
      source: string;
      flags: string;
      /** The most bytes one match spans (pieces overlap by this). */ span: number;
    };

/** Case-sensitive alternatives looked for one by one, at most this many (a pass over the bytes each). */
const MAX_BYTE_NEEDLES = 4;

const ESCAPED_LITERALS = "^$\\.*+?()[]{}|/-";
const ESCAPED_CLASSES = "bBdDwWsSnrtfv";

/**
 * The prefilter for a compiled pattern (its source and flags), or undefined
 * when no literal text is required of every match (then every file is matched).
 */
export function prefilterOf(source: string, flags: string): Prefilter | undefined {
  const ignoreCase = flags.includes("i");
  const branches = requiredLiterals(source, ignoreCase);
  if (branches === undefined) return undefined;
  const needles = branches.map((literal) => Buffer.from(literal, "utf8").toString("latin1"));
  if (!ignoreCase && needles.length <= MAX_BYTE_NEEDLES) return { kind: "bytes", needles };
  const unicode = flags.includes("u");
  const span = 3 * Math.max(...needles.map((n) => n.length));
  return {
    kind: "regex",
    source: needles.map((n) => latin1Source(n, ignoreCase && unicode)).join("|"),
    flags: ignoreCase ? "i" : "",
    span,
  };
}

/** A latin1 needle as regex source; with Unicode case folding, k and s also match K (U+212A) and ſ (U+017F) in UTF-8. */
function latin1Source(needle: string, foldsOutsideAscii: boolean): string {
  let out = "";
  for (const ch of needle) {
    const code = ch.charCodeAt(0);
    const lower = ch.toLowerCase();
    if (foldsOutsideAscii && lower === "k") out += "(?:k|\\xe2\\x84\\xaa)";
    else if (foldsOutsideAscii && lower === "s") out += "(?:s|\\xc5\\xbf)";
    else if (/[A-Za-z0-9_]/.test(ch)) out += ch;
    else out += `\\x${code.toString(16).padStart(2, "0")}`;
  }
  return out;
}

/**
 * Text that every match of `source` contains: one literal per top-level
 * alternative (the longest run of plain characters in it), or undefined when
 * some alternative requires none. Under `ignoreCase` only ASCII runs count.
 */
export function requiredLiterals(source: string, ignoreCase: boolean): string[] | undefined {
  const branches: string[] = [];
  let best = "";
  let run = "";
  const endRun = (): void => {
    if (Buffer.byteLength(run) > Buffer.byteLength(best)) best = run;
    run = "";
  };
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === "|") {
      endRun();
      if (best === "") return undefined;
      branches.push(best);
      best = "";
      i++;
      continue;
    }
    if (c === "(" || c === "[" || c === "." || c === "^" || c === "$") {
      const end = c === "(" ? skipGroup(source, i) : c === "[" ? skipClass(source, i) : i + 1;
      if (end < 0) return undefined;
      endRun();
      const after = quantifierAt(source, end);
      if (after === undefined) return undefined;
      i = after.end;
      continue;
    }
    if (")]{}*+?".includes(c)) return undefined;
    let ch: string;
    let length: number;
    if (c === "\\") {
      const d = source[i + 1];
      if (d === undefined) return undefined;
      if (ESCAPED_CLASSES.includes(d)) {
        endRun();
        const after = quantifierAt(source, i + 2);
        if (after === undefined) return undefined;
        i = after.end;
        continue;
      }
      if (!ESCAPED_LITERALS.includes(d)) return undefined;
      ch = d;
      length = 2;
    } else {
      ch = String.fromCodePoint(source.codePointAt(i)!);
      length = ch.length;
    }
    const q = quantifierAt(source, i + length);
    if (q === undefined) return undefined;
    const code = ch.codePointAt(0)!;
    const plain = !(code >= 0xd800 && code <= 0xdfff) && !(ignoreCase && code > 0x7f);
    if (q.min === 0 || !plain) endRun();
    else {
      run += ch;
      if (q.end !== i + length) endRun();
    }
    i = q.end;
  }
  endRun();
  if (best === "") return undefined;
  branches.push(best);
  return branches;
}

/** The quantifier at `at`, if any: its minimum and where it ends (undefined: a brace this reading does not know). */
function quantifierAt(source: string, at: number): { min: number; end: number } | undefined {
  const c = source[at];
  let min: number;
  let end: number;
  if (c === "?" || c === "*") [min, end] = [0, at + 1];
  else if (c === "+") [min, end] = [1, at + 1];
  else if (c === "{") {
    const m = /^\{(\d+)(?:,\d*)?\}/.exec(source.slice(at, at + 40));
    if (m === null) return undefined;
    [min, end] = [Number(m[1]), at + m[0].length];
  } else return { min: 1, end: at };
  if (source[end] === "?") end++;
  return { min, end };
}

/** Index just past the group opening at `at`, or -1 when it does not close. */
function skipGroup(source: string, at: number): number {
  let depth = 0;
  for (let i = at; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "[") {
      const end = skipClass(source, i);
      if (end < 0) return -1;
      i = end - 1;
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i + 1;
  }
  return -1;
}

/** Index just past the character class opening at `at`, or -1 when it does not close. */
function skipClass(source: string, at: number): number {
  let i = at + 1;
  if (source[i] === "^") i++;
  for (; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "]") return i + 1;
  }
  return -1;
}
