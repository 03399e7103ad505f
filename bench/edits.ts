// Random real edits to a file: 1–4 changes at distinct places (modify a line
// range, insert lines, delete lines), new lines made from the file's own lines
// with a small change so they read like the code around them.
import { fold, leadingWhitespace } from "./lines.js";
import type { Rng } from "./prng.js";

const KEYWORDS = new Set(
  (
    "break case catch class const continue debugger default delete do else export extends false finally for function if import in " +
    "instanceof let new null return super switch this throw true try typeof undefined var void while with yield async await of from static get set"
  ).split(" "),
);

const SUFFIXES = ["2", "Next", "Value", "Count", "Old", "List", "Id"];
const COMMENT_WORDS = ["keep in sync", "see above", "fast path", "legacy", "TODO: check", "edge case"];

/** The line with one small, visible change; never equal to it modulo whitespace. */
export function tweakLine(line: string, rng: Rng): string {
  const ws = leadingWhitespace(line);
  const body = line.slice(ws.length);
  const attempts: (() => string | undefined)[] = [
    () => {
      const ids = [...body.matchAll(/[A-Za-z_$][\w$]{2,}/g)].filter((m) => !KEYWORDS.has(m[0]));
      if (ids.length === 0) return undefined;
      const m = rng.pick(ids);
      return ws + body.slice(0, m.index) + m[0] + rng.pick(SUFFIXES) + body.slice(m.index + m[0].length);
    },
    () => {
      const nums = [...body.matchAll(/\b\d+\b/g)];
      if (nums.length === 0) return undefined;
      const m = rng.pick(nums);
      return (
        ws + body.slice(0, m.index) + String(Number(m[0]) + rng.int(1, 9)) + body.slice(m.index + m[0].length)
      );
    },
    () => {
      const strs = [...body.matchAll(/(["'`])([^"'`\\]{1,40})\1/g)];
      if (strs.length === 0) return undefined;
      const m = rng.pick(strs);
      const inner = m[2]! + rng.pick(["-x", " again", "s", "_v2"]);
      return ws + body.slice(0, m.index) + m[1] + inner + m[1] + body.slice(m.index + m[0].length);
    },
  ];
  for (const attempt of rng.shuffle(attempts)) {
    const out = attempt();
    if (out !== undefined && fold(out) !== fold(line)) return out;
  }
  return `${line}${body === "" ? ws : " "}// ${rng.pick(COMMENT_WORDS)}`;
}

/** A line of code taken from elsewhere in the file, tweaked and indented like `indent`. */
function borrowedLine(lines: readonly string[], indent: string, rng: Rng): string {
  const pool = lines.filter((l) => l.trim().length >= 4 && l.length <= 120);
  const source = pool.length > 0 ? rng.pick(pool) : "value = value + 1;";
  const tweaked = tweakLine(source, rng);
  return indent + tweaked.slice(leadingWhitespace(tweaked).length);
}

/** A code line: not blank, not inside a block comment, indented by one kind of whitespace. */
function isCodeLine(line: string): boolean {
  const body = line.trim();
  return body !== "" && !/^(?:\*|\/\*)/.test(body) && !/^(?:\t+ | +\t)/.test(line);
}

/** The indentation new lines at `at` take: that of the nearest code line above (or else below). */
function codeIndent(lines: readonly string[], at: number): string {
  for (let i = Math.min(at, lines.length - 1); i >= 0; i--)
    if (isCodeLine(lines[i]!)) return leadingWhitespace(lines[i]!);
  for (let i = at; i < lines.length; i++) if (isCodeLine(lines[i]!)) return leadingWhitespace(lines[i]!);
  return "";
}

export type ChangeKind = "modify" | "insert" | "delete";

interface Change {
  kind: ChangeKind;
  /** 0-based first line affected (for insert: the line the new lines go before). */
  start: number;
  removed: number;
  added: string[];
}

/** A small block, as a model adds one: an `if` line, a body one level deeper, maybe the closing brace. */
function nestedBlock(
  lines: readonly string[],
  indent: string,
  unit: string,
  total: number,
  rng: Rng,
): string[] {
  const ids = [...new Set(lines.join(" ").match(/[A-Za-z_$][\w$]{3,}/g) ?? [])].filter(
    (w) => !KEYWORDS.has(w),
  );
  const cond = ids.length > 0 ? rng.pick(ids) : "ready";
  const block = [`${indent}if (${cond}) {`];
  for (let j = 1; j < total; j++)
    block.push(j === total - 1 && total === 3 ? `${indent}}` : borrowedLine(lines, indent + unit, rng));
  return block;
}

/**
 * The post-image lines of a random edit with 1–4 changes at distinct places.
 * `unit` is the file's indentation step, used when an added block nests.
 */
export function randomEdit(lines: readonly string[], rng: Rng, unit = "  "): string[] {
  const n = lines.length;
  const count = rng.int(1, 4);
  const changes: Change[] = [];
  const gap = 4; // unchanged lines required between changes
  for (let tries = 0; changes.length < count && tries < 50; tries++) {
    const kind = rng.pick<ChangeKind>(["modify", "modify", "insert", "delete"]);
    const removed = kind === "insert" ? 0 : Math.min(rng.int(1, 3), n);
    const start = rng.int(0, n - removed);
    const end = start + removed;
    if (changes.some((c) => start < c.start + c.removed + gap && c.start < end + gap)) continue;
    const indent = codeIndent(lines, start);
    const added: string[] = [];
    const nested = kind !== "delete" && rng.chance(0.3);
    if (nested) {
      added.push(...nestedBlock(lines, indent, unit, rng.int(2, 3), rng));
    } else if (kind === "modify") {
      const total = rng.int(1, 3);
      for (let j = 0; j < total; j++) {
        const old = j < removed ? lines[start + j]! : undefined;
        added.push(
          old !== undefined && old.trim() !== "" ? tweakLine(old, rng) : borrowedLine(lines, indent, rng),
        );
      }
    } else if (kind === "insert") {
      const total = rng.int(1, 3);
      for (let j = 0; j < total; j++) added.push(borrowedLine(lines, indent, rng));
    }
    changes.push({ kind, start, removed, added });
  }
  changes.sort((a, b) => a.start - b.start);
  const out: string[] = [];
  let at = 0;
  for (const c of changes) {
    out.push(...lines.slice(at, c.start), ...c.added);
    at = c.start + c.removed;
  }
  out.push(...lines.slice(at));
  return out;
}
