// Indentation is evidence, never a guess. A model that re-types context lines
// with other indentation (halved, tabs as spaces, shifted) may have written its
// added lines in the same drifted frame, or in the file's own. The two readings
// of an added line, literal and re-indented, are weighed on evidence alone: the
// file's indentation grid, and the added lines that repeat or rework an old-side
// line. Added lines are written as the model wrote them unless all of the
// evidence says it wrote in its own frame; when the readings differ and the
// evidence is silent or split, the answer is a refusal that names the line.
// The patch engine and the replace engine's flexible and token tiers share it.

import {
  candidateRules,
  convertUnits,
  detectIndentation,
  isCommentAlignment,
  lead,
  showsIndentation,
  UNITS,
  type Indentation,
  type Rule,
} from "./indent-units.js";

export { detectIndentation, lead, showsIndentation, type Indentation } from "./indent-units.js";

// ── The two readings of an added line, and the evidence between them ───────

/** One old-side line (context or removed) as the model typed it and as the file has it. */
export interface FramePair {
  model: string;
  file: string;
  removed: boolean;
}

/** A line the model writes, with the old-side lines it relates to (indices into the pairs). */
export interface AddedLine {
  text: string;
  /** The old-side line it replaces or follows (for an unchanged line: itself). */
  anchor?: number;
  /** The removed line it replaces, at the same place in its block: whose indentation it kept, the model's or
   * the file's, is evidence, and without one rule for the whole frame its offset from that line is the reading. */
  partner?: number;
  /** Old/new replacement only: the line is its anchor, unchanged; it is written as the file has it. */
  unchanged?: boolean;
}

export interface FrameQuestion {
  pairs: readonly FramePair[];
  added: readonly AddedLine[];
  /** The file's indentation, computed on demand. */
  fileIndentation: () => Indentation;
}

/** Why an added line's indentation cannot be settled: the two readings and what the evidence said. */
export interface IndentConflict {
  /** Index into the question's `added`. */
  added: number;
  literal: string;
  /** The line in the frame the old-side lines show; undefined when no rule gives one. */
  reindented: string | undefined;
  evidence: "none" | "split" | "no-reading";
}

export type FrameAnswer =
  | { ok: true; lines: string[]; reindented: boolean }
  | { ok: false; conflict: IndentConflict };

function isBlank(line: string): boolean {
  return line.trim() === "";
}

/** Whether an indentation is one the file's own style can produce (alignment under `/**` aside). */
function onGrid(indent: string, line: string, file: Indentation): boolean {
  const own = isCommentAlignment(line) && indent.endsWith(" ") ? indent.slice(0, -1) : indent;
  if (file.unit === undefined || own === "") return true;
  if (file.unit === "\t") return /^\t*$/.test(own);
  return /^ *$/.test(own) && own.length % file.unit === 0;
}

/**
 * The text each added line gets. Literal unless all of the evidence says the
 * model wrote in the frame its old-side lines show; a refusal when the two
 * readings differ and the evidence is silent or split.
 */
