// safe_patch through the workspace: a patch that fits lands (a corrected header line said,
// CRLF kept, a new file, several hunks), a dry run, and twenty writers on one state. The
// refusals are safe-patch-refusals.test.ts.
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { EMPTY_SHA256, latestState, lines, makeWorkspace, sha256Of } from "../support/workspace-fixture.js";
import { FILE, FIX_MUL_BODY, FIXED, MATH, mathWorkspace } from "./math-fixture.js";

describe("safe_patch: a patch that fits lands", () => {
  it("writes the new content and returns the new state with its sha256", async () => {
    const ws = await mathWorkspace();
    const result = await ws.call("safe_patch", {
      file_path: FILE,
      unified_diff: `--- a/${FILE}\n+++ b/${FILE}\n@@ -9,3 +9,3 @@\n${FIX_MUL_BODY}`,
      base_content_sha256: sha256Of(MATH),
    });

    expect(result).toMatchObject({
      ok: true,
      data: { message: "Patch applied successfully.", applied: true },
    });
    expect(latestState(result)).toMatchObject({
      file_path: FILE,
      version: null,
      sha256: sha256Of(FIXED),
      content: FIXED,
    });
    expect(await ws.text(FILE)).toBe(FIXED);
    expect(result.data?.["diff"]).toContain("@@ -9,3 +9,3 @@");
  });

  it.each<[name: string, header: string]>([
    ["a header 7 lines too early", "@@ -2,3 +2,3 @@"],
    ["a header past the end of the file", "@@ -40,3 +40,3 @@"],
    ["wrong line counts", "@@ -9,7 +9,12 @@"],
    ["a bare header", "@@ @@"],
  ])("places a hunk with %s by its context and reports the true numbers", async (_name, header) => {
    const ws = await mathWorkspace();
    const result = await ws.call("safe_patch", {
      file_path: FILE,
      unified_diff: `${header}\n${FIX_MUL_BODY}`,
      base_content_sha256: sha256Of(MATH),
    });

    expect(result.ok).toBe(true);
    expect(await ws.text(FILE)).toBe(FIXED);
    expect(result.data?.["diff"]).toContain("@@ -9,3 +9,3 @@");
  });

  it("says in the message that a wrong header line was corrected", async () => {
    const ws = await mathWorkspace();
    const result = await ws.call("safe_patch", {
      file_path: FILE,
      unified_diff: `@@ -2,3 +2,3 @@\n${FIX_MUL_BODY}`,
      base_content_sha256: sha256Of(MATH),
    });
    expect(result.data?.["message"]).toMatch(/^Patch applied successfully\. .*wrong line number.*corrected/);
  });

  it.each<[name: string, filePath: (root: string) => string]>([
    ["an absolute path", (root) => `${root}/${FILE}`],
    ["a file:// URI", (root) => pathToFileURL(`${root}/${FILE}`).href],
    ["a Windows-style path", () => FILE.replace("/", "\\")],
  ])("accepts the file as %s inside the workspace", async (_name, filePath) => {
    const ws = await mathWorkspace();
    const result = await ws.call("safe_patch", {
      file_path: filePath(ws.root),
      unified_diff: `@@ @@\n${FIX_MUL_BODY}`,
      base_content_sha256: sha256Of(MATH),
    });
    expect(result.ok).toBe(true);
    expect(latestState(result).file_path).toBe(FILE);
    expect(await ws.text(FILE)).toBe(FIXED);
  });

  it("keeps CRLF line endings, added lines included", async () => {
    const crlf = MATH.replaceAll("\n", "\r\n");
    const ws = await makeWorkspace({ [FILE]: crlf });
    const diff = lines(
      "@@ -9,3 +9,4 @@",
      " export function mul(a: number, b: number): number {",
      "-  return a + b;",
      "+  // product",
      "+  return a * b;",
      " }",
    );
    const result = await ws.call("safe_patch", {
      file_path: FILE,
      unified_diff: diff,
      base_content_sha256: sha256Of(crlf),
    });

    expect(result.ok).toBe(true);
    const expected = FIXED.replace("  return a * b;", "  // product\n  return a * b;").replaceAll(
      "\n",
      "\r\n",
    );
    expect((await ws.bytes(FILE)).equals(Buffer.from(expected))).toBe(true);
    expect(latestState(result).sha256).toBe(sha256Of(expected));
  });

  it("creates a new file (and its directories) from the sha256 of the empty string", async () => {
    const ws = await mathWorkspace();
    const diff = lines(
      "--- /dev/null",
      "+++ b/src/util/strings.ts",
      "@@ -0,0 +1,3 @@",
      "+export function shout(s: string): string {",
      "+  return s.toUpperCase();",
      "+}",
    );
    const result = await ws.call("safe_patch", {
      file_path: "src/util/strings.ts",
      unified_diff: diff,
      base_content_sha256: EMPTY_SHA256,
    });

    const created = lines("export function shout(s: string): string {", "  return s.toUpperCase();", "}");
    expect(result).toMatchObject({ ok: true, data: { applied: true } });
    expect(await ws.text("src/util/strings.ts")).toBe(created);
    expect(latestState(result)).toMatchObject({
      file_path: "src/util/strings.ts",
      sha256: sha256Of(created),
      content: created,
    });
  });

  it("applies several hunks in one call", async () => {
    const ws = await mathWorkspace();
    const diff = lines(
      "@@ -1,3 +1,3 @@",
      "-export function add(a: number, b: number): number {",
      "+export function plus(a: number, b: number): number {",
      "   return a + b;",
      " }",
      "@@ -9,3 +9,3 @@",
      " export function mul(a: number, b: number): number {",
      "-  return a + b;",
      "+  return a * b;",
      " }",
    );
    const result = await ws.call("safe_patch", {
      file_path: FILE,
      unified_diff: diff,
      base_content_sha256: sha256Of(MATH),
    });
    expect(result.ok).toBe(true);
    expect(await ws.text(FILE)).toBe(FIXED.replace("function add(", "function plus("));
  });
});

