// When a model re-types context lines with other indentation (tabs for spaces,
// two spaces for four), its added lines carry the same drift. Learn the mapping
// from the lines that matched and apply it to the lines being added.

export type LineFix = (line: string) => string;

const identity: LineFix = (line) => line;

function lead(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

function trailing(line: string): string {
  return /[ \t]*$/.exec(line)![0];
}

/** A rule for indents never seen in the pairs, when one explains every pair. */
function generalRule(pairs: [string, string][]): ((indent: string) => string) | undefined {
  const rules: ((indent: string) => string | undefined)[] = [];
  const first = pairs.find(([m, f]) => m !== f);
  if (!first) return undefined;
  const [m0, f0] = first;
  if (f0.endsWith(m0)) {
    const extra = f0.slice(0, f0.length - m0.length);
    rules.push((x) => extra + x);
  }
  if (m0.endsWith(f0)) {
    const extra = m0.slice(0, m0.length - f0.length);
    rules.push((x) => (x.startsWith(extra) ? x.slice(extra.length) : undefined));
  }
  const spaces = (s: string): boolean => /^ *$/.test(s);
  const tabs = (s: string): boolean => /^\t*$/.test(s);
  if (spaces(m0) && tabs(f0) && f0.length > 0 && m0.length % f0.length === 0) {
    const width = m0.length / f0.length;
    rules.push((x) => (spaces(x) ? "\t".repeat(Math.floor(x.length / width)) + " ".repeat(x.length % width) : undefined));
  }
  if (tabs(m0) && spaces(f0) && m0.length > 0 && f0.length % m0.length === 0) {
    const width = f0.length / m0.length;
    rules.push((x) => (tabs(x) ? " ".repeat(x.length * width) : undefined));
  }
  if (spaces(m0) && spaces(f0) && m0.length > 0 && f0.length > 0) {
    const ratio = f0.length / m0.length;
    rules.push((x) => (spaces(x) && Number.isInteger(x.length * ratio) ? " ".repeat(x.length * ratio) : undefined));
  }
  return rules
    .map((rule) => (pairs.every(([m, f]) => rule(m) === f) ? rule : undefined))
    .map((rule) => (rule ? (x: string): string => rule(x) ?? x : undefined))
    .find((rule) => rule !== undefined);
}

/**
 * Learns how the model's lines differ from the file's in leading and trailing
 * whitespace, from pairs of lines that match modulo whitespace, and returns the
 * fix for added lines. Without a consistent drift, lines are left as written.
 */
export function learnWhitespaceFix(pairs: readonly (readonly [model: string, file: string])[]): LineFix {
  const solid = pairs.filter(([m]) => m.trim() !== "");
  const indents: [string, string][] = solid.map(([m, f]) => [lead(m), lead(f)]);
  let fixIndent: ((indent: string) => string) | undefined;
  if (indents.some(([m, f]) => m !== f)) {
    const seen = new Map<string, string>();
    let consistent = true;
    for (const [m, f] of indents) {
      const prior = seen.get(m);
      if (prior !== undefined && prior !== f) consistent = false;
      seen.set(m, f);
    }
    if (consistent) {
      const rule = generalRule(indents);
      fixIndent = (x) => seen.get(x) ?? (rule ? rule(x) : x);
    }
  }
  const strayTrailing =
    solid.some(([m, f]) => trailing(m) !== "" && trailing(f) === "") &&
    !solid.some(([m, f]) => trailing(m) !== "" && trailing(m) === trailing(f));
  if (!fixIndent && !strayTrailing) return identity;
  return (line) => {
    let out = line;
    if (fixIndent && out.trim() !== "") {
      const l = lead(out);
      out = fixIndent(l) + out.slice(l.length);
    }
    if (strayTrailing) out = out.replace(/[ \t]+$/, "");
    return out;
  };
}