export function readAddedLines(q: FrameQuestion): FrameAnswer {
  const literal = q.added.map((a) => a.text);
  const solid = q.pairs.filter((p) => !isBlank(p.model));
  const indents: [string, string][] = solid.map((p) => [lead(p.model), lead(p.file)]);
  const drift = indents.some(([m, f]) => m !== f);
  const unchanged = q.added.map((a) =>
    a.unchanged && a.anchor !== undefined ? q.pairs[a.anchor]!.file : undefined,
  );
  if (!drift) {
    const lines = literal.map((text, i) => unchanged[i] ?? text);
    return spacesIntoTabs(q) ?? { ok: true, lines, reindented: false };
  }

  const file = gridAt(q);
  const reading = reindenter(q, indents, file);
  let model = 0;
  let asWritten = 0;
  // A removed line typed exactly as the file has it, indentation and all, says the model copied the file's
  // frame; in a file that mixes tabs and spaces, only for lines indented like the ones that drifted.
  const driftedPairs = indents.filter(([m, f]) => m !== f);
  const driftedStyles = new Set(driftedPairs.map(([, f]) => f.charAt(0)));
  // A ` * ` line under `/**` shows nothing of a frame, unless such lines drifted among the context too.
  const alignmentDrifted = solid.some(
    (p) => !p.removed && isCommentAlignment(p.file) && !showsIndentation(p.file) && p.model !== p.file,
  );
  const shows = (line: string): boolean =>
    showsIndentation(line) || (alignmentDrifted && isCommentAlignment(line));
  for (const p of solid)
    if (p.removed && p.model === p.file && shows(p.model) && driftedStyles.has(lead(p.file).charAt(0)))
      asWritten++;
  const readings = q.added.map(
    (a, i): string | undefined => unchanged[i] ?? (isBlank(a.text) ? a.text : reading.read(a)),
  );
  // The frame the old lines were typed in has a grid too: an added line off it but on the file's was typed in the file's.
  // Only a usual unit is trusted: an odd one comes from a stray step, not from a frame. The frame is read off the
  // lines in the style that drifted (and unindented ones): in a file that mixes tabs and spaces, the other style's
  // lines, typed exactly, say nothing of it (their tabs once made a halved frame of spaces look like tabs).
  const inStyle = solid.filter((p) => lead(p.file) === "" || driftedStyles.has(lead(p.file).charAt(0)));
  const modelFrame = detectIndentation(inStyle.map((p) => p.model));
  // A unit its own lines are not all on (one step of 8 among lines at 2, 4, 6) is no frame either.
  if (
    !UNITS.includes(modelFrame.unit ?? 0) ||
    !inStyle.every((p) => onGrid(lead(p.model), p.model, modelFrame))
  )
    modelFrame.unit = undefined;
  // ...and it speaks only of added lines typed in that frame's style (a tab-indented line says nothing of a frame of spaces).
  const modelStyles = new Set(driftedPairs.map(([m]) => m.charAt(0)));
  let firstDiffering = -1;
  for (let i = 0; i < q.added.length; i++) {
    const a = q.added[i]!;
    const re = readings[i];
    const l = lead(a.text);
    // Evidence from every line, whether or not its two readings differ: the grid of the
    // model's frame, and whose indentation a line kept when it replaced a drifted one.
    if (unchanged[i] === undefined && !isBlank(a.text)) {
      if (
        modelFrame.unit !== file.unit &&
        modelStyles.has(l.charAt(0)) &&
        onGrid(l, a.text, file) &&
        !onGrid(l, a.text, modelFrame)
      )
        asWritten++;
      const partner = a.partner === undefined ? undefined : q.pairs[a.partner];
      if (partner && lead(partner.model) !== lead(partner.file)) {
        if (l === lead(partner.model)) model++;
        else if (l === lead(partner.file)) asWritten++;
      }
    }
    if (re === a.text) continue;
    if (firstDiffering === -1) firstDiffering = i;
    if (unchanged[i] !== undefined) {
      model++; // a line the model left as it was must stay as the file has it
      continue;
    }
    // Only a reading that exists can be weighed against the grid: rules that disagree say nothing. Nor does a
    // ` * ` line: its alignment space puts it off every grid, in whichever frame it was typed.
    if (re !== undefined && !isCommentAlignment(a.text)) {
      const literalFits = onGrid(l, a.text, file);
      const readingFits = onGrid(lead(re), re, file);
      if (!literalFits && readingFits) model++;
      else if (literalFits && !readingFits) asWritten++;
    }
  }
  if (firstDiffering === -1) return { ok: true, lines: literal, reindented: false };
  if (model > 0 && asWritten === 0) {
    const missing = readings.findIndex((r) => r === undefined);
    if (missing !== -1)
      return {
        ok: false,
        conflict: {
          added: missing,
          literal: literal[missing]!,
          reindented: undefined,
          evidence: "no-reading",
        },
      };
    return { ok: true, lines: readings as string[], reindented: true };
  }
  if (asWritten > 0 && model === 0) return { ok: true, lines: literal, reindented: false };
  return {
    ok: false,
    conflict: {
      added: firstDiffering,
      literal: literal[firstDiffering]!,
      reindented: readings[firstDiffering],
      evidence: model > 0 ? "split" : "none",
    },
  };
}

/**
 * The grid at the hunk's place: in a file that mixes tabs and spaces, the
 * style of the lines the model's old lines met, with the file's unit where
 * those lines agree with it.
 */
