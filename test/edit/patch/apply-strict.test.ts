// The strict last step: a corrected hunk whose old lines are not the file's at
// its numbers applies nothing; one that fits gives exactly applyPatch's text.
import { applyPatch, type StructuredPatchHunk } from "diff";
import { describe, expect, it } from "vitest";
import { applyStrictly as applyTo } from "../../../server/src/edit/patch/apply-strict.js";
import { LineTable } from "../../../server/src/edit/shared/text.js";

const applyStrictly = (source: string, hunks: StructuredPatchHunk[]): string | undefined =>
  applyTo(new LineTable(source), hunks, "\n");

const hunk = (oldStart: number, lines: string[]): StructuredPatchHunk => ({
  oldStart,
  oldLines: lines.filter((l) => !l.startsWith("+")).length,
  newStart: oldStart,
  newLines: lines.filter((l) => !l.startsWith("-")).length,
  lines,
});

describe("applyStrictly", () => {
  it.each([
    { name: "a replacement", source: "a\nb\nc\n", hunks: [hunk(2, ["-b", "+B"])] },
    {
      name: "two hunks with context",
      source: "a\nb\nc\nd\ne\n",
      hunks: [hunk(1, [" a", "-b", "+B"]), hunk(4, [" d", "+x", " e"])],
    },
    { name: "CRLF lines carry their \\r", source: "a\r\nb\r\n", hunks: [hunk(1, [" a\r", "-b\r", "+B\r"])] },
    { name: "an insertion into an empty text", source: "", hunks: [hunk(1, ["+x", "+y"])] },
  ])("$name: the same text as applyPatch", ({ source, hunks }) => {
    const expected = applyPatch(
      source,
      { oldFileName: "f", newFileName: "f", oldHeader: undefined, newHeader: undefined, hunks },
      { autoConvertLineEndings: false },
    );
    expect(applyStrictly(source, hunks)).toBe(expected);
  });

  it.each([
    { name: "a context line that is not the file's", hunks: [hunk(1, [" x", "-b", "+B"])] },
    { name: "a removed line past the end", hunks: [hunk(3, [" c", "-d"])] },
    {
      name: "a CRLF-less line where the file has CRLF",
      hunks: [hunk(1, ["-a", "+A"])],
      source: "a\r\nb\r\n",
    },
    { name: "hunks out of order", hunks: [hunk(2, ["-b", "+B"]), hunk(1, ["-a", "+A"])] },
  ])("refuses $name", ({ hunks, source }) => {
    expect(applyStrictly(source ?? "a\nb\nc\n", hunks)).toBeUndefined();
  });
});
