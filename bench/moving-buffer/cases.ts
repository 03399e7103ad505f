// The cases: a real file (version A), an agent's change built on A, and what the
// user typed between the agent's read and its write (or during the approval),
// placed by family. Seeded: the same seed gives the same cases.
import type { CorpusFile } from "../corpus.js";
import type { Rng } from "../prng.js";
import { CONTEXT, spellEdit, type AgentEdit } from "./formats.js";
import { indentOf, typeFar, TypedBuffer, typeWord, word, type Span } from "./typing.js";

export const FAMILIES = [
  "far", // typing well away from the change
  "shift_above", // lines inserted above: every line number below moves
  "near", // a line just outside the change's context edited
  "adjacent", // a context line of the change edited
  "inside", // a comment inserted inside the text the change replaces
  "target", // the very lines the agent changes edited
  "duplicate", // the target region pasted again elsewhere
  "trailing_ws", // trailing spaces added to context lines
  "reindent", // the region re-indented (whitespace only)
  "approval", // the typing happens while the change waits for approval
] as const;
export type Family = (typeof FAMILIES)[number] | "still" | "headline";

export const KS = [1, 5, 20, 100] as const;

export interface MovingCase {
  id: string;
  family: Family;
  /** User edits between the agent's read and its write. */
  k: number;
  path: string;
  edit: AgentEdit;
  /** The file when the tool is called. */
  atCall: string;
  /** The file after the user typed during the approval; absent when nobody did. */
  afterApproval?: string;
}

/** The file the user ends with. */
export function userText(c: MovingCase): string {
  return c.afterApproval ?? c.atCall;
}

interface Target {
  /** First changed line of A. */
  t: number;
  /** Changed lines. */
  m: number;
  after: string;
}

/** A token in a line renamed (the last identifier of 3+ letters gets a suffix), or a comment added. */
function mutateLine(line: string): string {
  const ids = [...line.matchAll(/[A-Za-z_][A-Za-z0-9_]{2,}/g)];
  const last = ids[ids.length - 1];
  if (!last) return `${line} // v2`;
  return `${line.slice(0, last.index)}${last[0]}V2${line.slice(last.index + last[0].length)}`;
}

/** Picks 1–3 non-blank lines whose region with context is unique in A, and the agent's post-image. */
function chooseTarget(lines: readonly string[], rng: Rng): Target | undefined {
  const n = lines.length;
  for (let tries = 0; tries < 60; tries++) {
    const m = rng.int(1, 3);
    const t = rng.int(CONTEXT + 12, n - m - CONTEXT - 14);
    const region = lines.slice(t, t + m);
    if (region.some((l) => l.trim().length < 4)) continue;
    const window = lines.slice(t - CONTEXT, t + m + CONTEXT).join("\n");
    const text = lines.join("\n");
    if (text.indexOf(window) !== text.lastIndexOf(window)) continue;
    const changed = region.map((l) => (rng.chance(0.6) ? mutateLine(l) : l));
    if (changed.every((l, i) => l === region[i])) changed[0] = mutateLine(region[0]!);
    if (rng.chance(0.4)) changed.push(`${indentOf(region[m - 1]!)}trace("${word(rng)}");`);
    const after = [...lines.slice(0, t), ...changed, ...lines.slice(t + m)].join("\n");
    return { t, m, after };
  }
  return undefined;
}

