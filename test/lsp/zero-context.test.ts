// safe_patch through the server as a spawned process, with a `diff -U0` diff: the
// base_content_sha256 the caller names is the author's statement of the base, so an
// insertion without context lands at its header's line when the other hunks confirm
// the numbers, and is refused (file untouched) when they do not.
import { createPatch } from "diff";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, launch, sha256 } from "../support/lsp-client.js";

afterEach(cleanup);

const PRE = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
const POST = PRE.replace("line 10\n", "line 10\nNEW A\nNEW B\n").replace("line 20\n", "changed 20\n");
const DIFF = createPatch("f.txt", PRE, POST, "", "", { context: 0 });

describe("safe_patch with a zero-context insertion", () => {
  it("lands it on an open buffer when the base matches and the other hunk is at its header line", async () => {
    const client = await launch({ "f.txt": PRE }, { style: "helix" });
    await client.open("f.txt");
    const result = await client.command("safe_patch", { file_path: "f.txt", unified_diff: DIFF, base_content_sha256: sha256(PRE) });
    expect(result).toMatchObject({ ok: true, data: { latest_file_state: { sha256: sha256(POST) } } });
    expect(client.buffer("f.txt")?.text).toBe(POST);
  });

  it("refuses it when the numbers were counted on another text, and leaves the buffer", async () => {
    const client = await launch({ "f.txt": PRE }, { style: "neovim" });
    await client.open("f.txt");
    const shifted = DIFF.replace("@@ -10,0 +11,2 @@", "@@ -8,0 +9,2 @@").replace("@@ -20,1 +22,1 @@", "@@ -18,1 +20,1 @@");
    const result = await client.command("safe_patch", { file_path: "f.txt", unified_diff: shifted, base_content_sha256: sha256(PRE) });
    expect(result).toMatchObject({ ok: false, error: { code: "invalid_diff", message: expect.stringMatching(/hunk 2 fits the file at line 20, and its header says 18/) as string } });
    expect(client.buffer("f.txt")?.text).toBe(PRE);
    expect(client.applyEditRequests).toHaveLength(0);
  });
});
