// safe_patch's refusals through the workspace: each leaves the file byte for byte and returns the
// current state (a stale base, someone else's newer version, a hunk that does not fit with the
// nearest candidates, the user's rejection, a binary file, a missing file with what is nearby).
import { promises as fs } from "node:fs";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { latestState, lines, makeWorkspace, sha256Of } from "../support/workspace-fixture.js";
import { FILE, FIX_MUL_BODY, FIXED, MATH, mathWorkspace } from "./math-fixture.js";

describe("safe_patch: refusals leave the file byte for byte and return the current state", () => {
  it("refuses a base that is not the file's current hash as state_mismatch", async () => {
    const ws = await mathWorkspace();
    const stale = sha256Of(MATH.replace("add", "plus"));
    const result = await ws.call("safe_patch", {
      file_path: FILE,
      unified_diff: `@@ @@\n${FIX_MUL_BODY}`,
      base_content_sha256: stale,
    });

    expect(result).toMatchObject({
      ok: false,
      error: { code: "state_mismatch", message: expect.stringMatching(/^State Mismatch:/) as string },
    });
    expect(result.ok || result.error.message).toContain(sha256Of(MATH));
    expect(latestState(result)).toMatchObject({
      file_path: FILE,
      version: null,
      sha256: sha256Of(MATH),
      content: MATH,
    });
    expect((await ws.bytes(FILE)).equals(Buffer.from(MATH))).toBe(true);
  });

  it("refuses a patch built before someone else changed the file, and hands over their version", async () => {
    const ws = await mathWorkspace();
    const read = await ws.call("read_file", { file_path: FILE });
    const theirs = MATH.replace("return a - b;", "return b - a;");
    await fs.writeFile(ws.abs(FILE), theirs);

    const result = await ws.call("safe_patch", {
      file_path: FILE,
      unified_diff: `@@ @@\n${FIX_MUL_BODY}`,
      base_content_sha256: read.data?.["sha256"],
    });

    expect(result.ok ? "applied" : result.error.code).toBe("state_mismatch");
    expect(latestState(result)).toMatchObject({ sha256: sha256Of(theirs), content: theirs });
    expect(await ws.text(FILE)).toBe(theirs);
  });

  it.each<[name: string, diff: string, code: string, message: RegExp]>([
    [
      "context that is not in the file",
      lines(
        "@@ -9,3 +9,3 @@",
        " export function div(a: number, b: number): number {",
        "-  return a + b;",
        "+  return a / b;",
        " }",
      ),
      "invalid_diff",
      /^Invalid Diff: hunk 1 of 1 .*does not match the file/,
    ],
    [
      "a removed line that is not in the file",
      lines(
        "@@ @@",
        " export function mul(a: number, b: number): number {",
        "-  return a ** b;",
        "+  return a * b;",
        " }",
      ),
      "invalid_diff",
      /^Invalid Diff: hunk 1 of 1/,
    ],
    [
      "a second hunk that does not fit (the first one must not land alone)",
      lines(
        "@@ -1,2 +1,2 @@",
        "-export function add(a: number, b: number): number {",
        "+export function plus(a: number, b: number): number {",
        "   return a + b;",
        "@@ -20,2 +20,2 @@",
        " export function pow(a: number, b: number): number {",
        "-  return a;",
        "+  return a ** b;",
      ),
      "invalid_diff",
      /^Invalid Diff: hunk 2 of 2/,
    ],
    [
      "a hunk that fits two places equally well",
      lines("@@ @@", "-  return a + b;", "+  return a * b;", " }"),
      "ambiguous",
      /^Ambiguous: hunk 1 of 1 .*lines 2, 10/,
    ],
    [
      "a diff without any change",
      lines("@@ @@", " export function mul(a: number, b: number): number {", " }"),
      "no_change",
      /^No Change:/,
    ],
    ["text that is no diff at all", "please make mul multiply\n", "invalid_diff", /^Invalid Diff:/],
  ])("refuses %s", async (_name, diff, code, message) => {
    const ws = await mathWorkspace();
    const result = await ws.call("safe_patch", {
      file_path: FILE,
      unified_diff: diff,
      base_content_sha256: sha256Of(MATH),
    });

    expect(result).toMatchObject({
      ok: false,
      error: { code, message: expect.stringMatching(message) as string },
    });
    expect(latestState(result)).toMatchObject({ sha256: sha256Of(MATH), content: MATH });
    expect((await ws.bytes(FILE)).equals(Buffer.from(MATH))).toBe(true);
    expect(ws.approvals).toHaveLength(0);
  });

  it("names the nearest candidate lines when a hunk does not fit", async () => {
    const ws = await mathWorkspace();
    const diff = lines(
      "@@ @@",
      " export function mul(a: number, b: number): number {",
      "-  return a + c;",
      "+  return a * b;",
      " }",
    );
    const result = await ws.call("safe_patch", {
      file_path: FILE,
      unified_diff: diff,
      base_content_sha256: sha256Of(MATH),
    });
    expect(result.ok || result.error.message).toContain(
      "Nearest candidate: lines 9-11 of the file, where 2 of 3 lines match.",
    );
    expect(result.ok || result.error.message).toContain(
      'The hunk expects "  return a + c;" at line 10, but the file has "  return a + b;".',
    );
  });

  it("asks the user, and a rejection is `rejected` with nothing written", async () => {
    const ws = await mathWorkspace({ approve: "reject" });
    const result = await ws.call("safe_patch", {
      file_path: FILE,
      unified_diff: `@@ @@\n${FIX_MUL_BODY}`,
      base_content_sha256: sha256Of(MATH),
    });

    expect(result).toMatchObject({ ok: false, error: { code: "rejected" } });
    expect(latestState(result).sha256).toBe(sha256Of(MATH));
    expect(await ws.text(FILE)).toBe(MATH);
    expect(ws.approvals).toEqual([
      expect.objectContaining({
        tool: "safe_patch",
        file_path: FILE,
        after: FIXED,
        added: 1,
        removed: 1,
        before: expect.objectContaining({ sha256: sha256Of(MATH) }) as unknown,
      }),
    ]);
    expect(ws.approvals[0]?.diff).toContain("-  return a + b;\n+  return a * b;");
  });

  it("refuses a binary file as binary_file", async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]);
    const ws = await makeWorkspace({ "logo.png": png });
    const result = await ws.call("safe_patch", {
      file_path: "logo.png",
      unified_diff: "@@ @@\n-PNG\n+JPG\n",
      base_content_sha256: sha256Of(png),
    });

    expect(result).toMatchObject({ ok: false, error: { code: "binary_file" } });
    expect((await ws.bytes("logo.png")).equals(png)).toBe(true);
  });

  it.each<[name: string, target: (ws: { parent: string }) => string]>([
    ["a relative path with ..", () => "../secret.txt"],
    ["an absolute path", (ws) => `${ws.parent}/secret.txt`],
    ["a file:// URI", (ws) => pathToFileURL(`${ws.parent}/secret.txt`).href],
  ])("refuses a path outside the root given as %s", async (_name, target) => {
    const ws = await mathWorkspace();
    const secret = await ws.outside("secret.txt", "token=1\n");
    const result = await ws.call("safe_patch", {
      file_path: target(ws),
      unified_diff: "@@ @@\n-token=1\n+token=2\n",
      base_content_sha256: sha256Of("token=1\n"),
    });

    expect(result).toMatchObject({ ok: false, error: { code: "permission_denied" } });
    expect(await fs.readFile(secret, "utf8")).toBe("token=1\n");
  });

  it("answers a missing file patched with a non-empty base with what exists nearby", async () => {
    const ws = await mathWorkspace();
    const result = await ws.call("safe_patch", {
      file_path: "src/maths.ts",
      unified_diff: `@@ @@\n${FIX_MUL_BODY}`,
      base_content_sha256: sha256Of(MATH),
    });

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toMatch(/does not exist/);
    expect(result.error.suggestions.join("\n")).toContain("Did you mean src/math.ts?");
    expect(await ws.exists("src/maths.ts")).toBe(false);
  });
});
