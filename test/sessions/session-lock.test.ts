// Two or three takers of one stale session lock, run interleaved step by step in a seeded order
// (every order a scheduler could give them between their file operations): exactly one of them
// holds the lock at the end, the lock names it, and no reap file is left. The check-then-remove
// takeover this replaced let a taker remove another's fresh lock: 116 of these 600 orders ended
// with two writers. And two real processes, released at once, many times: one wins, one is told busy.
import { createHash } from "node:crypto";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lockSteps, SessionBusy, type Taker } from "../../server/src/sessions/session-lock.js";

const DEAD = 999_999;
const dir = mkdtempSync(path.join(tmpdir(), "lockstep-session-lock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** mulberry32: a small seeded generator, so a failing order can be replayed from its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hash = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 24);

type Steps = (file: string, me: Taker) => Generator<void, void>;

/** Runs the takers interleaved in the seed's order; returns the pids that came out holding the lock. */
function race(steps: Steps, file: string, takers: number, seed: number): number[] {
  const random = rng(seed);
  const live = new Set(Array.from({ length: takers }, (_, i) => 1001 + i));
  const alive = (pid: number): boolean => live.has(pid);
  const running = [...live].map((pid) => ({ pid, gen: steps(file, { pid, alive }) }));
  const winners: number[] = [];
  while (running.length > 0) {
    const i = Math.floor(random() * running.length);
    const taker = running[i]!;
    try {
      if (!taker.gen.next().done) continue;
      winners.push(taker.pid);
    } catch (error) {
      if (!(error instanceof SessionBusy)) throw error;
    }
    running.splice(i, 1);
  }
  return winners;
}

function checkOneWriter(steps: Steps, seeds: number): { twoWriters: number[] } {
  const twoWriters: number[] = [];
  for (let seed = 1; seed <= seeds; seed++) {
    const file = path.join(dir, `s${seed}.jsonl`);
    const lock = file.replace(/\.jsonl$/, ".lock");
    const stale = `${DEAD} 0123456789abcdef\n`;
    writeFileSync(lock, stale);
    // Every third seed, a taker before them died holding the right to remove it.
    if (seed % 3 === 0) writeFileSync(`${lock}.reap-${hash(stale)}`, `${DEAD + 1} fedcba9876543210\n`);
    const winners = race(steps, file, 2 + (seed % 2), seed);
    if (winners.length !== 1) twoWriters.push(seed);
    else expect(Number(readFileSync(lock, "utf8").split(" ")[0])).toBe(winners[0]);
  }
  return { twoWriters };
}

describe("a stale session lock taken over by several processes at once", () => {
  it("leaves exactly one writer, in every one of 600 seeded orders", () => {
    const { twoWriters } = checkOneWriter(lockSteps, 600);
    expect(twoWriters).toEqual([]);
    // Nothing left beside the locks: no temporary file, no reap file of a finished takeover.
    expect(readdirSync(dir).filter((n) => !n.endsWith(".lock"))).toEqual([]);
  });
});

describe("two processes taking one stale lock at the same moment", () => {
  it("leaves exactly one of them writing, in each of 8 trials", { timeout: 180_000 }, async () => {
    const taker = path.resolve(import.meta.dirname, "fixtures/lock-taker.ts");
    for (let trial = 0; trial < 8; trial++) {
      const file = path.join(dir, `p${trial}.jsonl`);
      writeFileSync(file.replace(/\.jsonl$/, ".lock"), `${DEAD} 0123456789abcdef\n`);
      const children = [0, 1].map(() => {
        const child = spawn(process.execPath, ["--import", "tsx", taker, file], {
          stdio: ["pipe", "pipe", "inherit"],
        });
        const lines: string[] = [];
        const waiters: (() => void)[] = [];
        child.stdout.on("data", (d: Buffer) => {
          lines.push(
            ...d
              .toString()
              .split("\n")
              .filter((l) => l !== ""),
          );
          for (const w of waiters.splice(0)) w();
        });
        const line = async (n: number): Promise<string> => {
          while (lines.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
          return lines[n - 1]!;
        };
        return { child, line };
      });
      for (const c of children) expect(await c.line(1)).toBe("ready");
      for (const c of children) c.child.stdin.write("go\n");
      const said = await Promise.all(children.map((c) => c.line(2)));
      expect([...said].sort()).toEqual(["busy", "won"]);
      const winner = children[said.indexOf("won")]!.child.pid;
      expect(readFileSync(file.replace(/\.jsonl$/, ".lock"), "utf8").split(" ")[0]).toBe(String(winner));
      await Promise.all(
        children.map((c) => new Promise((resolve) => (c.child.once("exit", resolve), c.child.stdin.end()))),
      );
    }
  });
});
