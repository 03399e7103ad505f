// safe_patch through the server as a spawned process, with a `diff -U0` diff: an
// insertion without context lands at its header's line only when git's index line
// proves the numbers. A base_content_sha256 that matches is no such proof: without
// the index line the diff is refused and the buffer left as it was.
import { createPatch } from "diff";
import { afterEach, describe, expect, it } from "vitest";
import { gitBlobHash } from "../../server/src/edit/patch/numbered.js";
import { cleanup, launch, sha256 } from "../support/lsp-client.js";

afterEach(cleanup);

const PRE = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
const POST = PRE.replace("line 10\n", "line 10\nNEW A\nNEW B\n").replace("line 20\n", "changed 20\n");
const DIFF = createPatch("f.txt", PRE, POST, "", "", { context: 0 });
const GIT =
  `diff --git a/f.txt b/f.txt\nindex ${gitBlobHash(PRE).slice(0, 7)}..${gitBlobHash(POST).slice(0, 7)} 100644\n` +
  DIFF.split("\n").slice(2).join("\n");
const NO_INDEX = /no git `index OLD\.\.NEW` line/;

describe("safe_patch with a zero-context insertion", () => {
  it("lands it on an open buffer when git's index line names the buffer's blob", async () => {
    const client = await launch({ "f.txt": PRE }, { style: "helix" });
    await client.open("f.txt");
    const result = await client.command("safe_patch", {
      file_path: "f.txt",
      unified_diff: GIT,
      base_content_sha256: sha256(PRE),
    });
    expect(result).toMatchObject({ ok: true, data: { latest_file_state: { sha256: sha256(POST) } } });
    expect(client.buffer("f.txt")?.text).toBe(POST);
  });

  it("refuses it without the index line, though the base matches and the other hunk is at its header line, and leaves the buffer", async () => {
    const client = await launch({ "f.txt": PRE }, { style: "helix" });
    await client.open("f.txt");
    const result = await client.command("safe_patch", {
      file_path: "f.txt",
      unified_diff: DIFF,
      base_content_sha256: sha256(PRE),
    });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "invalid_diff", message: expect.stringMatching(NO_INDEX) as string },
    });
    expect(JSON.stringify(result)).toMatch(/Add 3 unchanged lines of context/);
    expect(client.buffer("f.txt")?.text).toBe(PRE);
    expect(client.applyEditRequests).toHaveLength(0);
  });

  it("refuses an insertion whose own numbers are shifted on both sides (a diff of another change, read alone), and leaves the buffer", async () => {
    const client = await launch({ "f.txt": PRE }, { style: "neovim" });
    await client.open("f.txt");
    const shifted = DIFF.replace("@@ -10,0 +11,2 @@", "@@ -12,0 +13,2 @@");
    expect(shifted).not.toBe(DIFF);
    const result = await client.command("safe_patch", {
      file_path: "f.txt",
      unified_diff: shifted,
      base_content_sha256: sha256(PRE),
    });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "invalid_diff", message: expect.stringMatching(NO_INDEX) as string },
    });
    expect(client.buffer("f.txt")?.text).toBe(PRE);
    expect(client.applyEditRequests).toHaveLength(0);
  });
});
