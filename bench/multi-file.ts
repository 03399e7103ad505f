// Changes across files, all or none: the bench's commits as `git diff` output
// applied by lockstep (apply_patch), GNU `patch -p1` and `git apply` side by side,
// and the same commits as apply_patch envelopes (lockstep alone: no other tool
// here reads the format). Each variant runs in a fresh directory; the whole
// tree afterwards decides: correct, refused (untouched), or wrong.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { invokeTool } from "../server/src/tools/registry.js";
import { Sandbox } from "../server/src/workspace/sandbox.js";
import { Workspace } from "../server/src/workspace/workspace.js";
import { makeCommits, writeTree, type Commit, type Tree } from "./change-commits.js";
import type { Rng } from "./prng.js";
import { section, table } from "./report.js";
import type { Subject } from "./variants.js";

interface Case {
  family: string;
  commit: Commit;
  /** What the directory holds before the tool runs. */
  start: Tree;
  text: string;
  /** The tree a right answer leaves: the commit's after, or `start` for a change that must be refused. */
  expected: Tree;
  mustRefuse: boolean;
}

type Verdict = "correct" | "refused" | "wrong";
type Runner = (dir: string, text: string) => Promise<void>;

function readTree(dir: string): Tree {
  const out: Tree = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else out[relative(dir, full)] = readFileSync(full, "utf8");
    }
  };
  walk(dir);
  return out;
}

function sameTree(a: Tree, b: Tree): boolean {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
}

function child(cmd: string, args: string[], cwd: string, stdin: string): Promise<void> {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, {
      cwd,
      stdio: ["pipe", "ignore", "ignore"],
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", LC_ALL: "C", HOME: tmpdir() },
    });
    p.on("error", () => resolve());
    p.on("close", () => resolve());
    p.stdin.on("error", () => undefined);
    p.stdin.end(stdin);
  });
}

const RUNNERS: Record<string, Runner> = {
  lockstep: async (dir, text) => {
    const ctx = {
      workspace: new Workspace(await Sandbox.create([dir])),
      signal: new AbortController().signal,
      approve: async () => "apply" as const,
      reader: "shell" as const,
    };
    await invokeTool("apply_patch", { input: text }, ctx);
  },
  "GNU patch -p1": (dir, text) =>
    child(
      "patch",
      ["-p1", "--batch", "--forward", "--silent", "--no-backup-if-mismatch", "-r", "-"],
      dir,
      text,
    ),
  "git apply": (dir, text) => child("git", ["apply", "--whitespace=nowarn", "-"], dir, text),
};

