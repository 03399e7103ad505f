// A file searched window by window, its bytes prefiltered for the pattern's
// required text, gives what decoding the whole file and matching it gave
// (line numbers, CRLF, multibyte text, binary and non-UTF-8 files skipped, the
// limit), with and without the prefilter, however small the read buffer; and
// a large file is never held whole.
import * as nodeFs from "node:fs";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { searchItem, type FileSystem } from "../../server/src/workspace/walk/file-scan.js";
import { compileSearch, searchLines } from "../../server/src/workspace/walk/line-search.js";
import { ioWith, reference } from "./scan-reference.js";

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "lockstep-file-scan-"));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

// Pieces that make lines: words, the patterns' literals in several cases, multibyte
// characters (K is U+212A, which /k/iu matches; ſ is U+017F, which /s/iu matches).
const PIECES = [
  "fooBar",
  "foobar",
  "FOOBAR",
  "Kelvin",
  "\u212Aelvin",
  "ſtatic",
  "static",
  "é",
  "😀",
  "x",
  "  ",
  "\t",
  "=",
  "(",
  "needle",
  "NeedLe",
];
const ENDS = ["\n", "\r\n"];

const arbitraryText = fc
  .array(fc.tuple(fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }), fc.constantFrom(...ENDS)), {
    maxLength: 60,
  })
  .map((lines) => lines.map(([words, end]) => words.join(" ") + end).join(""));

const arbitraryBytes = fc
  .tuple(
    arbitraryText,
    fc.constantFrom(
      "plain",
      "plain",
      "plain",
      "no-final-newline",
      "nul-early",
      "nul-late",
      "invalid-utf8",
      "bom",
    ),
  )
  .map(([text, kind]) => {
    const bytes = Buffer.from(kind === "no-final-newline" ? text.replace(/\r?\n$/, "") : text, "utf8");
    if (kind === "nul-early")
      return Buffer.concat([bytes.subarray(0, 5), Buffer.from([0]), bytes.subarray(5)]);
    if (kind === "nul-late") return Buffer.concat([bytes, Buffer.alloc(9000, 0x61), Buffer.from([0, 10])]);
    if (kind === "invalid-utf8") return Buffer.concat([bytes, Buffer.from([0xff, 10])]);
    if (kind === "bom") return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
    return bytes;
  });

// Patterns that never look across a line's end (as grep's do not): literal, smart-case, regular expressions, alternatives.
const PATTERNS = [
  "fooBar",
  "foobar",
  "kelvin",
  "static",
  "needle",
  "NeedLe",
  "foo[A-Z]ar",
  "fo+bar\\b",
  "^fooBar",
  "fooBar$",
  "é|😀",
  "kelvin|static",
  "x\\s*=",
  "[a-z]{3}",
  "^$",
  "(foo)?bar",
  "FOOBAR|needle",
  "ſ",
  "\u212A",
];

