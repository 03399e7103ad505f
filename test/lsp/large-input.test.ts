// One large input does not hold the server: a diff of thousands of hunks runs in
// a worker thread, lands exactly, can be cancelled, and a diff over the hunk
// limit is refused with a clear message. (How fast other commands answer
// meanwhile is measured in `npm run bench`, not asserted here.)
import { afterEach, describe, expect, it } from "vitest";
import {
  BIG_LINES as LINES,
  BIG_TEXT as TEXT,
  bigDiff,
  expectCancelled,
  expectCancelledPatch,
} from "../support/large-patch.js";
import { cleanup, launch, sha256 } from "../support/lsp-client.js";

afterEach(cleanup);

/** `count` edit blocks, each changing line 1 + 39k of big.ts (anchored on the line before). */
function blocks(count: number): string {
  return Array.from({ length: count }, (_, k) => {
    const at = 1 + k * 39;
    return `big.ts\n««« EDIT\n${LINES[at - 1]}\n${LINES[at]}\n═══════ REPL\n${LINES[at - 1]}\n${LINES[at]} // ${k}\n»»» EDIT END\n`;
  }).join("\n");
}

describe("large inputs over LSP", () => {
  it("a 13,000-hunk patch (worker thread) lands exactly, and the server answers the next command", async () => {
    const client = await launch({ "big.ts": TEXT, "small.ts": "x\n" }, { style: "helix", args: [] });
    const { diff, after } = bigDiff(13_000, 3);
    const result = await client.command("safe_patch", {
      file_path: "big.ts",
      unified_diff: diff,
      base_content_sha256: sha256(TEXT),
      dry_run: true,
    });
    expect(result).toMatchObject({ ok: true, data: { applied: false } });
    const real = await client.command("safe_patch", {
      file_path: "big.ts",
      unified_diff: diff,
      base_content_sha256: sha256(TEXT),
    });
    expect(real, JSON.stringify(real).slice(0, 600)).toMatchObject({
      ok: true,
      data: { latest_file_state: { sha256: sha256(after) } },
    });
    expect(await client.command("read_file", { file_path: "small.ts" })).toMatchObject({
      ok: true,
      data: { content: "x\n" },
    });
  }, 60_000);

  it("$/cancelRequest reaches a large patch: the answer is cancelled and nothing is written", async () => {
    const client = await launch({ "big.ts": TEXT }, { style: "helix" });
    await expectCancelledPatch(client, "big.ts");
  }, 60_000);

  it("refuses a diff over the hunk limit with the count and the next step", async () => {
    const client = await launch({ "big.ts": TEXT }, { style: "helix" });
    const { diff } = bigDiff(20_001, 1);
    const result = await client.command("safe_patch", {
      file_path: "big.ts",
      unified_diff: diff,
      base_content_sha256: sha256(TEXT),
    });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "invalid_argument", message: expect.stringContaining("20001 hunks") as string },
    });
  }, 60_000);

  it("a thousand edit blocks on a 40,000-line file (worker thread) land exactly, and a thousand and one are refused with the count", async () => {
    const client = await launch({ "big.ts": TEXT }, { style: "helix" });
    const over = await client.command("apply_edit_blocks", { text: blocks(1_001) });
    expect(over).toMatchObject({
      ok: false,
      error: { code: "invalid_argument", message: expect.stringContaining("1001 edit blocks") as string },
    });
    expect(client.applyEditRequests).toHaveLength(0);

    const result = await client.command("apply_edit_blocks", { text: blocks(1_000) });
    expect(result).toMatchObject({ ok: true, data: { files_changed: ["big.ts"] } });
    const expected =
      LINES.map((line, i) =>
        (i - 1) % 39 === 0 && i <= 1 + 999 * 39 ? `${line} // ${(i - 1) / 39}` : line,
      ).join("\n") + "\n";
    expect(await client.command("read_file", { file_path: "big.ts" })).toMatchObject({
      ok: true,
      data: { sha256: sha256(expected) },
    });
  }, 60_000);

  it("$/cancelRequest reaches many edit blocks on a large file: nothing is applied", async () => {
    const client = await launch({ "big.ts": TEXT }, { style: "helix" });
    // Cancelled while the blocks are being applied in the worker (the whole call takes over a second); earlier is cancelled as well.
    await expectCancelled(client, "lockstep.apply_edit_blocks", { text: blocks(1_000) }, 400);
    expect(client.applyEditRequests).toHaveLength(0);
    expect(await client.command("read_file", { file_path: "big.ts" })).toMatchObject({
      ok: true,
      data: { sha256: sha256(TEXT) },
    });
  }, 60_000);

  it("refuses an edit whose strings are over the size limit, naming it", async () => {
    const client = await launch({ "big.ts": TEXT }, { style: "helix" });
    const result = await client.command("edit", {
      file_path: "big.ts",
      old_string: "x".repeat(8 * 1024 * 1024),
      new_string: "y",
    });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "invalid_argument", message: expect.stringContaining("over 8 MB") as string },
    });
  }, 60_000);
});