async function judge(c: Case, run: Runner): Promise<Verdict> {
  const dir = mkdtempSync(join(tmpdir(), "lockstep-bench-multi-"));
  try {
    writeTree(dir, c.start);
    await run(dir, c.text);
    const tree = readTree(dir);
    if (sameTree(tree, c.expected)) return c.mustRefuse ? "refused" : "correct";
    if (!c.mustRefuse && sameTree(tree, c.start)) return "refused";
    return "wrong";
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A line the change removes from `path`, one that occurs once in the file, changed in the
 * directory's copy: the change was built on another text, and its own lines say so.
 */
function stale(c: Commit, rng: Rng): Tree | undefined {
  const path = rng.pick(c.edited);
  const text = c.before[path]!;
  const lines = text.split("\n");
  const section = c.gitDiff.split(`diff --git a/${path} `)[1]?.split("\ndiff --git ")[0] ?? "";
  const removed = [...section.matchAll(/^-(?!--)(.*\S.*)$/gm)]
    .map((m) => m[1]!)
    .find((r) => lines.filter((l) => l === r).length === 1);
  if (removed === undefined) return undefined;
  return {
    ...c.before,
    [path]: lines.map((l) => (l === removed ? l + " /* changed meanwhile */" : l)).join("\n"),
  };
}

function shifted(diff: string, by: number): string {
  return diff.replace(/^@@ -(\d+)(,\d+)? \+(\d+)/gm, (m, o: string, oc: string | undefined, n: string) =>
    o === "0" ? m : `@@ -${Math.max(1, Number(o) + by)}${oc ?? ""} +${Math.max(1, Number(n) + by)}`,
  );
}

function unifiedCases(commits: readonly Commit[], rng: Rng): Case[] {
  const out: Case[] = [];
  for (const c of commits) {
    const apply = (family: string, text: string): void =>
      void out.push({ family, commit: c, start: c.before, text, expected: c.after, mustRefuse: false });
    apply("exact git diff", c.gitDiff);
    apply("line numbers off by 5-40", shifted(c.gitDiff, rng.int(5, 40) * (rng.chance(0.5) ? 1 : -1)));
    apply("bare @@ headers", c.gitDiff.replace(/^@@ .*? @@/gm, "@@ @@"));
    const start = stale(c, rng);
    if (start)
      out.push({
        family: "one file changed meanwhile (must refuse)",
        commit: c,
        start,
        text: c.gitDiff,
        expected: start,
        mustRefuse: true,
      });
    const gone = { ...c.before };
    delete gone[rng.pick(c.edited)];
    out.push({
      family: "one edited file missing (must refuse)",
      commit: c,
      start: gone,
      text: c.gitDiff,
      expected: gone,
      mustRefuse: true,
    });
  }
  return out;
}

/** The nearest line above `line` indented less than it (a function or class line), trimmed; undefined at the top level. */
function anchorAbove(lines: readonly string[], line: number): string | undefined {
  const indent = (s: string): number => /^\s*/.exec(s)![0].length;
  const own = indent(lines[line] ?? "");
  for (let i = line - 1; i >= 0; i--) {
    const l = lines[i]!;
    if (l.trim() !== "" && indent(l) < own && lines.filter((x) => x.trim() === l.trim()).length === 1)
      return l.trim();
  }
  return undefined;
}

/** Every bare `@@` of an update given the anchor above its first old line, where one is unique in the file. */
function anchored(c: Commit): string {
  const out: string[] = [];
  const lines = c.envelope.split("\n");
  let file: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const upd = /^\*\*\* Update File: (.*)$/.exec(l);
    if (upd) file = c.before[upd[1]!]!.split("\n");
    if (l === "@@") {
      const first = lines[i + 1]?.slice(1);
      const at = first === undefined ? -1 : file.indexOf(first);
      const anchor = at > 0 ? anchorAbove(file, at) : undefined;
      out.push(anchor !== undefined ? `@@ ${anchor}` : "@@");
      continue;
    }
    out.push(l);
  }
  return out.join("\n");
}

function envelopeCases(commits: readonly Commit[], rng: Rng): Case[] {
  const out: Case[] = [];
  for (const c of commits) {
    const apply = (family: string, text: string): void =>
      void out.push({ family, commit: c, start: c.before, text, expected: c.after, mustRefuse: false });
    const refuse = (family: string, start: Tree, text: string): void =>
      void out.push({ family, commit: c, start, text, expected: start, mustRefuse: true });
    apply("envelope as converted", c.envelope);
    const withAnchors = anchored(c);
    if (withAnchors !== c.envelope) apply("@@ anchors added", withAnchors);
    apply("trailing spaces on context lines", c.envelope.replace(/^ (.*\S)$/gm, " $1  "));
    apply(
      "inside prose and a fence",
      `Here is the patch:\n\n\`\`\`\n${c.envelope}\`\`\`\n\nThat should do it.\n`,
    );
    const start = stale(c, rng);
    if (start) refuse("one file changed meanwhile (must refuse)", start, c.envelope);
    const added = /^\*\*\* Add File: (.*)$/m.exec(c.envelope)?.[1];
    if (added !== undefined)
      refuse("Add File exists already (must refuse)", { ...c.before, [added]: "already here\n" }, c.envelope);
    const anchorLine = /^@@ (.+)$/m.exec(withAnchors)?.[1];
    if (anchorLine !== undefined)
      refuse(
        "an anchor not in the file (must refuse)",
        c.before,
        withAnchors.replace(`@@ ${anchorLine}`, `@@ ${anchorLine}_renamed_meanwhile`),
      );
  }
  return out;
}

async function tally(
  cases: readonly Case[],
  tools: readonly string[],
  log: (s: string) => void,
): Promise<{ rows: string[][]; wrong: Map<string, number> }> {
  const families = [...new Set(cases.map((c) => c.family))];
  const counts = new Map<string, Record<Verdict, number>>();
  const wrong = new Map<string, number>();
  for (const [i, c] of cases.entries()) {
    if (i % 25 === 0) log(`multi-file: ${i}/${cases.length}`);
    for (const t of tools) {
      const v = await judge(c, RUNNERS[t]!);
      const key = `${c.family}\u0000${t}`;
      const row = counts.get(key) ?? { correct: 0, refused: 0, wrong: 0 };
      row[v]++;
      counts.set(key, row);
      if (v === "wrong") wrong.set(t, (wrong.get(t) ?? 0) + 1);
    }
  }
  const rows = families.map((f) => {
    const n = cases.filter((c) => c.family === f).length;
    return [
      f,
      String(n),
      ...tools.map((t) => {
        const r = counts.get(`${f}\u0000${t}`)!;
        return `${r.correct} / ${r.refused} / ${r.wrong}`;
      }),
    ];
  });
  return { rows, wrong };
}

export async function runMultiFile(
  subjects: readonly Subject[],
  rng: Rng,
  log: (s: string) => void,
): Promise<{ text: string; lockstepWrong: number }> {
  const commits = makeCommits(subjects, rng.fork("commits"));
  const files = commits.reduce(
    (n, c) => n + new Set([...Object.keys(c.before), ...Object.keys(c.after)]).size,
    0,
  );
  const structural = commits.filter((c) => /^(new file|deleted file|rename from)/m.test(c.gitDiff)).length;
  const unified = unifiedCases(commits, rng.fork("unified"));
  const uni = await tally(unified, ["lockstep", "GNU patch -p1", "git apply"], log);
  const envelopes = envelopeCases(commits, rng.fork("envelopes"));
  const env = await tally(envelopes, ["lockstep"], log);
  const hunks = commits.reduce((n, c) => n + (c.envelope.match(/^@@$/gm)?.length ?? 0), 0);
  const anchors = commits.reduce((n, c) => n + (anchored(c).match(/^@@ /gm)?.length ?? 0), 0);
  const text = [
    section("Changes across files (all or none)"),
    `${commits.length} commits built from the subjects above (2-4 edited files each, ${files} files in all; ${structural} also create, delete or rename a file), diffs by \`git diff --cached -M\`.`,
    "Each cell: correct / refused (tree untouched) / wrong (any other tree: a file changed wrongly, or part of the change landed).",
    "For the must-refuse rows, a correct answer is the refusal: it is counted under refused, and any change to the tree is wrong.",
    "",
    table(["git diff variant", "n", "lockstep apply_patch", "GNU patch -p1", "git apply"], uni.rows),
    "",
    "The same commits as apply_patch envelopes (Update/Add/Delete File, Move to, bare @@ hunks with 3 lines of context); no other tool here reads the format.",
    `Anchors: ${anchors} of ${hunks} hunks got the nearest less-indented line above them that is unique in the file (the rest have none at the top level).`,
    "",
    table(["envelope variant", "n", "lockstep apply_patch"], env.rows),
  ].join("\n");
  return { text, lockstepWrong: (uni.wrong.get("lockstep") ?? 0) + (env.wrong.get("lockstep") ?? 0) };
}