/** The family's own edit on the buffer; `ctx` is the change's region with its context lines. */
function familyEdit(
  family: (typeof FAMILIES)[number],
  buf: TypedBuffer,
  target: Span,
  ctx: Span,
  rng: Rng,
): void {
  const L = buf.lines;
  switch (family) {
    case "far":
    case "approval":
      typeFar(buf, rng);
      return;
    case "shift_above": {
      const at = rng.int(0, Math.max(0, ctx.lo - 8));
      const count = rng.int(1, 5);
      buf.insert(
        at,
        Array.from({ length: count }, () => `// ${word(rng)} ${word(rng)} ${word(rng)}`),
      );
      return;
    }
    case "near": {
      const i = rng.chance(0.5) ? ctx.lo - rng.int(1, 2) : ctx.hi + rng.int(0, 1);
      typeWord(buf, i, rng);
      return;
    }
    case "adjacent": {
      const i = rng.chance(0.5) ? rng.int(ctx.lo, target.lo - 1) : rng.int(target.hi, ctx.hi - 1);
      typeWord(buf, i, rng);
      return;
    }
    case "inside": {
      const at = rng.int(ctx.lo + 1, ctx.hi - 1);
      buf.insert(at, [`${indentOf(L[at] ?? "")}// ${word(rng)}: ${word(rng)} ${word(rng)}`]);
      return;
    }
    case "target":
      typeWord(buf, rng.int(target.lo, target.hi - 1), rng);
      return;
    case "duplicate": {
      const copy = L.slice(ctx.lo, ctx.hi);
      const above = rng.chance(0.5) && ctx.lo > 10;
      const at = above ? rng.int(0, ctx.lo - 8) : rng.int(ctx.hi + 8, L.length - 1);
      buf.insert(at, copy);
      buf.protect({ lo: at, hi: at + copy.length }, 1);
      return;
    }
    case "trailing_ws": {
      const context = [...Array(ctx.hi - ctx.lo).keys()]
        .map((d) => ctx.lo + d)
        .filter((i) => i < target.lo || i >= target.hi);
      for (const i of rng.shuffle(context).slice(0, rng.int(1, 3)))
        L[i] = L[i] + rng.pick(["  ", " ", "\t", "    "]);
      return;
    }
    case "reindent":
      for (let i = ctx.lo; i < ctx.hi; i++) if (L[i] !== "") L[i] = "  " + L[i];
      return;
  }
}

/** One case: the family's edit, then k-1 bursts of typing far away. */
function makeCase(
  file: CorpusFile,
  target: Target,
  family: (typeof FAMILIES)[number],
  k: number,
  rng: Rng,
): MovingCase {
  const edit = spellEdit(file.path, file.content, target.after);
  const buf = new TypedBuffer(file.content.split("\n"));
  buf.protect({ lo: buf.lines.length - 1, hi: buf.lines.length });
  const tspan = buf.protect({ lo: target.t, hi: target.t + target.m });
  const ctx = buf.protect({ lo: target.t - CONTEXT, hi: target.t + target.m + CONTEXT });
  // Far typing keeps 6 lines away from the context, so "far" cases merge cleanly.
  buf.protect(ctx, 6);
  const id = `${file.path}#${family}/k${k}`;
  if (family === "approval") {
    for (let i = 0; i < k; i++) typeFar(buf, rng);
    return { id, family, k, path: file.path, edit, atCall: file.content, afterApproval: buf.text() };
  }
  familyEdit(family, buf, tspan, ctx, rng);
  for (let i = 1; i < k; i++) typeFar(buf, rng);
  return { id, family, k, path: file.path, edit, atCall: buf.text() };
}

/** Every family at every k for each file, plus the file with nobody typing (k = 0). */
export function generateCases(files: readonly CorpusFile[], rng: Rng): MovingCase[] {
  const cases: MovingCase[] = [];
  for (const file of files) {
    if (!file.content.endsWith("\n")) continue;
    const frng = rng.fork(file.path);
    const target = chooseTarget(file.content.split("\n"), frng);
    if (!target) continue;
    const edit = spellEdit(file.path, file.content, target.after);
    cases.push({
      id: `${file.path}#still/k0`,
      family: "still",
      k: 0,
      path: file.path,
      edit,
      atCall: file.content,
    });
    for (const family of FAMILIES)
      for (const k of KS) cases.push(makeCase(file, target, family, k, frng.fork(`${family}/${k}`)));
  }
  return cases;
}
