// Generated sources where indentation carries meaning (4-space Python-like,
// tab-indented Go-like, 2-space YAML-like, and a Go-like file that mixes tabs
// and spaces), and edits that move lines between levels (wrap, unwrap), the
// edits a drifted frame can be mistaken for.
import { leadingWhitespace } from "./lines.js";
import type { Rng } from "./prng.js";

export type ShapedKind = "python" | "go" | "yaml" | "go-mixed";

export interface ShapedSource {
  kind: ShapedKind;
  path: string;
  lines: string[];
  /** The indentation step new levels take. */
  unit: string;
}

const UNITS: Record<ShapedKind, string> = { python: "    ", go: "\t", yaml: "  ", "go-mixed": "\t" };
const EXTENSIONS: Record<ShapedKind, string> = { python: "py", go: "go", yaml: "yaml", "go-mixed": "go" };

/** About `n` lines of one kind; statements carry counters so most lines are unique, a few common ones repeat. */
export function shapedSource(kind: ShapedKind, n: number, rng: Rng, index: number): ShapedSource {
  const unit = UNITS[kind];
  const out: string[] = [];
  let k = 0;
  const next = (): number => k++;
  const body = (level: number, depth: number): void => {
    const pad = unit.repeat(level);
    const count = rng.int(2, 5);
    for (let s = 0; s < count; s++) {
      const i = next();
      if (depth < 3 && rng.chance(0.35)) {
        if (kind === "python") out.push(`${pad}${rng.pick(["if", "while"])} value_${i} > ${i}:`);
        else if (kind === "yaml") out.push(`${pad}section_${i}:`);
        else out.push(`${pad}if err := step${i}(ctx, n); err != nil {`);
        body(level + 1, depth + 1);
        if (kind === "go" || kind === "go-mixed") out.push(`${pad}}`);
        continue;
      }
      if (kind === "python")
        out.push(
          pad +
            rng.pick([
              `value_${i} = compute(request, ${i})`,
              `log.debug("step ${i}")`,
              "return None",
              `items.append(${i})`,
            ]),
        );
      else if (kind === "yaml")
        out.push(
          pad + rng.pick([`key_${i}: value-${i}`, `- item-${i}`, `port_${i}: ${8000 + i}`, "enabled: true"]),
        );
      else
        out.push(
          pad + rng.pick([`total += ${i}`, "return nil", `log.Printf("step ${i}")`, `n = n*${i} + 1`]),
        );
    }
  };
  while (out.length < n) {
    const i = next();
    if (kind === "python") out.push(`def handler_${i}(request, limit=${i}):`);
    else if (kind === "yaml") out.push(`service_${i}:`);
    else out.push(`func handler${i}(ctx context.Context, n int) error {`);
    body(1, 0);
    if (kind === "go" || kind === "go-mixed") out.push("}");
    out.push("");
  }
  // A mixed file: every third function indented with four spaces instead of tabs.
  if (kind === "go-mixed") {
    let fn = 0;
    for (let j = 0; j < out.length; j++) {
      if (out[j]!.startsWith("func ")) fn++;
      if (fn % 3 === 0) out[j] = out[j]!.replace(/^\t+/, (tabs) => "    ".repeat(tabs.length));
    }
  }
  return { kind, path: `shaped/source${index}.${EXTENSIONS[kind]}`, lines: out, unit };
}

/** Lines `start`.. that are one level under `header` (its body), at most `max`. */
function bodyOf(lines: readonly string[], header: number, max: number): number {
  const base = leadingWhitespace(lines[header]!).length;
  let end = header + 1;
  while (
    end < lines.length &&
    end - header - 1 < max &&
    lines[end]!.trim() !== "" &&
    leadingWhitespace(lines[end]!).length > base
  )
    end++;
  return end - header - 1;
}

/**
 * A wrap (lines moved one level in under a new header) or an unwrap (a header
 * removed and its body moved one level out): changes whose added lines sit at
 * another level than the lines they replace.
 */
export function reshapeEdit(source: ShapedSource, rng: Rng): string[] | undefined {
  const { lines, unit, kind } = source;
  const braces = kind === "go" || kind === "go-mixed";
  for (let attempt = 0; attempt < 20; attempt++) {
    const at = rng.int(1, lines.length - 2);
    const line = lines[at]!;
    if (line.trim() === "" || leadingWhitespace(line) === "") continue;
    const pad = leadingWhitespace(line);
    const lineUnit = pad.startsWith("\t") ? "\t" : unit === "\t" ? "    " : unit;
    const body = bodyOf(lines, at, 4);
    if (body > 0 && rng.chance(0.5)) {
      // Unwrap: drop the header (and a closing brace at its level), move the body out one level.
      const inner = lines
        .slice(at + 1, at + 1 + body)
        .map((l) => (l.startsWith(pad + lineUnit) ? pad + l.slice(pad.length + lineUnit.length) : l));
      let after = at + 1 + body;
      if (braces && lines[after]?.trim() === "}" && leadingWhitespace(lines[after]!) === pad) after++;
      return [...lines.slice(0, at), ...inner, ...lines.slice(after)];
    }
    // Wrap: a new header at this level, this line and the next (same level) one level in.
    let count = 1;
    while (
      count < 3 &&
      lines[at + count]?.trim() !== "" &&
      leadingWhitespace(lines[at + count] ?? "") === pad &&
      bodyOf(lines, at + count, 1) === 0
    )
      count++;
    if (bodyOf(lines, at, 1) > 0) continue;
    const header =
      kind === "python"
        ? `${pad}if ready_${at}:`
        : kind === "yaml"
          ? `${pad}wrapped_${at}:`
          : `${pad}if ready${at} {`;
    const moved = lines.slice(at, at + count).map((l) => lineUnit + l);
    return [
      ...lines.slice(0, at),
      header,
      ...moved,
      ...(braces ? [`${pad}}`] : []),
      ...lines.slice(at + count),
    ];
  }
  return undefined;
}