function gridAt(q: FrameQuestion): Indentation {
  const file = q.fileIndentation();
  const here = q.pairs.map((p) => p.file).filter(showsIndentation);
  if (here.length === 0) return file;
  if (here.every((l) => l.startsWith("\t"))) return { unit: "\t", tabsOnly: true };
  if (here.every((l) => l.startsWith(" ")) && file.unit === "\t") {
    // Read off a few lines, a unit those very lines are not all on (a step of 8 among lines at 4, 8, 12) is no grid.
    const local: Indentation = { unit: detectIndentation(here).unit, tabsOnly: false };
    return here.every((l) => onGrid(lead(l), l, local)) ? local : { unit: undefined, tabsOnly: false };
  }
  return file;
}

interface Reindenter {
  /** One rule explains every old-side pair (else lines are read one by one from their anchors). */
  uniform: boolean;
  read: (a: AddedLine) => string | undefined;
}

/**
 * The re-indented reading: the indentation an old-side line showed maps as it
 * did; another one maps by the rule every old-side pair obeys, when all such
 * rules agree on it; without such a rule, each line keeps its offset from the
 * old-side line it replaces or follows.
 */
function reindenter(q: FrameQuestion, indents: [string, string][], file: Indentation): Reindenter {
  const seen = new Map<string, string>();
  let consistent = true;
  for (const [m, f] of indents) {
    if (seen.has(m) && seen.get(m) !== f) consistent = false;
    seen.set(m, f);
  }
  const modelUnit = detectIndentation([...q.pairs.map((p) => p.model), ...q.added.map((a) => a.text)]).unit;
  const fileUnit = file.unit;
  const explaining = consistent
    ? candidateRules(indents, modelUnit, fileUnit).filter((r) => indents.every(([m, f]) => r(m) === f))
    : [];
  // Among the rules every pair obeys, those that put every added line on the file's grid; they must then agree.
  const onFileGrid = (r: Rule): boolean =>
    q.added.every((a) => {
      if (isBlank(a.text)) return true;
      const image = r(lead(a.text));
      return image !== undefined && onGrid(image, a.text, file);
    });
  const fitting = explaining.filter(onFileGrid);
  const rules = fitting.length > 0 ? fitting : explaining;
  const uniform = rules.length > 0;
  // Line by line, only a line that replaces one has a reading: its offset from that line. A line
  // the model inserts next to others has nothing to go by when the old lines collapse several of
  // the file's indentations into one (indentation stripped, say).
  const perLine = (a: AddedLine, l: string): string | undefined => {
    const anchor = a.partner === undefined ? undefined : q.pairs[a.partner];
    if (!anchor) return undefined;
    const m = lead(anchor.model);
    const f = lead(anchor.file);
    if (l === m) return f;
    const convert =
      modelUnit !== undefined && fileUnit !== undefined && modelUnit !== fileUnit
        ? convertUnits(modelUnit, fileUnit)
        : (x: string) => x;
    if (l.startsWith(m)) {
      const extra = convert(l.slice(m.length));
      // Spaces then a tab is no indentation any style writes: the file's unit does not hold at this line's place.
      return extra === undefined || / \t/.test(f + extra) ? undefined : f + extra;
    }
    if (m.startsWith(l)) {
      const cut = convert(m.slice(l.length));
      return cut !== undefined && f.endsWith(cut) ? f.slice(0, f.length - cut.length) : undefined;
    }
    return undefined;
  };
  const read = (a: AddedLine): string | undefined => {
    const l = lead(a.text);
    const body = a.text.slice(l.length);
    let indent: string | undefined;
    if (consistent && seen.has(l)) indent = seen.get(l);
    else if (uniform) {
      const images = new Set(rules.map((r) => r(l)));
      indent = images.size === 1 ? [...images][0] : undefined;
    } else indent = perLine(a, l);
    return indent === undefined ? undefined : indent + body;
  };
  return { uniform, read };
}

/**
 * Spaces typed into a file indented with tabs, where no old-side line was
 * indented (so none could show the tabs): the model's unit becomes tabs. The
 * literal lines do not fit the file, and the conversion explains every pair.
 * Only for tabs: in a file indented with spaces, an odd width is as likely
 * alignment the model meant as another frame.
 */
