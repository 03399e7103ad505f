// Families built to break the engine's own assumptions rather than the ones it
// was built for: context drifted while removed and added lines are exact, old
// lines drifted while added lines are exact, everything drifted, files that mix
// tabs and spaces, "already applied" bait, files without a final newline or
// with a BOM, for diffs, `edit` and edit blocks, on indentation-significant
// sources as well as JavaScript. Each variant has the text the model meant, or
// none when only a refusal is right; a `no_change` claim on bait counts as wrong.
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join as join_ } from "node:path";
import { createPatch } from "diff";
import { applyEditBlock } from "../server/src/edit/blocks/edit-block-apply.js";
import { applyModelPatch } from "../server/src/edit/patch/patch.js";
import { replaceInText } from "../server/src/edit/replace/replace.js";
import type { Outcome } from "../server/src/shared/outcome.js";
import type { CorpusFile } from "./corpus.js";
import { randomEdit, tweakLine } from "./edits.js";
import { fold, leadingWhitespace, occurrences } from "./lines.js";
import { hunkOldSides } from "./perturb.js";
import type { Rng } from "./prng.js";
import { section, table } from "./report.js";
import { reshapeEdit, shapedSource, type ShapedKind } from "./shaped-sources.js";

type Engine = "patch" | "edit" | "blocks";
type Verdict = "correct" | "refused" | "wrong";

interface Case {
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

/** Where each wrong answer's file, input and expected text are written. */
const REPRO = join_(tmpdir(), "lockstep-bench-adversarial");

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

interface Subject {
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

function variants(s: Subject, rng: Rng): Case[] {
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

function run(c: Case, path: string): Outcome<{ content: string }> {
  if ("diff" in c.input) return applyModelPatch(c.content, c.input.diff, { filePath: path });
  if (c.engine === "edit")
    return replaceInText(c.content, { old_string: c.input.old, new_string: c.input.new });
  return applyEditBlock(c.content, {
    index: 0,
    file_path: path,
    old: c.input.old,
    new: c.input.new,
    line: 1,
  });
}

function verdict(c: Case, path: string): { verdict: Verdict; why: string } {
  let r: Outcome<{ content: string }>;
  try {
    r = run(c, path);
  } catch (e) {
    return { verdict: "wrong", why: `threw ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!r.ok)
    return {
      verdict: c.expected === undefined && r.error.code === "no_change" ? "wrong" : "refused",
      why: r.error.code,
    };
  return {
    verdict: c.expected !== undefined && r.value.content === c.expected ? "correct" : "wrong",
    why: "applied",
  };
}

const SHAPED: ShapedKind[] = ["python", "go", "yaml", "go-mixed"];

export interface AdversarialResult {
  text: string;
  wrong: number;
  /** Wrong cases, for a reproducer. */
  failures: { engine: Engine; family: string; kind: string; why: string; note?: string; files: string }[];
}

/** Builds the subjects (generated sources and JavaScript from the corpus), their variants, and the table. */
export function runAdversarial(corpus: readonly CorpusFile[], rng: Rng, perKind = 15): AdversarialResult {
  const subjects: Subject[] = [];
  for (const kind of SHAPED) {
    for (let i = 0; i < perKind; i++) {
      const r = rng.fork(`${kind}:${i}`);
      const src = shapedSource(kind, r.int(60, 200), r, i);
      const post = r.chance(0.5) ? reshapeEdit(src, r) : randomEdit(src.lines, r, src.unit);
      // Real code does not indent one line with spaces then a tab: an edit inside a space-indented
      // function of a mixed file writes that function's spaces.
      if (post)
        subjects.push({
          kind,
          path: src.path,
          pre: src.lines,
          post: post.map((l) =>
            l.replace(/^( +)(\t+)/, (_, sp: string, tabs: string) => sp + "    ".repeat(tabs.length)),
          ),
          unit: src.unit,
        });
    }
  }
  for (const file of corpus.slice(0, perKind * 2)) {
    const lines = file.content.replace(/\n$/, "").split("\n");
    const unit = lines.some((l) => l.startsWith("\t"))
      ? "\t"
      : lines.some((l) => /^ {4}\S/.test(l)) && !lines.some((l) => /^ {2}\S/.test(l))
        ? "    "
        : "  ";
    const r = rng.fork(`js:${file.path}`);
    subjects.push({
      kind: "javascript",
      path: file.path,
      pre: lines,
      post: randomEdit(lines, r, unit),
      unit,
    });
  }
  const tallies = new Map<string, Record<Verdict, number>>();
  const failures: AdversarialResult["failures"] = [];
  for (const s of subjects) {
    for (const c of variants(s, rng.fork(`variants:${s.path}`))) {
      const v = verdict(c, s.path);
      for (const key of [`${c.engine}|${c.family}`, `${c.engine}|${c.family}|${c.kind}`]) {
        const t = tallies.get(key) ?? { correct: 0, refused: 0, wrong: 0 };
        t[v.verdict]++;
        tallies.set(key, t);
      }
      if (v.verdict === "wrong") {
        const files = join_(REPRO, `${failures.length}-${c.engine}`);
        mkdirSync(REPRO, { recursive: true });
        writeFileSync(`${files}.file`, c.content);
        writeFileSync(
          `${files}.input`,
          "diff" in c.input ? c.input.diff : `${c.input.old}\n=======\n${c.input.new}\n`,
        );
        writeFileSync(`${files}.expected`, c.expected ?? "(a refusal that is not no_change)\n");
        failures.push({
          engine: c.engine,
          family: c.family,
          kind: c.kind,
          why: v.why,
          files,
          ...(c.note === undefined ? {} : { note: c.note }),
        });
      }
    }
  }
  const rows = [...tallies]
    .filter(([key]) => key.split("|").length === 2)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, t]) => {
      const [engine, family] = key.split("|") as [string, string];
      const byKind = ["python", "go", "yaml", "go-mixed", "javascript"].map((k) => {
        const kt = tallies.get(`${key}|${k}`);
        return kt ? `${kt.correct}/${kt.refused}/${kt.wrong}` : "-";
      });
      return [engine, family, `${t.correct} / ${t.refused} / ${t.wrong}`, ...byKind];
    });
  const lines = [
    section("Adversarial families (correct / refused / wrong)"),
    `${subjects.length} subjects: ${perKind} generated files of each kind (Python-like 4 spaces, Go-like tabs, YAML-like 2 spaces, Go-like mixing tabs and spaces; half their edits wrap or unwrap lines) and ${subjects.filter((s) => s.kind === "javascript").length} JavaScript files from node_modules.`,
    "A refusal is never wrong here; `no_change` on bait is (it tells the model the change is made).",
    table(["engine", "family", "all", "python", "go", "yaml", "go-mixed", "javascript"], rows),
  ];
  const wrong = failures.length;
  lines.push(`wrong: ${wrong} (target 0)`);
  return { text: lines.join("\n"), wrong, failures };
}
