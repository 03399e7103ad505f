// Families built to break the engine's own assumptions rather than the ones it
// was built for: context drifted while removed and added lines are exact, old
// lines drifted while added lines are exact, everything drifted, files that mix
// tabs and spaces, "already applied" bait, files without a final newline or
// with a BOM, for diffs, `edit` and edit blocks, on indentation-significant
// sources as well as JavaScript. Each variant has the text the model meant, or
// none when only a refusal is right; a `no_change` claim on bait counts as wrong.
// The cases are built in adversarial-cases.ts; this file runs and judges them.
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join as join_ } from "node:path";
import { applyEditBlock } from "../server/src/edit/blocks/edit-block-apply.js";
import { applyModelPatch } from "../server/src/edit/patch/patch.js";
import { replaceInText } from "../server/src/edit/replace/replace.js";
import type { Outcome } from "../server/src/shared/outcome.js";
import type { CorpusFile } from "./corpus.js";
import { randomEdit } from "./edits.js";
import type { Rng } from "./prng.js";
import { section, table } from "./report.js";
import { reshapeEdit, shapedSource, type ShapedKind } from "./shaped-sources.js";
import { variants, type Case, type Engine, type Subject } from "./adversarial-cases.js";

type Verdict = "correct" | "refused" | "wrong";

/** Where each wrong answer's file, input and expected text are written. */
const REPRO = join_(tmpdir(), "lockstep-bench-adversarial");

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
