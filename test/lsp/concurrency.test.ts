// Edits to one file are serialized and the hash decides; edits to different
// files run side by side.
import { createPatch } from "diff";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, launch, sha256, stateOf } from "../support/lsp-client.js";

afterEach(cleanup);

const FILE = "src/config.ts";
const LINES = Array.from({ length: 120 }, (_, i) => `export const setting${i + 1} = "${i + 1}";`);
const TEXT = LINES.join("\n") + "\n";

/** TEXT with line 5 + 5*i changed: twenty patches that touch twenty different places. */
function variant(i: number): string {
  const lines = [...LINES];
  const n = 5 + 5 * i;
  lines[n - 1] = `export const setting${n} = "changed by patch ${i}";`;
  return lines.join("\n") + "\n";
}

describe.each(["helix", "neovim", "eglot"] as const)("concurrent commands in %s", (style) => {
  it("twenty safe_patches built on the same state: exactly one lands, nineteen get the winner's state", async () => {
    const client = await launch({ [FILE]: TEXT }, { style });
    await client.open(FILE);
    const base = sha256(TEXT);

    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.command("safe_patch", {
          file_path: FILE,
          unified_diff: createPatch(FILE, TEXT, variant(i)),
          base_content_sha256: base,
        }),
      ),
    );

    const winners = results.flatMap((r, i) => (r.ok ? [i] : []));
    expect(winners).toHaveLength(1);
    const winner = winners[0]!;
    const landed = variant(winner);
    expect(stateOf(results[winner]!)).toMatchObject({ content: landed, sha256: sha256(landed) });
    for (const [i, r] of results.entries()) {
      if (i === winner) continue;
      expect(r).toMatchObject({ ok: false, error: { code: "state_mismatch" } });
      expect(stateOf(r).sha256).toBe(sha256(landed));
    }
    expect(client.applyEditRequests).toHaveLength(1);
    expect(client.buffer(FILE)!.text).toBe(landed);
  });
});

describe("different files", () => {
  it("run concurrently: the second file's edit reaches the editor while the first one's is still unanswered", async () => {
    const files = { "a.ts": "export const a = 1;\n", "b.ts": "export const b = 1;\n" };
    const client = await launch(files, { style: "helix" });
    await client.open("a.ts");
    await client.open("b.ts");

    const inFlight = new Set<string>();
    let most = 0;
    let bothArrived!: () => void;
    const both = new Promise<void>((resolve) => (bothArrived = resolve));
    // Give up holding after 15 s (a loaded machine may take seconds between the two), so a server that
    // serializes files fails the assertion instead of hanging.
    const giveUp = new Promise<void>((resolve) => setTimeout(resolve, 15_000).unref());
    client.beforeApplyEdit = async (params) => {
      const uri = JSON.stringify(
        params.edit.documentChanges?.map((c) => ("textDocument" in c ? c.textDocument.uri : "")),
      );
      inFlight.add(uri);
      most = Math.max(most, inFlight.size);
      if (inFlight.size === 2) bothArrived();
      await Promise.race([both, giveUp]);
      inFlight.delete(uri);
    };

    const [a, b] = await Promise.all([
      client.command("safe_patch", {
        file_path: "a.ts",
        unified_diff: "@@ @@\n-export const a = 1;\n+export const a = 2;\n",
        base_content_sha256: sha256(files["a.ts"]),
      }),
      client.command("safe_patch", {
        file_path: "b.ts",
        unified_diff: "@@ @@\n-export const b = 1;\n+export const b = 2;\n",
        base_content_sha256: sha256(files["b.ts"]),
      }),
    ]);
    expect(most).toBe(2);
    expect([a.ok, b.ok]).toEqual([true, true]);
    expect(client.buffer("a.ts")!.text).toBe("export const a = 2;\n");
    expect(client.buffer("b.ts")!.text).toBe("export const b = 2;\n");
  }, 40_000);
});
