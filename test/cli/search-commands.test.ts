// `lockstep search` and `lockstep find` as a user runs them: a real process on a
// temporary directory, one envelope on stdout, exit 0 / 1 / 2.
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { lines, tempDir, writeTree } from "../support/workspace-fixture.js";

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/lockstep.js");

async function lockstep(
  args: string[],
  cwd: string,
): Promise<{ status: number; envelope: Record<string, unknown>; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], { cwd });
    return { status: 0, envelope: JSON.parse(stdout) as Record<string, unknown>, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { status: e.code, envelope: JSON.parse(e.stdout) as Record<string, unknown>, stderr: e.stderr };
  }
}

async function project(): Promise<string> {
  const dir = tempDir();
  await writeTree(dir, {
    ".gitignore": lines("out/"),
    "src/app.ts": lines("export function parseConfig() {}"),
    "out/app.js": lines("function parseConfig() {}"),
  });
  return dir;
}

describe("lockstep search and find", () => {
  it("search prints the matches as search_files does, honouring .gitignore", async () => {
    const run = await lockstep(["search", "function\\s+parse", "--include", "*.ts"], await project());
    expect(run.status).toBe(0);
    expect(run.envelope).toEqual({
      ok: true,
      data: {
        matches: [{ file_path: "src/app.ts", line: 1, text: "export function parseConfig() {}" }],
        files_searched: 1,
        truncated: false,
      },
    });
  });

  it("find prints the names a glob matches", async () => {
    const run = await lockstep(["find", "**/*.{ts,js}"], await project());
    expect(run).toMatchObject({
      status: 0,
      envelope: { ok: true, data: { files: ["src/app.ts"], truncated: false } },
    });
  });

  it("refuses a bad pattern with exit 1, and a missing one or a bad --max-results with exit 2", async () => {
    const dir = await project();
    expect(await lockstep(["search", "(unclosed"], dir)).toMatchObject({
      status: 1,
      envelope: { ok: false, error: { code: "invalid_argument" } },
    });
    const missing = await lockstep(["search"], dir);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("lockstep search PATTERN");
    expect((await lockstep(["search", "x", "--max-results", "many"], dir)).status).toBe(2);
    expect(await lockstep(["find", "../**"], dir)).toMatchObject({
      status: 1,
      envelope: { ok: false, error: { code: "permission_denied" } },
    });
  });
});
