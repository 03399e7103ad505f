// An editor that never answers an edit must not hold the file's lock for ever.
import { createPatch } from "diff";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, launch, sha256 } from "../support/lsp-client.js";

afterEach(cleanup);

const FILE = "notes.txt";
const BEFORE = "one\ntwo\nthree\n";

describe("an editor that never answers workspace/applyEdit", () => {
  it("gets a timeout answer, and the next change to the same file is not blocked behind it", async () => {
    const client = await launch({ [FILE]: BEFORE }, { style: "helix", initializationOptions: { applyEditTimeoutMs: 300 } });
    client.beforeApplyEdit = () => new Promise<void>(() => undefined); // never answers
    const first = await client.command("safe_patch", {
      file_path: FILE,
      unified_diff: createPatch(FILE, BEFORE, BEFORE.replace("two", "TWO")),
      base_content_sha256: sha256(BEFORE),
    });
    expect(first).toMatchObject({ ok: false, error: { code: "timeout" } });

    client.beforeApplyEdit = undefined;
    const second = await client.command("write_file", { file_path: "other.txt", content: "x\n" });
    expect(second.ok).toBe(true);
    const third = await client.command("safe_patch", {
      file_path: FILE,
      unified_diff: createPatch(FILE, BEFORE, BEFORE.replace("three", "THREE")),
      base_content_sha256: sha256(BEFORE),
    });
    expect(third.ok).toBe(true);
  });
});
