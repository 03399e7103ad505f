// A file whose candidate lines ripgrep located (line number and byte offset) is
// searched by decoding only those lines, and gives what decoding the whole file
// gave: line numbers, CRLF, a BOM, multibyte text, binary and non-UTF-8 files
// skipped, the limit, however small the read buffer. Located lines that are not
// line starts (the file changed since) make it search the file whole.
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { searchItem } from "../../server/src/workspace/walk/file-scan.js";
import { compileSearch, searchLines } from "../../server/src/workspace/walk/line-search.js";
import { ioWith, reference } from "./scan-reference.js";

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "lockstep-located-"));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const io = ioWith;

/** Every line's number and byte offset, pair after pair (no line after a final newline). */
function lineStarts(bytes: Buffer): number[] {
  const out: number[] = [];
  let line = 1;
  for (let at = 0; at < bytes.length; line++) {
    out.push(line, at);
    const nl = bytes.indexOf(10, at);
    if (nl === -1) break;
    at = nl + 1;
  }
  return out;
}

const PIECES = ["needle", "Needle", "NEEDLE", "other", "é", "😀", "\u212Aey", "key", " ", "x=1"];
const arbitraryBytes = fc
  .tuple(
    fc.array(
      fc.tuple(fc.array(fc.constantFrom(...PIECES), { maxLength: 10 }), fc.constantFrom("\n", "\r\n")),
      { maxLength: 50 },
    ),
    fc.constantFrom("plain", "plain", "no-final-newline", "bom", "nul-early", "invalid-utf8"),
  )
  .map(([lines, kind]) => {
    const text = lines.map(([words, end]) => words.join(" ") + end).join("");
    const bytes = Buffer.from(kind === "no-final-newline" ? text.replace(/\r?\n$/, "") : text);
    if (kind === "bom") return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
    if (kind === "nul-early") return Buffer.concat([Buffer.from([0]), bytes]);
    if (kind === "invalid-utf8") return Buffer.concat([bytes, Buffer.from([0xff, 10])]);
    return bytes;
  });

describe("a file searched at its located lines", () => {
  it("property: every line located, or only the matching ones, gives the whole file's answer", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        arbitraryBytes,
        fc.constantFrom("needle", "Needle", "key", "needle|other", "^Needle", "x=\\d$", "é.*😀"),
        fc.integer({ min: 1, max: 20 }),
        fc.constantFrom(16, 64, 1 << 20),
        async (bytes, pattern, limit, bufferBytes) => {
          const compiled = compileSearch(pattern, undefined);
          if (!compiled.ok) throw new Error(compiled.error.message);
          const { source, flags } = compiled.value;
          const abs = path.join(dir, `f${n++}.txt`);
          await fs.writeFile(abs, bytes);
          const expected = reference(bytes, source, flags, limit);
          const all = lineStarts(bytes);
          // Only the lines the whole-file search matches (what ripgrep's required text would at least name).
          const whole = reference(bytes, source, flags, 1 << 20);
          const matching = all.filter((_, i) => i % 2 === 0 && whole.matches.some((m) => m.line === all[i]));
          const only = matching.flatMap((line) => [line, all[all.indexOf(line) + 1]!]);
          const scan = (lines: number[]) =>
            searchItem({ abs, lines }, { source, flags }, limit, 1 << 20, io(bufferBytes), searchLines);
          expect(scan(all)).toEqual(expected);
          expect(scan(only)).toEqual(expected);
          await fs.rm(abs);
        },
      ),
      { seed: 1136, numRuns: 300 },
    );
  });

  it("searches the file whole when a located offset is not a line's start (it changed since)", async () => {
    const abs = path.join(dir, "changed.txt");
    const bytes = Buffer.from("first\nsecond needle\nthird needle\n");
    await fs.writeFile(abs, bytes);
    const compiled = compileSearch("needle", undefined);
    if (!compiled.ok) throw new Error("pattern");
    const expected = reference(bytes, compiled.value.source, compiled.value.flags, 10);
    expect(expected.matches.map((m) => m.line)).toEqual([2, 3]);
    // Offsets inside a line, and past the end.
    for (const lines of [
      [2, 7],
      [2, 6, 3, 200],
    ])
      expect(searchItem({ abs, lines }, compiled.value, 10, 1 << 20, io(1 << 20), searchLines)).toEqual(
        expected,
      );
  });
});
