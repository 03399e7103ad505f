// The tools measured on the same variants: lockstep's engine, the `diff`
// package's applyPatch at fuzz 0 and 2, and GNU patch as a child process.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyPatch } from "diff";
import { applyModelPatch } from "../server/src/edit/patch/patch.js";

export type Attempt =
  | { kind: "applied"; content: string }
  | { kind: "refused"; why: string }
  | { kind: "threw"; why: string };

export const TOOLS = ["lockstep", "applyPatch fuzz 0", "applyPatch fuzz 2", "GNU patch"] as const;
export type Tool = (typeof TOOLS)[number];

export function runLockstep(content: string, diff: string, filePath: string): Attempt {
  try {
    const r = applyModelPatch(content, diff, { filePath });
    return r.ok ? { kind: "applied", content: r.value.content } : { kind: "refused", why: r.error.code };
  } catch (e) {
    // The engine returns failures as values; a throw is a bug worth reporting.
    return { kind: "threw", why: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

export function runApplyPatch(content: string, diff: string, fuzzFactor: number): Attempt {
  try {
    const r = applyPatch(content, diff, { fuzzFactor });
    return r === false ? { kind: "refused", why: "false" } : { kind: "applied", content: r };
  } catch (e) {
    // applyPatch throws on a diff it cannot parse: that is its refusal.
    return { kind: "refused", why: e instanceof Error ? e.message.slice(0, 60) : "threw" };
  }
}

/** GNU patch on a temp copy: `patch --batch --forward --silent --no-backup-if-mismatch -r - -o OUT FILE < diff`. */
export class GnuPatch {
  private readonly dir = mkdtempSync(join(tmpdir(), "lockstep-bench-gnu-"));
  private next = 0;

  /** Runs one variant in its own pair of files, so several may run at once. */
  async run(content: string, diff: string, extension: string): Promise<Attempt> {
    const id = this.next++;
    const file = join(this.dir, `f${id}${extension}`);
    const out = join(this.dir, `o${id}${extension}`);
    writeFileSync(file, content);
    const args = ["--batch", "--forward", "--silent", "--no-backup-if-mismatch", "-r", "-", "-o", out, file];
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn("patch", args, {
        stdio: ["pipe", "ignore", "ignore"],
        env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", LC_ALL: "C" },
      });
      child.on("error", () => resolve(null));
      child.on("close", (c) => resolve(c));
      child.stdin.on("error", () => undefined);
      child.stdin.end(diff);
    });
    let written: string | undefined;
    try {
      written = readFileSync(out, "utf8");
    } catch {
      written = undefined;
    }
    rmSync(file, { force: true });
    rmSync(out, { force: true });
    if (code !== 0 || written === undefined) return { kind: "refused", why: `exit ${code}` };
    return { kind: "applied", content: written };
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