describe("searchItem", () => {
  it("property: window by window, prefiltered or not, it gives what the whole file decoded gave", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        arbitraryBytes,
        fc.constantFrom(...PATTERNS),
        fc.option(fc.boolean()),
        fc.integer({ min: 1, max: 30 }),
        fc.constantFrom(8, 64, 1024, 1 << 20),
        async (bytes, pattern, caseSensitive, limit, bufferBytes) => {
          const compiled = compileSearch(pattern, caseSensitive ?? undefined);
          if (!compiled.ok) throw new Error(compiled.error.message);
          const { source, flags, prefilter } = compiled.value;
          const abs = path.join(dir, `f${n++}.txt`);
          await fs.writeFile(abs, bytes);
          const maxBytes = 6000;
          const expected = reference(bytes, source, flags, limit, maxBytes);
          const fast = searchItem(
            { abs },
            { source, flags, prefilter },
            limit,
            maxBytes,
            ioWith(bufferBytes),
            searchLines,
          );
          const fallback = searchItem(
            { abs },
            { source, flags },
            limit,
            maxBytes,
            ioWith(bufferBytes),
            searchLines,
          );
          expect(fast).toEqual(expected);
          expect(fallback).toEqual(expected);
          await fs.rm(abs);
        },
      ),
      { seed: 36, numRuns: 400 },
    );
  });

  it.each([
    ["kelvin", "the \u212Aelvin sign\n"],
    ["static", "ſtatic, with a long s\n"],
    ["STATIC|kelvin", "plain\n\u212AELVIN\n"],
    ["élan", "ÉLAN\n"],
  ])(
    "under Unicode case folding %s still finds %j (its bytes are not the ASCII ones)",
    async (pattern, text) => {
      const abs = path.join(dir, "fold.txt");
      await fs.writeFile(abs, text);
      const compiled = compileSearch(pattern, false);
      if (!compiled.ok) throw new Error("pattern");
      const expected = reference(Buffer.from(text), compiled.value.source, compiled.value.flags, 10, 1 << 20);
      expect(expected.matches.length).toBeGreaterThan(0);
      expect(searchItem({ abs }, compiled.value, 10, 1 << 20, ioWith(1024), searchLines)).toEqual(expected);
    },
  );

  it("finds matches across read boundaries with the right line numbers, CRLF and multibyte text included", async () => {
    const lines = Array.from({ length: 3000 }, (_, i) =>
      i % 997 === 0 ? `é😀 needle at ${i + 1}\r` : `line ${i + 1} ${"é".repeat(i % 7)}`,
    );
    const abs = path.join(dir, "boundaries.txt");
    await fs.writeFile(abs, lines.join("\n"));
    const compiled = compileSearch("needle at \\d+", undefined);
    if (!compiled.ok) throw new Error("pattern");
    for (const bufferBytes of [16, 100, 4096, 1 << 20]) {
      const answer = searchItem({ abs }, compiled.value, 100, 1 << 20, ioWith(bufferBytes), searchLines);
      expect(answer.matches).toEqual(
        [1, 998, 1995, 2992].map((line) => ({ line, text: `é😀 needle at ${line}` })),
      );
    }
  });

  it("reads a large file a window at a time into the thread's buffer, never whole, and does not open one over the limit", async () => {
    const line = "some text that does not hold the word looked for, repeated to fill a file\n";
    const abs = path.join(dir, "large.txt");
    await fs.writeFile(abs, line.repeat(Math.ceil((8 << 20) / line.length)) + "the needle\n");
    const reads: { length: number; into: Buffer }[] = [];
    const recording: FileSystem = {
      ...nodeFs,
      constants: nodeFs.constants,
      readSync: ((fd: number, into: Buffer, offset: number, length: number, position: number | null) => {
        reads.push({ length, into });
        return nodeFs.readSync(fd, into, offset, length, position);
      }) as FileSystem["readSync"],
    };
    const io = ioWith(64 * 1024, recording);
    const compiled = compileSearch("needle", undefined);
    if (!compiled.ok) throw new Error("pattern");
    const answer = searchItem({ abs }, compiled.value, 10, 64 << 20, io, searchLines);
    expect(answer.matches).toEqual([{ line: Math.ceil((8 << 20) / line.length) + 1, text: "the needle" }]);
    // Every read went into the thread's one 64 KB buffer (or the 64 KB piece lines are counted in), none asked for more.
    expect(reads.length).toBeGreaterThan(100);
    expect(Math.max(...reads.map((r) => r.length))).toBeLessThanOrEqual(64 * 1024);
    expect(new Set(reads.map((r) => r.into.buffer)).size).toBeLessThanOrEqual(2);
    reads.length = 0;
    expect(searchItem({ abs }, compiled.value, 10, 1 << 20, io, searchLines)).toEqual({
      matches: [],
      skipped: "too_large",
    });
    expect(reads).toEqual([]);
  });

  it("does not follow a link swapped in for a file", async () => {
    const target = path.join(dir, "target.txt");
    await fs.writeFile(target, "needle\n");
    const link = path.join(dir, "link.txt");
    await fs.symlink(target, link);
    const compiled = compileSearch("needle", undefined);
    if (!compiled.ok) throw new Error("pattern");
    expect(searchItem({ abs: link }, compiled.value, 10, 1 << 20, ioWith(1024), searchLines)).toEqual({
      matches: [],
      skipped: "unreadable",
    });
  });
});
