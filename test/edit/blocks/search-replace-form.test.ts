// aider's SEARCH/REPLACE form read by the same parser as ««« EDIT blocks: the same block from
// either form, both forms in one answer, any chunking of a stream.
import { describe, expect, it } from "vitest";
import { EditBlockParser, parseEditBlocks } from "../../../server/src/edit/blocks/edit-blocks.js";

describe("aider's SEARCH/REPLACE form", () => {
  const aider = [
    "Here is the fix:",
    "",
    "src/app.py",
    "```python",
    "<<<<<<< SEARCH",
    "def area(w, h):",
    "    return w * h",
    "=======",
    "def area(w, h):",
    "    return h * w",
    ">>>>>>> REPLACE",
    "```",
  ].join("\n");

  it("gives the same block the ««« EDIT form gives, a fence between path and marker allowed", () => {
    const edit = [
      "src/app.py",
      "««« EDIT",
      "def area(w, h):",
      "    return w * h",
      "═══════ REPL",
      "def area(w, h):",
      "    return h * w",
      "»»» EDIT END",
    ].join("\n");
    const [a] = parseEditBlocks(aider);
    const [e] = parseEditBlocks(edit);
    expect(a).toMatchObject({ file_path: "src/app.py", old: e!.old, new: e!.new });
  });

  it("reads a ======= line in the REPLACE part as text, and both forms in one answer, in order", () => {
    const text = [
      "a.md",
      "<<<<<<< SEARCH",
      "Title",
      "=======",
      "Title",
      "=======",
      ">>>>>>> REPLACE",
      "b.txt",
      "««« EDIT",
      "x",
      "═══════ REPL",
      "y",
      "»»» EDIT END",
    ].join("\n");
    const blocks = parseEditBlocks(text);
    expect(blocks.map((b) => [b.file_path, b.old, b.new])).toEqual([
      ["a.md", "Title\n", "Title\n=======\n"],
      ["b.txt", "x\n", "y\n"],
    ]);
  });

  it("streams: any chunking gives the same blocks", () => {
    const whole = parseEditBlocks(aider);
    for (const size of [1, 3, 7, 50]) {
      const parser = new EditBlockParser();
      const got = [];
      for (let i = 0; i < aider.length; i += size) got.push(...parser.push(aider.slice(i, i + size)));
      got.push(...parser.finish().blocks);
      expect(got).toEqual(whole);
    }
  });
});
