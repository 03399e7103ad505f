// Property: on real source files, with random edits and the perturbations models
// produce, every outcome is exactly the expected text or a clean refusal. Never a
// file changed in the wrong place.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createPatch } from "diff";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyModelPatch } from "../../../server/src/edit/patch/patch.js";

const modules = fileURLToPath(new URL("../../../node_modules/", import.meta.url));

/** A few real files nobody here wrote: JavaScript from installed packages. */
function corpus(): string[] {
  const picks = [
    "diff/libesm/patch/apply.js",
    "diff/libesm/patch/parse.js",
    "zod/v4/core/util.js",
    "vscode-jsonrpc/lib/common/connection.js",
    "tinyglobby/dist/index.mjs",
  ];
  return picks
    .map((p) => path.join(modules, p))
    .filter((p) => {
      try {
        return statSync(p).isFile();
      } catch {
        return false;
      }
    })
    .map((p) => readFileSync(p, "utf8"));
}

const files = corpus();

interface Edit {
  at: number;
  remove: number;
  insert: string[];
}

/** Applies edits (sorted, non-overlapping) to lines; the expected result. */
function applyEdits(lines: string[], edits: Edit[]): string[] {
  const out = [...lines];
  for (const e of [...edits].sort((a, b) => b.at - a.at)) out.splice(e.at, e.remove, ...e.insert);
  return out;
}

type Perturbation = "none" | "shift" | "bare" | "counts" | "trailing" | "crlf-file" | "fence";

function perturb(diff: string, kind: Perturbation, shift: number): string {
  const lines = diff.split("\n");
  switch (kind) {
    case "none":
    case "crlf-file":
      return diff;
    case "shift":
      return lines
        .map((l) =>
          l.replace(
            /^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@/,
            (_m, a: string, b = "", c: string, d = "") =>
              `@@ -${Math.max(1, Number(a) + shift)}${b} +${Math.max(1, Number(c) + shift)}${d} @@`,
          ),
        )
        .join("\n");
    case "bare":
      return lines.map((l) => (l.startsWith("@@") ? "@@ @@" : l)).join("\n");
    case "counts":
      return lines.map((l) => l.replace(/^@@ -(\d+),\d+ \+(\d+),\d+ @@/, "@@ -$1,99 +$2,1 @@")).join("\n");
    case "trailing":
      return lines.map((l, i) => (l.startsWith(" ") && i % 2 === 0 ? l + "  " : l)).join("\n");
    case "fence":
      return (
        "Here is the change:\n```diff\n" +
        lines.filter((l) => !l.startsWith("Index:") && !l.startsWith("===")).join("\n") +
        "\n```\n"
      );
  }
}

describe("applyModelPatch on real files", () => {
  it("has a corpus", () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
  });

  it("gives the exact expected text or a clean refusal", () => {
    const arbitrary = fc.record({
      file: fc.nat({ max: files.length - 1 }),
      edits: fc.array(
        fc.record({ at: fc.nat(), remove: fc.nat({ max: 3 }), insert: fc.array(fc.nat(), { maxLength: 3 }) }),
        { minLength: 1, maxLength: 4 },
      ),
      kind: fc.constantFrom<Perturbation>(
        "none",
        "shift",
        "bare",
        "counts",
        "trailing",
        "crlf-file",
        "fence",
      ),
      shift: fc.integer({ min: -60, max: 60 }),
      context: fc.constantFrom(3, 10),
    });
    let applied = 0;
    fc.assert(
      fc.property(arbitrary, ({ file, edits, kind, shift, context }) => {
        const lines = files[file]!.split("\n");
        // Spread edits over the file without overlap; inserted lines are other lines of the file, changed.
        const spaced: Edit[] = [];
        let floor = 0;
        for (const e of edits) {
          const at = floor + (e.at % Math.max(1, Math.floor(lines.length / (edits.length + 1))));
          if (at + e.remove >= lines.length) break;
          spaced.push({
            at,
            remove: e.remove,
            insert: e.insert.map((n) => `${lines[n % lines.length]!} // changed ${n}`),
          });
          floor = at + e.remove + 1;
        }
        fc.pre(spaced.some((e) => e.remove > 0 || e.insert.length > 0));
        const before = lines.join("\n");
        const after = applyEdits(lines, spaced).join("\n");
        const diff = perturb(createPatch("f.js", before, after, "", "", { context }), kind, shift);
        const crlf = kind === "crlf-file";
        const source = crlf ? before.replace(/\n/g, "\r\n") : before;
        const expected = crlf ? after.replace(/\n/g, "\r\n") : after;
        const result = applyModelPatch(source, diff);
        if (result.ok) {
          applied++;
          expect(result.value.content).toBe(expected);
        } else {
          expect(["invalid_diff", "ambiguous", "no_change"]).toContain(result.error.code);
        }
      }),
      { numRuns: 300, seed: 20261122 },
    );
    // Refusing everything would also satisfy the property: most variants must apply.
    expect(applied).toBeGreaterThan(200);
  });
});
