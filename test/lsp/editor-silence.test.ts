// An editor that never answers an edit must not hold the file's lock for ever.
import { createPatch } from "diff";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, launch, sha256 } from "../support/lsp-client.js";

afterEach(cleanup);

const FILE = "notes.txt";
const BEFORE = "one\ntwo\nthree\n";

describe("an editor that never answers workspace/applyEdit", () => {
  it("gets a timeout answer, and the next change to the same file is not blocked behind it", async () => {
    const client = await launch(
      { [FILE]: BEFORE },
      { style: "helix", initializationOptions: { applyEditTimeoutMs: 300 } },
    );
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

describe("an editor whose answer comes while lockstep is busy", () => {
  it("is read as the answer it is, not as a timeout", async () => {
    const lines = Array.from({ length: 40_000 }, (_, i) => `line ${i}`);
    const big = lines.join("\n") + "\n";
    const client = await launch(
      { [FILE]: BEFORE, "big.txt": big },
      { style: "helix", initializationOptions: { applyEditTimeoutMs: 100 } },
    );
    await client.open("big.txt");
    // Before it answers, the editor sends a didChange that keeps lockstep busy well past the 100 ms deadline
    // (about 1.3 s here):
    // changes that alternate between the top and the bottom of a large buffer are applied one by one.
    client.beforeApplyEdit = () => {
      const at = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 0 } });
      const contentChanges = Array.from({ length: 1_500 }, (_, k) => ({
        range: at(k % 2 === 0 ? k / 2 : 30_000 + (k - 1) / 2),
        text: "x",
      }));
      client.notify("textDocument/didChange", {
        textDocument: { uri: client.uri("big.txt"), version: 2 },
        contentChanges,
      });
    };
    const started = performance.now();
    const patched = await client.command("safe_patch", {
      file_path: FILE,
      unified_diff: createPatch(FILE, BEFORE, BEFORE.replace("two", "TWO")),
      base_content_sha256: sha256(BEFORE),
    });
    const took = performance.now() - started;
    expect(patched, `took ${Math.round(took)} ms`).toMatchObject({ ok: true });
    expect(client.buffer(FILE)?.text).toBe(BEFORE.replace("two", "TWO"));
  }, 60_000);
});
