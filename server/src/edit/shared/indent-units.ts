// How a text indents: its unit (a tab, or a number of spaces), whether a line's
// leading whitespace says anything, and the rules that map one indentation frame
// onto another (a unit converted, a prefix added or taken away, a width scaled).
// The evidence rule in indentation.ts decides when such a rule may be applied.

/** Whether a line's leading whitespace says anything about indentation: ` * ` under a top-level `/**` does not. */
export function showsIndentation(line: string): boolean {
  const l = lead(line);
  return l !== "" && !(l === " " && isCommentAlignment(line)) && line.trim() !== "";
}

/** A text's indentation step: a tab, or a number of spaces. */
export type IndentUnit = "\t" | number;

export interface Indentation {
  unit: IndentUnit | undefined;
  /** Every indented line starts with a tab (doc-comment ` *` alignment aside). */
  tabsOnly: boolean;
}

export function lead(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

/** ` * text` under `/**`: aligned by one space whatever the indentation style. */
export function isCommentAlignment(line: string): boolean {
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
      if (previous !== undefined && l.length > previous)
        steps.set(l.length - previous, (steps.get(l.length - previous) ?? 0) + 1);
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
export function convertUnits(from: IndentUnit, to: IndentUnit): (indent: string) => string | undefined {
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

export type Rule = (indent: string) => string | undefined;

export const UNITS: IndentUnit[] = ["\t", 2, 4, 8];

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
export function candidateRules(
  indents: [string, string][],
  modelUnit: IndentUnit | undefined,
  fileUnit: IndentUnit | undefined,
): Rule[] {
  const drifted = indents.filter(([m, f]) => m !== f);
  const offsets = drifted.flatMap(([m, f]) => offsetRules(m, f));
  const rules: (Rule | undefined)[] = [];
  if (modelUnit !== undefined && fileUnit !== undefined && modelUnit !== fileUnit)
    rules.push(convertUnits(modelUnit, fileUnit));
  if (modelUnit !== undefined && modelUnit === fileUnit) rules.push(...offsets);
  rules.push(ratioRule(indents));
  if (fileUnit !== undefined)
    for (const from of UNITS) if (from !== fileUnit) rules.push(convertUnits(from, fileUnit));
  rules.push(...offsets);
  // Detection can misjudge a unit (a file whose continuation lines step by 2 in 4-space code):
  // every other conversion is tried last, and only one that explains every pair is used.
  for (const from of UNITS) for (const to of UNITS) if (from !== to) rules.push(convertUnits(from, to));
  return rules.filter((r): r is Rule => r !== undefined);
}