function spacesIntoTabs(q: FrameQuestion): FrameAnswer | undefined {
  if (q.pairs.some((p) => showsIndentation(p.model)) || q.fileIndentation().unit !== "\t") return undefined;
  const texts = q.added.map((a) => a.text);
  if (!texts.some((t) => /^ +\S/.test(t) && !isCommentAlignment(t))) return undefined;
  const unit = detectIndentation(texts).unit;
  if (typeof unit !== "number") return undefined;
  const toTabs = convertUnits(unit, "\t");
  const lines = texts.map((t) => {
    const l = lead(t);
    return /^ +$/.test(l) && !(isCommentAlignment(t) && l === " ") ? (toTabs(l) ?? l) + t.slice(l.length) : t;
  });
  return { ok: true, lines, reindented: true };
}

/** Old/new line operations (a hunk's lines, or old_string against new_string) turned into a frame question. */
export interface LineOp {
  op: " " | "-" | "+";
  /** As the model typed it (for an equal line in `replace` mode: on the old side). */
  text: string;
  /** The file's line for an old-side op (context or removed). */
  fileText?: string;
  /** `replace` mode, equal lines: the line as new_string has it. */
  newText?: string;
}

/**
 * Builds the pairs and added lines for `readAddedLines`. In `diff` mode context
 * lines are only old-side; in `replace` mode (old_string/new_string) an equal
 * line is also written, as an unchanged line when the model typed it the same.
 */
export function frameOf(
  ops: readonly LineOp[],
  mode: "diff" | "replace",
  similar: (a: string, b: string) => boolean,
): Pick<FrameQuestion, "pairs" | "added"> {
  const pairs: FramePair[] = [];
  const added: AddedLine[] = [];
  let lastOld: number | undefined;
  // Replace mode only: the file's old-side lines, to tell when an equal line may be another of them.
  const fileTexts =
    mode === "replace"
      ? new Set(ops.filter((o) => o.op !== "+").map((o) => o.fileText ?? o.text))
      : undefined;
  let removed: number[] = [];
  let adds: number[] = [];
  const closeBlock = (next: number | undefined): void => {
    // An added line that replaces a line is read against it: a model that rewrites a line keeps its
    // level far more often than it moves it by exactly the drift. A block's first line replaces the
    // first line it removes; a later line replaces the one at its place only when they are alike.
    adds.forEach((ai, k) => {
      const a = added[ai]!;
      a.anchor = removed[k] ?? removed[removed.length - 1] ?? lastOld ?? next;
      const r = removed[k];
      if (r !== undefined && (k === 0 || similar(pairs[r]!.model, a.text))) a.partner = r;
    });
    removed = [];
    adds = [];
  };
  for (const o of ops) {
    if (o.op === "+") {
      adds.push(added.length);
      added.push({ text: o.text });
      continue;
    }
    const index = pairs.length;
    pairs.push({ model: o.text, file: o.fileText ?? o.text, removed: o.op === "-" });
    if (o.op === "-") {
      if (adds.length > 0) closeBlock(index);
      removed.push(index);
      continue;
    }
    closeBlock(index);
    lastOld = index;
    if (mode !== "replace") continue;
    // An equal line typed the same in both strings is unchanged; typed otherwise, it is reworked in place. But
    // a line typed as its old_string line was (drifted) and exactly as another of the file's lines there is,
    // may be either one: it is neither, and its indentation is weighed like an inserted line's.
    const text = o.newText ?? o.text;
    if (text === o.text && text !== (o.fileText ?? o.text) && fileTexts?.has(text))
      added.push({ text, anchor: index });
    else
      added.push(
        text === o.text ? { text, anchor: index, unchanged: true } : { text, anchor: index, partner: index },
      );
  }
  closeBlock(undefined);
  return { pairs, added };
}

/** "8 spaces", "2 tabs", "no indentation": an indentation as a person reads it. */
export function describeIndent(line: string): string {
  const l = lead(line);
  if (l === "") return "no indentation";
  const tabs = (l.match(/\t/g) ?? []).length;
  const spaces = l.length - tabs;
  const part = (n: number, what: string): string => (n === 0 ? "" : `${n} ${what}${n === 1 ? "" : "s"}`);
  return [part(tabs, "tab"), part(spaces, "space")].filter((x) => x !== "").join(" and ");
}
