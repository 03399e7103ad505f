// When a model re-types context lines with other indentation (tabs for spaces,
// two spaces for four), its added lines carry the same drift. Learn the mapping
// from the lines that matched and apply it to the lines being added. A mapping is
// only applied when it explains every matched pair; when several do and disagree,
// the one that speaks the file's own indentation unit wins.

export type LineFix = (line: string) => string;

/** A text's indentation step: a tab, or a number of spaces. */
export type IndentUnit = "\t" | number;

export interface Indentation {
  unit: IndentUnit | undefined;
  /** Every indented line starts with a tab (doc-comment ` *` alignment aside). */
  tabsOnly: boolean;
}

const identity: LineFix = (line) => line;

function lead(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

/** ` * text` under `/**`: aligned by one space whatever the indentation style. */
function isCommentAlignment(line: string): boolean {
  return /^[ \t]* \*/.test(line);
}

/** The indentation a run of lines uses: tabs, or the most common step between consecutive space-indented lines. */
export function detectIndentation(lines: readonly string[]): Indentation {
  let tabLines = 0;
  let spaceLines = 0;
  const steps = new Map<number, number>();
  let previous: number | undefined;
  for (const line of lines) {
    if (line.trim() === "") continue;
    const l = lead(line);
    if (l.startsWith("\t")) tabLines++;
    else if (l.length > 0 && !isCommentAlignment(line)) spaceLines++;
    if (/^ *$/.test(l) && !isCommentAlignment(line)) {
      if (previous !== undefined && l.length > previous) steps.set(l.length - previous, (steps.get(l.length - previous) ?? 0) + 1);
      previous = l.length;
    }
  }
  const unit: IndentUnit | undefined = tabLines > 0 && tabLines >= spaceLines ? "\t" : spaceUnit(steps);
  return { unit, tabsOnly: tabLines > 0 && spaceLines === 0 };
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * The space unit from the increases in indentation between lines: the common
 * divisor of the frequent steps (code that nests two levels at once still says
 * "4", not "8"), or the most frequent step when that divisor would be 1.
 */
function spaceUnit(steps: Map<number, number>): number | undefined {
  let total = 0;
  let best: [number, number] | undefined;
  for (const [step, n] of steps) {
    total += n;
    if (!best || n > best[1] || (n === best[1] && step < best[0])) best = [step, n];
  }
  if (!best) return undefined;
  let divisor = 0;
  for (const [step, n] of steps) if (step > 1 && n >= Math.max(1, total / 10)) divisor = gcd(divisor, step);
  return divisor >= 2 && divisor <= 8 ? divisor : best[0] <= 8 ? best[0] : undefined;
}

/** Re-expresses an indent written in `from` units in `to` units, level for level; the remainder stays spaces. */
function convertUnits(from: IndentUnit, to: IndentUnit): (indent: string) => string | undefined {
  return (indent) => {
    let levels: number;
    let rest: number;
    if (from === "\t") {
      const tabs = /^\t*/.exec(indent)![0].length;
      const after = indent.slice(tabs);
      if (!/^ *$/.test(after)) return undefined;
      levels = tabs;
      rest = after.length;
    } else {
      if (!/^ *$/.test(indent)) return undefined;
      levels = Math.floor(indent.length / from);
      rest = indent.length % from;
    }
    return (to === "\t" ? "\t".repeat(levels) : " ".repeat(levels * to)) + " ".repeat(rest);
  };
}

/** Rules that could explain one drifted pair: a prefix added or taken away. */
function offsetRules(model: string, file: string): ((indent: string) => string | undefined)[] {
  const rules: ((indent: string) => string | undefined)[] = [];
  if (file.endsWith(model)) {
    const extra = file.slice(0, file.length - model.length);
    rules.push((x) => extra + x);
  }
  if (model.endsWith(file)) {
    const extra = model.slice(0, model.length - file.length);
    rules.push((x) => (x.startsWith(extra) ? x.slice(extra.length) : undefined));
  }
  return rules;
}

export interface WhitespaceHints {
  /** Every line as the model wrote it (context, removed and added), for its indentation unit. */
  modelLines?: readonly string[];
  /** The file's indentation, computed on demand. */
  fileIndentation?: () => Indentation;
}

type Rule = (indent: string) => string | undefined;

const UNITS: IndentUnit[] = ["\t", 2, 4, 8];

/** Every leading-space width multiplied by one ratio (`4 → 2`, `2 → 4`): a re-indent that keeps alignment spaces in proportion. */
function ratioRule(indents: [string, string][]): Rule | undefined {
  const spaces = (s: string): boolean => /^ *$/.test(s);
  const first = indents.find(([m, f]) => m !== f && m.length > 0 && spaces(m) && spaces(f));
  if (!first) return undefined;
  const ratio = first[1].length / first[0].length;
  return (x) => (spaces(x) && Number.isInteger(x.length * ratio) ? " ".repeat(x.length * ratio) : undefined);
}

/**
 * Candidate rules, likeliest first: the conversion between the model's and the
 * file's detected units; a constant prefix when both use the same unit (the
 * model shifted the whole hunk); a ratio; any unit conversion into the file's
 * unit; a prefix.
 */
function candidateRules(indents: [string, string][], modelUnit: IndentUnit | undefined, fileUnit: IndentUnit | undefined): Rule[] {
  const drifted = indents.filter(([m, f]) => m !== f);
  const offsets = drifted.flatMap(([m, f]) => offsetRules(m, f));
  const rules: (Rule | undefined)[] = [];
  if (modelUnit !== undefined && fileUnit !== undefined && modelUnit !== fileUnit) rules.push(convertUnits(modelUnit, fileUnit));
  if (modelUnit !== undefined && modelUnit === fileUnit) rules.push(...offsets);
  rules.push(ratioRule(indents));
  if (fileUnit !== undefined) for (const from of UNITS) if (from !== fileUnit) rules.push(convertUnits(from, fileUnit));
  rules.push(...offsets);
  // Detection can misjudge a unit (a file whose continuation lines step by 2 in 4-space code):
  // every other conversion is tried last, and only one that explains every pair is used.
  for (const from of UNITS) for (const to of UNITS) if (from !== to) rules.push(convertUnits(from, to));
  return rules.filter((r): r is Rule => r !== undefined);
}

export interface LearnedFix {
  fix: LineFix;
  /** False when the pairs' indentation cannot be explained by one rule (the fix then leaves indentation alone). */
  consistent: boolean;
}

/**
 * Learns how the model's lines differ from the file's in leading whitespace, from pairs of lines that match modulo whitespace, and returns the
 * fix for added lines. Without a consistent drift, lines are left as written;
 * the one exception is spaces written into a file indented only with tabs.
 */
export function learnIndentation(pairs: readonly (readonly [model: string, file: string])[], hints: WhitespaceHints = {}): LearnedFix {
  const solid = pairs.filter(([m]) => m.trim() !== "");
  const indents: [string, string][] = solid.map(([m, f]) => [lead(m), lead(f)]);
  const drift = indents.some(([m, f]) => m !== f);
  let fixIndent: ((indent: string) => string) | undefined;

  const seen = new Map<string, string>();
  let consistent = true;
  for (const [m, f] of indents) {
    if (seen.has(m) && seen.get(m) !== f) consistent = false;
    seen.set(m, f);
  }
  const modelUnit = hints.modelLines ? detectIndentation(hints.modelLines).unit : undefined;
  const file = hints.fileIndentation;

  if (drift && consistent) {
    const rules = candidateRules(indents, modelUnit, file?.().unit).filter((r) => indents.every(([m, f]) => r(m) === f));
    consistent = rules.length > 0;
    const rule = rules[0];
    fixIndent = (x) => seen.get(x) ?? (rule ? (rule(x) ?? x) : x);
  } else if (!drift && indents.every(([m]) => m === "") && modelUnit !== undefined && modelUnit !== "\t" && file?.().tabsOnly) {
    // No pair says anything (all unindented), but spaces in a file indented only with tabs are the model's.
    const toTabs = convertUnits(modelUnit, "\t");
    if (indents.every(([m, f]) => toTabs(m) === f)) fixIndent = (x) => (/^ +$/.test(x) ? (toTabs(x) ?? x) : x);
  }

  // Trailing whitespace on added lines is left as written: drift in context lines says nothing
  // about it, and a trailing space can be meant (inside a string, say).
  if (!fixIndent) return { fix: identity, consistent };
  const indent = fixIndent;
  const fix: LineFix = (line) => {
    if (line.trim() === "") return line;
    const l = lead(line);
    return indent(l) + line.slice(l.length);
  };
  return { fix, consistent };
}

export function learnWhitespaceFix(pairs: readonly (readonly [model: string, file: string])[], hints: WhitespaceHints = {}): LineFix {
  return learnIndentation(pairs, hints).fix;
}
