// `lockstep ask` in the terminal and a change across files: one question names
// every file; y writes them all, n writes none. The CLI as a process, a replayed
// model sending one apply_patch, the answers a line each on standard input.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { A_PY as A, B_PY as B, threeFileTurns } from "../support/three-file-change.js";

const run = promisify(execFile);
const BIN = path.resolve("bin/lockstep.js");
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const SCRIPT = { turns: threeFileTurns("Done.") };

async function ask(input: string): Promise<{ root: string; stdout: string; code: number }> {
  const root = await mkdtemp(path.join(os.tmpdir(), "lockstep-ask-patch-"));
  const state = await mkdtemp(path.join(os.tmpdir(), "lockstep-ask-patch-state-"));
  dirs.push(root, state);
  await writeFile(path.join(root, "a.py"), A);
  await writeFile(path.join(root, "b.py"), B);
  const script = path.join(state, "script.json");
  await writeFile(script, JSON.stringify(SCRIPT));
  const env = { ...process.env, GEMINI_API_KEY: "", XDG_CONFIG_HOME: state, XDG_STATE_HOME: state };
  try {
    const pending = run(
      process.execPath,
      [BIN, "ask", "--root", root, "--replay", script, "change three files"],
      { env },
    );
    pending.child.stdin?.end(input);
    return { root, stdout: (await pending).stdout, code: 0 };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { root, stdout: e.stdout, code: e.code };
  }
}

const QUESTION =
  "? lockstep wants to change 3 files with apply_patch: a.py (+1 −1), b.py (+1 −1), new c.py (+1).";
const questions = (stdout: string): number => (stdout.match(/\[y\]es \/ \[n\]o \/ \[r\]eason/g) ?? []).length;

describe("lockstep ask and a change across files", () => {
  it("asks one question naming every file; y writes all three", async () => {
    const { root, stdout, code } = await ask("y\ny\n");
    expect(stdout).toContain(QUESTION);
    expect(questions(stdout)).toBe(1);
    // Each file's diff before the one question.
    for (const file of ["a.py", "b.py", "c.py (new)"]) {
      expect(stdout.indexOf(`✎ ${file}`)).toBeGreaterThan(-1);
      expect(stdout.indexOf(`✎ ${file}`)).toBeLessThan(stdout.indexOf(QUESTION));
    }
    expect(stdout.indexOf("+B = 2")).toBeLessThan(stdout.indexOf(QUESTION));
    expect(code).toBe(0);
    expect(await readFile(path.join(root, "a.py"), "utf8")).toBe(A.replace("return 1", "return 2"));
    expect(await readFile(path.join(root, "b.py"), "utf8")).toBe("B = 2\n");
    expect(await readFile(path.join(root, "c.py"), "utf8")).toBe("c = 3\n");
  });

  it("n writes none of them", async () => {
    const { root, stdout, code } = await ask("n\n");
    expect(stdout).toContain(QUESTION);
    expect(questions(stdout)).toBe(1);
    expect(code).toBe(1);
    expect(await readFile(path.join(root, "a.py"), "utf8")).toBe(A);
    expect(await readFile(path.join(root, "b.py"), "utf8")).toBe(B);
    expect(existsSync(path.join(root, "c.py"))).toBe(false);
  });
});
