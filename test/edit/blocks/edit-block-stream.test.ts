// EditBlockParser, the streaming reader: a block returned by the push that completes it, a lost
// END marker recovered, a malformed block counted, reuse after finish, and any split of the text
// giving the whole text's blocks (property).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EditBlockParser, parseEditBlocks } from "../../../server/src/edit/blocks/edit-blocks.js";
import { lineOf, parseInPieces, RESPONSE, text } from "./edit-block-fixtures.js";

describe("EditBlockParser", () => {
  it("returns a block from the push that completes its END line", () => {
    const parser = new EditBlockParser();
    expect(parser.push("src/a.ts\n««« EDIT\nold\n═══════ REPL\nnew\n»»» EDIT")).toEqual([]);
    expect(parser.push(" END")).toEqual([]); // the line might still go on
    expect(parser.push("\nmore prose")).toMatchObject([
      { file_path: "src/a.ts", old: "old\n", new: "new\n" },
    ]);
    expect(parser.finish()).toEqual({ blocks: [], unterminated: 0, malformed: 0 });
  });

  it.each([
    { state: "in the EDIT section", tail: text("src/late.ts", "««« EDIT", "half") },
    { state: "in the REPL section", tail: text("src/late.ts", "««« EDIT", "a", "═══════ REPL", "b") },
    { state: "without a final newline", tail: "src/late.ts\n««« EDIT\na\n═══════ REPL\nb\n»»» EDIT EN" },
  ])("does not emit a block cut off $state", ({ tail }) => {
    const parser = new EditBlockParser();
    const blocks = [...parser.push(RESPONSE + tail)];
    const end = parser.finish();
    blocks.push(...end.blocks);
    expect(blocks.map((b) => b.file_path)).toEqual(["src/math.py", "src/hello.py", "README.md"]);
    expect(end.unterminated).toBe(1);
  });

  it("recovers the next block when one lost its END marker", () => {
    const source = text(
      "src/a.ts",
      "««« EDIT",
      "a",
      "═══════ REPL",
      "b",
      "src/b.ts",
      "««« EDIT",
      "c",
      "═══════ REPL",
      "d",
      "»»» EDIT END",
    );
    const { blocks, unterminated } = parseInPieces(source, []);
    expect(blocks).toEqual([
      { index: 0, file_path: "src/b.ts", old: "c\n", new: "d\n", line: lineOf(source, "src/b.ts") },
    ]);
    expect(unterminated).toBe(1);
  });

  it("drops a block closed before its REPL marker and counts it as malformed", () => {
    const parser = new EditBlockParser();
    const blocks = parser.push(
      text(
        "src/a.ts",
        "««« EDIT",
        "a",
        "»»» EDIT END",
        "src/b.ts",
        "««« EDIT",
        "═══════ REPL",
        "b",
        "»»» EDIT END",
      ),
    );
    expect(blocks).toMatchObject([{ index: 0, file_path: "src/b.ts" }]);
    expect(parser.finish()).toMatchObject({ unterminated: 0, malformed: 1 });
  });

  it("can be reused after finish", () => {
    const parser = new EditBlockParser();
    parser.push(text("src/a.ts", "««« EDIT", "a"));
    expect(parser.finish().unterminated).toBe(1);
    const again = [...parser.push(RESPONSE), ...parser.finish().blocks];
    expect(again).toEqual(parseEditBlocks(RESPONSE));
  });

  const crlfResponse = RESPONSE.replace(/\n/g, "\r\n");
  it.each([
    { name: "LF", source: RESPONSE },
    { name: "CRLF", source: crlfResponse },
  ])("gives the whole-text blocks for $name chunks of every size", ({ source }) => {
    const whole = parseEditBlocks(source);
    expect(whole).toHaveLength(3);
    for (let size = 1; size <= source.length; size++) {
      const cuts: number[] = [];
      for (let at = size; at < source.length; at += size) cuts.push(at);
      expect(parseInPieces(source, cuts), `chunk size ${size}`).toEqual({ blocks: whole, unterminated: 0 });
    }
  });

  it("gives the whole-text blocks for random split points (property)", () => {
    const fragment = fc.constantFrom(
      "src/a.ts",
      "README.md",
      "# not/a/path.py",
      "// src/x.ts",
      "prose with words",
      "",
      "««« EDIT",
      "═══════ REPL",
      "»»» EDIT END",
      "```",
      "  indented 🎉 line",
      "tab\tline\r",
      "世界",
      text("src/b.py", "««« EDIT", "x = 1", "═══════ REPL", "x = 2 # 🎉", "»»» EDIT END"),
      text("**main.go**", "««« EDIT", "═══════ REPL", "package main", "»»» EDIT END").replace(/\n/g, "\r\n"),
    );
    const source = fc.array(fragment, { maxLength: 40 }).map((lines) => lines.join("\n"));
    const sourceAndCuts = source.chain((s) =>
      fc.tuple(fc.constant(s), fc.array(fc.integer({ min: 0, max: s.length }), { maxLength: 30 })),
    );
    fc.assert(
      fc.property(sourceAndCuts, ([s, cuts]) => {
        const parser = new EditBlockParser();
        const wholeBlocks = [...parser.push(s)];
        const whole = parser.finish();
        wholeBlocks.push(...whole.blocks);
        expect(parseInPieces(s, cuts)).toEqual({ blocks: wholeBlocks, unterminated: whole.unterminated });
      }),
      { numRuns: 500 },
    );
  });
});
