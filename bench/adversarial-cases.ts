// The adversarial bench's cases: for each subject (a generated source or a JavaScript file and
// an edit of it), the variants that break the engines' own assumptions (drifted context, drifted
// old lines, everything drifted, mixed tabs and spaces, "already applied" bait, no final newline,
// a BOM), each with the text the model meant or none when only a refusal is right. Knows nothing
// of the engines' answers or how they are judged (adversarial.ts).
import { createPatch } from "diff";
import { tweakLine } from "./edits.js";
import { fold, leadingWhitespace, occurrences } from "./lines.js";
import { hunkOldSides } from "./perturb.js";
import type { Rng } from "./prng.js";

export type Engine = "patch" | "edit" | "blocks";

export interface Case {
  engine: Engine;
  family: string;
  kind: string;
  /** The drift applied, when one was. */
  note?: string;
  content: string;
  /** The diff (patch), `old\0new` (edit) or the block's sections (blocks). */
  input: { diff: string } | { old: string; new: string };
  expected: string | undefined;
}

type Drift = (ws: string) => string;

const DRIFTS: Record<string, Drift> = {
  halve: (ws) => (/^ *$/.test(ws) ? " ".repeat(Math.floor(ws.length / 2)) : ws),
  double: (ws) => (/^ *$/.test(ws) ? " ".repeat(ws.length * 2) : ws),
  "tabs as 4 spaces": (ws) => ws.replace(/\t/g, "    "),
  "tabs as 2 spaces": (ws) => ws.replace(/\t/g, "  "),
  "shift by 2": (ws) => "  " + ws,
  strip: () => "",
};

function driftsFor(unit: string): string[] {
  if (unit === "\t") return ["tabs as 4 spaces", "tabs as 2 spaces", "strip"];
  if (unit === "  ") return ["double", "shift by 2", "strip"];
  return ["halve", "shift by 2", "strip"];
}

function redent(line: string, drift: Drift): string {
  if (line.trim() === "") return line;
  const ws = leadingWhitespace(line);
  return drift(ws) + line.slice(ws.length);
}

/** The diff with the lines of the given roles (" ", "-", "+") re-indented. */
function driftDiff(diff: string, roles: string, drift: Drift): string {
  let inHunk = false;
  return diff
    .split("\n")
    .map((l) => {
      if (l.startsWith("@@")) inHunk = true;
      if (!inHunk || l === "" || !roles.includes(l[0]!) || l.startsWith("\\")) return l;
      return l[0] + redent(l.slice(1), drift);
    })
    .join("\n");
}

/** Whether the drift keeps apart every two indentations the lines use (else the original is not recoverable). */
function injective(lines: readonly string[], drift: Drift): boolean {
  const leads = new Set(lines.filter((l) => l.trim() !== "").map(leadingWhitespace));
  return new Set([...leads].map(drift)).size === leads.size;
}

/** A hunk with indented old lines the drift leaves alone, and added lines it changes. */
function hunkHidesDrift(diff: string, drift: Drift): boolean {
  const hunks = diff.split(/^@@.*$/m).slice(1);
  return hunks.some((h) => {
    const lines = h.split("\n").filter((l) => l !== "" && !l.startsWith("\\"));
    const old = lines.filter((l) => l[0] !== "+" && /^[ \t]/.test(l.slice(1)) && l.trim() !== "");
    const added = lines.filter((l) => l[0] === "+");
    return (
      old.length > 0 &&
      old.every((l) => redent(l.slice(1), drift) === l.slice(1)) &&
      added.some((l) => redent(l.slice(1), drift) !== l.slice(1))
    );
  });
}

export interface Subject {
  kind: string;
  path: string;
  pre: string[];
  post: string[];
  unit: string;
}

const join = (lines: readonly string[], finalNewline = true): string =>
  lines.join("\n") + (finalNewline && lines.length > 0 ? "\n" : "");

/** Every hunk's old side unique in the file modulo whitespace: a diff whose place is determinable. */
function determinable(pre: readonly string[], diff: string): boolean {
  const folded = pre.map(fold);
  return hunkOldSides(diff).every((h) => occurrences(folded, h.lines.map(fold)).length === 1);
}

