// Writers in different processes racing on one base: of N `lockstep apply-patch`
// runs built on the same sha256, each changing another line, exactly one lands
// and the rest answer state_mismatch; the file holds that one change and nothing
// else (the per-file lock of one process does not reach another: the disk lock does).
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { sha256Of, tempDir } from "../support/workspace-fixture.js";

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../bin/lockstep.js");
const WRITERS = 20;

function applyPatch(
  root: string,
  base: string,
  diff: string,
): Promise<{ code: string | undefined; ok: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [BIN, "apply-patch", "lines.txt", "--base-sha256", base, "--root", root],
      { stdio: ["pipe", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.on("error", reject);
    child.on("close", () => {
      const envelope = JSON.parse(out) as { ok: boolean; error?: { code: string } };
      resolve({ ok: envelope.ok, code: envelope.error?.code });
    });
    child.stdin.end(diff);
  });
}

describe("writers in separate processes", () => {
  it(`of ${WRITERS} apply-patch runs on one base, exactly one lands and the file holds its change alone`, async () => {
    const root = await tempDir();
    const original = Array.from({ length: 200 }, (_, i) => `line ${i} value ${i * 7}`).join("\n") + "\n";
    await fs.writeFile(path.join(root, "lines.txt"), original);
    const base = sha256Of(original);
    const diffs = Array.from({ length: WRITERS }, (_, k) => {
      const at = 5 + k * 9;
      return `@@ @@\n line ${at - 1} value ${(at - 1) * 7}\n-line ${at} value ${at * 7}\n+line ${at} value CHANGED BY ${k}\n line ${at + 1} value ${(at + 1) * 7}\n`;
    });
    const results = await Promise.all(diffs.map((d) => applyPatch(root, base, d)));

    const landed = results.map((r, k) => (r.ok ? k : -1)).filter((k) => k >= 0);
    expect(landed).toHaveLength(1);
    expect(results.filter((r) => !r.ok).every((r) => r.code === "state_mismatch")).toBe(true);
    const k = landed[0]!;
    const at = 5 + k * 9;
    const after = await fs.readFile(path.join(root, "lines.txt"), "utf8");
    expect(after).toBe(
      original.replace(`line ${at} value ${at * 7}\n`, `line ${at} value CHANGED BY ${k}\n`),
    );
    // Neither lock nor temporary file is left behind.
    expect((await fs.readdir(root)).sort()).toEqual(["lines.txt"]);
  }, 60_000);
});