describe("safe_patch: a dry run", () => {
  it("reports the corrected diff and leaves the file as it is", async () => {
    const ws = await mathWorkspace();
    const result = await ws.call("safe_patch", {
      file_path: FILE,
      unified_diff: `@@ -1 @@\n${FIX_MUL_BODY}`,
      base_content_sha256: sha256Of(MATH),
      dry_run: true,
    });

    expect(result).toMatchObject({
      ok: true,
      data: { applied: false, message: expect.stringMatching(/^Dry run: /) as string },
    });
    expect(result.data?.["diff"]).toContain("+  return a * b;");
    expect(latestState(result).sha256).toBe(sha256Of(MATH));
    expect(await ws.text(FILE)).toBe(MATH);
    expect(ws.approvals).toHaveLength(0);
  });
});

describe("safe_patch: twenty writers on the same state", () => {
  it("lets exactly one land; the others get state_mismatch carrying the winner's state", async () => {
    const ws = await mathWorkspace();
    const writers = Array.from({ length: 20 }, (_, i) =>
      ws.call("safe_patch", {
        file_path: FILE,
        unified_diff: lines(
          "@@ @@",
          " export function mul(a: number, b: number): number {",
          "-  return a + b;",
          `+  return a * b; // writer ${i}`,
          " }",
        ),
        base_content_sha256: sha256Of(MATH),
      }),
    );
    const results = await Promise.all(writers);

    const winners = results.filter((r) => r.ok);
    const losers = results.filter((r) => !r.ok);
    expect(winners).toHaveLength(1);
    const final = await ws.text(FILE);
    expect(latestState(winners[0]!)).toMatchObject({ sha256: sha256Of(final), content: final });
    expect(final.match(/\/\/ writer \d+/g)).toHaveLength(1);
    expect(losers).toHaveLength(19);
    for (const loser of losers) {
      expect(loser.ok ? "applied" : loser.error.code).toBe("state_mismatch");
      expect(latestState(loser)).toMatchObject({ sha256: sha256Of(final), content: final });
    }
  });
});