/** The first hunk's old and new lines and where it starts (0-based), as an `edit` would carry them. */
function firstHunk(diff: string): { start: number; old: string[]; new: string[] } | undefined {
  const lines = diff.split("\n");
  const at = lines.findIndex((l) => l.startsWith("@@"));
  if (at === -1) return undefined;
  const start = Number(/^@@ -(\d+)/.exec(lines[at]!)?.[1] ?? "1") - 1;
  const old: string[] = [];
  const neu: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (l.startsWith("@@")) break;
    if (l.startsWith("\\") || l === "") continue;
    if (l[0] !== "+") old.push(l.slice(1));
    if (l[0] !== "-") neu.push(l.slice(1));
  }
  return { start: Math.max(0, start), old, new: neu };
}

export function variants(s: Subject, rng: Rng): Case[] {
  const out: Case[] = [];
  const pre = join(s.pre);
  const post = join(s.post);
  const diff = createPatch(s.path, pre, post, undefined, undefined, { context: 3 });
  if (!determinable(s.pre, diff)) return out;
  const base = { kind: s.kind, content: pre };
  for (const name of driftsFor(s.unit)) {
    const drift = DRIFTS[name]!;
    // A drift that leaves every old line as it was leaves no evidence of itself, and a hunk whose
    // indented old lines it leaves as they were shows the file's frame: neither is determinable.
    if (driftDiff(diff, " -", drift) === diff || hunkHidesDrift(diff, drift)) continue;
    const hunkLines = diff
      .split("\n")
      .filter((l, i, all) => i > all.findIndex((x) => x.startsWith("@@")) && /^[ +-]/.test(l))
      .map((l) => l.slice(1));
    const collapses = !injective(hunkLines, drift);
    const patch = (family: string, roles: string): void => {
      const d = driftDiff(diff, roles, drift);
      if (d !== diff)
        out.push({ ...base, engine: "patch", family, note: name, input: { diff: d }, expected: post });
    };
    patch("context drifted, removed and added exact", " ");
    patch("context and removed drifted, added exact", " -");
    // A drift that writes two indentations alike (stripping them, say) loses the edit's own moves.
    if (!collapses) patch("everything drifted", " -+");
  }
  const hunk = firstHunk(diff);
  if (hunk && hunk.old.some((l) => l.trim() !== "")) {
    const expected = join([
      ...s.pre.slice(0, hunk.start),
      ...hunk.new,
      ...s.pre.slice(hunk.start + hunk.old.length),
    ]);
    const edit = (family: string, old: string[], neu: string[], note?: string): void => {
      const extra = note === undefined ? {} : { note };
      out.push({
        ...base,
        ...extra,
        engine: "edit",
        family,
        input: { old: old.join("\n"), new: neu.join("\n") },
        expected,
      });
      out.push({
        ...base,
        ...extra,
        engine: "blocks",
        family,
        input: { old: join(old), new: join(neu) },
        expected,
      });
    };
    edit("exact", hunk.old, hunk.new);
    for (const name of driftsFor(s.unit)) {
      const drift = DRIFTS[name]!;
      if (hunk.old.every((l) => redent(l, drift) === l)) continue;
      edit(
        "old lines drifted, new exact",
        hunk.old.map((l) => redent(l, drift)),
        hunk.new,
        name,
      );
      if (injective([...hunk.old, ...hunk.new], drift))
        edit(
          "everything drifted",
          hunk.old.map((l) => redent(l, drift)),
          hunk.new.map((l) => redent(l, drift)),
          name,
        );
    }
  }
  out.push(...noChangeBait(s, diff, rng), ...shapeCases(s, rng));
  return out;
}

/**
 * Bait: the fix written into a context line with an identical -/+ pair beside
 * it (a diff), and an old_string with a typo whose new_string occurs inside
 * another line (an edit). Only a refusal that is not `no_change` is right.
 */
