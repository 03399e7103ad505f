// What a shell user waits for: `lockstep apply-patch` end to end on a
// 2,000-line file, with the bundle's code cache and without it, beside a bare
// `node -e 0` on the same machine.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Rng } from "./prng.js";
import { fixed, median, section, table } from "./report.js";
import { codeLines, spreadEdits } from "./synthetic.js";
import { trueDiff } from "./variants.js";

const RUNS = 20;

function wallMs(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): { ms: number; status: number | null } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(command, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, status: r.status };
}

export function runCliStart(root: string): string {
  const dir = mkdtempSync(join(tmpdir(), "lockstep-bench-cli-"));
  try {
    const pre = codeLines(2000);
    const post = spreadEdits(
      pre,
      3,
      12,
      new Rng(7),
      (l, k) => l.replace("options.offset", `options.offset * ${k + 2}`),
      (l) => l.includes("options.offset"),
    );
    const before = pre.join("\n") + "\n";
    const after = post.join("\n") + "\n";
    const file = join(dir, "work", "module.js");
    const diffPath = join(dir, "change.diff");
    rmSync(join(dir, "work"), { recursive: true, force: true });
    spawnSync("mkdir", ["-p", join(dir, "work")]);
    writeFileSync(diffPath, trueDiff("module.js", before, after, 3));
    const bin = join(root, "bin", "lockstep.js");
    let failures = 0;
    const applyPatch = (codeCache: string): number => {
      writeFileSync(file, before);
      const r = wallMs(
        process.execPath,
        [bin, "apply-patch", "module.js", "--diff", diffPath, "--root", join(dir, "work")],
        join(dir, "work"),
        { ...process.env, LOCKSTEP_CODE_CACHE: codeCache },
      );
      if (r.status !== 0 || readFileSync(file, "utf8") !== after) failures++;
      return r.ms;
    };
    const cached: number[] = [];
    const uncached: number[] = [];
    const bare: number[] = [];
    // The three take turns, so a busy machine slows them alike.
    for (let i = 0; i <= RUNS; i++) {
      const withCache = applyPatch("");
      const withoutCache = applyPatch("off");
      const node = wallMs(process.execPath, ["-e", "0"], dir).ms;
      if (i === 0) continue; // the first round warms the disk cache
      cached.push(withCache);
      uncached.push(withoutCache);
      bare.push(node);
    }
    const cachedMs = median(cached);
    const bareMs = median(bare);
    return [
      section(`5. CLI start (median wall time of ${RUNS} runs)`),
      table(
        ["command", "ms"],
        [
          ["lockstep apply-patch on a 2,000-line file (3 hunks)", fixed(cachedMs)],
          ["the same without the code cache (LOCKSTEP_CODE_CACHE=off)", fixed(median(uncached))],
          ["node -e 0", fixed(bareMs)],
          ["overhead over bare node (with the code cache)", fixed(cachedMs - bareMs)],
        ],
      ),
      failures > 0
        ? `apply-patch did NOT apply correctly in ${failures}/${2 * (RUNS + 1)} runs`
        : `apply-patch applied correctly in all ${2 * (RUNS + 1)} runs`,
    ].join("\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
