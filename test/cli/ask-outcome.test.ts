// What `lockstep ask` says when its run ends: a run whose every change was
// rejected or failed is not a success (exit 1, said on stderr); a run whose
// changes landed is (exit 0). The recorded demo session plays the model.
import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

const run = promisify(execFile);
const BIN = path.resolve("bin/lockstep.js");
const SESSION = path.resolve("demo/session.json");
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function demoCopy(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "lockstep-ask-"));
  dirs.push(dir);
  await cp(path.resolve("demo/project"), dir, { recursive: true });
  return dir;
}

async function ask(
  root: string,
  extra: string[],
  input = "",
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const pending = run(
      process.execPath,
      [BIN, "ask", "--root", root, "--replay", SESSION, ...extra, "fix median"],
      { env: { ...process.env, GEMINI_API_KEY: "" } },
    );
    // No terminal: the answers are read a line each from standard input, and its end answers no.
    pending.child.stdin?.end(input);
    const { stdout, stderr } = await pending;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("lockstep ask's exit status", () => {
  it("exits 1 and says so when every change of the run was rejected (no terminal, no --yes)", async () => {
    const root = await demoCopy();
    const before = await readFile(path.join(root, "src/stats.js"), "utf8");
    const result = await ask(root, []);
    expect(result.stdout).toContain("No answer (end of input): rejected.");
    expect(result.stderr).toContain(
      "no change landed: every change the agent proposed was rejected or failed",
    );
    expect(result.code).toBe(1);
    expect(await readFile(path.join(root, "src/stats.js"), "utf8")).toBe(before);
  });

  it("takes the answers a line each from a pipe: y applies, and y keeps the changes", async () => {
    const root = await demoCopy();
    const before = await readFile(path.join(root, "src/stats.js"), "utf8");
    const result = await ask(root, [], "y\ny\ny\ny\n");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Kept: src/stats.js on disk as changed.");
    expect(await readFile(path.join(root, "src/stats.js"), "utf8")).not.toBe(before);
  });

  it("keeps nothing when the input ends at 'Keep the changes?', and says what is on disk", async () => {
    const root = await demoCopy();
    const before = await readFile(path.join(root, "src/stats.js"), "utf8");
    // As many yeses as the recorded run asks approvals (counted on a --yes run), then the end of the input.
    const approvals = ((await ask(await demoCopy(), ["--yes"])).stdout.match(/→ Apply \(--yes\)/g) ?? [])
      .length;
    expect(approvals).toBeGreaterThan(0);
    const result = await ask(root, [], "y\n".repeat(approvals));
    expect(result.stdout).toContain("Keep the changes to src/stats.js?");
    expect(result.stdout).toContain("No answer (end of input): undoing the run");
    expect(result.stdout).toContain("On disk: src/stats.js as before the run.");
    expect(await readFile(path.join(root, "src/stats.js"), "utf8")).toBe(before);
    expect(result.code).toBe(1);
  });

  it("asks before each change where approval review (for editors) is set, and says so", async () => {
    const root = await demoCopy();
    const result = await ask(root, ["--approval", "review"]);
    expect(result.stderr).toContain(
      "approval review (--approval) is for editors; the terminal asks before each change instead.",
    );
    expect(result.stdout).toContain("No answer (end of input): rejected.");
    expect(result.code).toBe(1);
  });

  it("exits 0 when the changes landed (--yes)", async () => {
    const root = await demoCopy();
    const result = await ask(root, ["--yes"]);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain("no change landed");
  });
});