function noChangeBait(s: Subject, diff: string, rng: Rng): Case[] {
  const out: Case[] = [];
  const lines = diff.split("\n");
  const minus = lines.findIndex((l) => l.startsWith("-") && !l.startsWith("---") && l.trim().length > 2);
  const plus = lines.findIndex((l, i) => i > minus && l.startsWith("+") && !l.startsWith("+++"));
  const ctx = lines.findIndex(
    (l, i) => i > lines.findIndex((x) => x.startsWith("@@")) && l.startsWith(" ") && l.trim().length > 2,
  );
  if (
    minus !== -1 &&
    plus === minus + 1 &&
    ctx !== -1 &&
    fold(lines[plus]!.slice(1)) !== fold(lines[minus]!.slice(1))
  ) {
    const bait = lines.slice();
    bait[minus] = " " + lines[plus]!.slice(1);
    bait[plus] = "";
    bait[ctx] = `-${lines[ctx]!.slice(1)}\n+${lines[ctx]!.slice(1)}`;
    out.push({
      engine: "patch",
      family: "no_change bait",
      kind: s.kind,
      content: join(s.pre),
      input: { diff: bait.filter((l, i) => i !== plus).join("\n") },
      expected: undefined,
    });
  }
  const candidates = s.pre.filter((l) => /[a-z]{4,}/.test(l) && s.pre.filter((x) => x === l).length === 1);
  if (candidates.length > 0) {
    const line = rng.pick(candidates);
    const word = /[a-z]{4,}/.exec(line)![0];
    const typo = line.replace(word, word.slice(0, 2) + word[1] + word.slice(2));
    const piece = word.slice(0, 3);
    if (!join(s.pre).includes(typo.trim())) {
      out.push({
        engine: "edit",
        family: "no_change bait",
        kind: s.kind,
        content: join(s.pre),
        input: { old: typo.trim(), new: piece },
        expected: undefined,
      });
    }
  }
  return out;
}

/** The file's shape kept: no final newline (with and without the diff's marker), and a BOM. */
function shapeCases(s: Subject, rng: Rng): Case[] {
  const out: Case[] = [];
  let last = s.pre.length - 1;
  while (last > 0 && s.pre[last]!.trim() === "") last--;
  const trimmed = s.pre.slice(0, last + 1);
  const changed = [...trimmed.slice(0, -1), tweakLine(trimmed[last]!, rng)];
  const pre = join(trimmed, false);
  const post = join(changed, false);
  const diff = createPatch(s.path, pre, post, undefined, undefined, { context: 3 });
  const base = { kind: s.kind, family: "no final newline", content: pre, expected: post };
  out.push({ ...base, engine: "patch", input: { diff } });
  out.push({
    ...base,
    engine: "patch",
    family: "no final newline, marker left out",
    input: { diff: diff.replace(/^\\ No newline at end of file\n/gm, "") },
  });
  const old = trimmed.slice(-2);
  const neu = changed.slice(-2);
  out.push({ ...base, engine: "edit", input: { old: old.join("\n"), new: neu.join("\n") } });
  out.push({ ...base, engine: "blocks", input: { old: join(old), new: join(neu) } });

  const first = s.pre.findIndex((l) => l.trim() !== "");
  if (first === 0) {
    const bomPre = "\uFEFF" + join(s.pre);
    const edited = [tweakLine(s.pre[0]!, rng), ...s.pre.slice(1)];
    const bomPost = "\uFEFF" + join(edited);
    const bomBase = { kind: s.kind, family: "BOM, first line changed", content: bomPre, expected: bomPost };
    out.push({
      ...bomBase,
      engine: "patch",
      input: { diff: createPatch(s.path, join(s.pre), join(edited), undefined, undefined, { context: 3 }) },
    });
    out.push({
      ...bomBase,
      engine: "edit",
      input: { old: s.pre.slice(0, 2).join("\n"), new: edited.slice(0, 2).join("\n") },
    });
    out.push({
      ...bomBase,
      engine: "blocks",
      input: { old: join(s.pre.slice(0, 2)), new: join(edited.slice(0, 2)) },
    });
  }
  return out;
}
