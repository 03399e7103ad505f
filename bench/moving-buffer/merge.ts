// The reference: `git merge-file` on (user, base, agent). A clean merge is the
// file the agent's change should leave; a conflict means the right answer is to refuse,
// unless the two changes only touch (mergeTouching below), where both can stand.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { diffArrays } from "diff";
import { splitLines } from "./classify.js";

export class Merger {
  private readonly dir = mkdtempSync(join(tmpdir(), "lockstep-bench-merge-"));
  /** Every tool is judged against the same merges: each is computed once. */
  private readonly cache = new Map<string, string | null>();

  /** The clean merge, or null on a conflict. Throws if git itself fails (the bench cannot judge then). */
  merge(base: string, agent: string, user: string): string | null {
    const key = createHash("sha256")
      .update(base)
      .update("\0")
      .update(agent)
      .update("\0")
      .update(user)
      .digest("hex");
    const known = this.cache.get(key);
    if (known !== undefined) return known;
    const merged = this.run(base, agent, user) ?? mergeTouching(base, agent, user);
    this.cache.set(key, merged);
    return merged;
  }

  private run(base: string, agent: string, user: string): string | null {
    const [b, a, u] = ["base", "agent", "user"].map((n) => join(this.dir, n));
    writeFileSync(b!, base);
    writeFileSync(a!, agent);
    writeFileSync(u!, user);
    const r = spawnSync("git", ["merge-file", "-p", "-q", u!, b!, a!], {
      encoding: "utf8",
      maxBuffer: 64 << 20,
    });
    if (r.status === 0) return r.stdout;
    if (r.status !== null && r.status > 0 && r.status < 128) return null;
    throw new Error(
      `git merge-file failed (status ${r.status}): ${r.stderr || r.error?.message || "no message"}`,
    );
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

interface Change {
  /** Base lines [from, to) replaced by `lines`; from === to is an insertion. */
  from: number;
  to: number;
  lines: string[];
}

function changes(base: readonly string[], other: readonly string[]): Change[] {
  const out: Change[] = [];
  let at = 0;
  for (const part of diffArrays(base as string[], other as string[])) {
    const last = out[out.length - 1];
    const open = last && last.to === at ? last : undefined;
    if (part.added) {
      if (open) open.lines.push(...part.value);
      else out.push({ from: at, to: at, lines: [...part.value] });
    } else if (part.removed) {
      if (open) open.to += part.count;
      else out.push({ from: at, to: at + part.count, lines: [] });
      at += part.count;
    } else at += part.count;
  }
  return out;
}

function clash(a: Change, b: Change): boolean {
  if (a.from === a.to || b.from === b.to)
    return a.from === b.from || (a.from > b.from && a.from < b.to) || (b.from > a.from && b.from < a.to);
  return a.from < b.to && b.from < a.to;
}

/**
 * A line merge that, unlike git, lets changes on touching lines both stand (git calls
 * them a conflict): a change to line 3 beside a change to line 2 keeps both texts.
 * Null when the changed line ranges overlap.
 */
export function mergeTouching(base: string, agent: string, user: string): string | null {
  const b = splitLines(base);
  const all = [...changes(b, splitLines(agent)), ...changes(b, splitLines(user))].sort(
    (x, y) => x.from - y.from || x.to - y.to,
  );
  for (let i = 1; i < all.length; i++) if (clash(all[i - 1]!, all[i]!)) return null;
  const out: string[] = [];
  let at = 0;
  for (const c of all) {
    out.push(...b.slice(at, c.from), ...c.lines);
    at = c.to;
  }
  return [...out, ...b.slice(at)].join("");
}
