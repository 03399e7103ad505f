// What a shell user waits for: `lockstep apply-patch` end to end on a
// 2,000-line file, beside a bare `node -e 0` on the same machine.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Rng } from "./prng.js";
import { fixed, median, section, table } from "./report.js";
import { codeLines, spreadEdits } from "./synthetic.js";
import { trueDiff } from "./variants.js";

const RUNS = 10;

function wallMs(command: string, args: string[], cwd: string): { ms: number; status: number | null } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(command, args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, status: r.status };
}

export function runCliStart(root: string): string {
  const dir = mkdtempSync(join(tmpdir(), "lockstep-bench-cli-"));
  try {
    const pre = codeLines(2000);
    const post = spreadEdits(pre, 3, 12, new Rng(7), (l, k) => l.replace("options.offset", `options.offset * ${k + 2}`), (l) => l.includes("options.offset"));
    const before = pre.join("\n") + "\n";
    const after = post.join("\n") + "\n";
    const file = join(dir, "work", "module.js");
    const diffPath = join(dir, "change.diff");
    rmSync(join(dir, "work"), { recursive: true, force: true });
    spawnSync("mkdir", ["-p", join(dir, "work")]);
    writeFileSync(diffPath, trueDiff("module.js", before, after, 3));
    const bin = join(root, "bin", "lockstep.js");
    const cli: number[] = [];
    let failures = 0;
    for (let i = 0; i <= RUNS; i++) {
      writeFileSync(file, before);
      const r = wallMs(process.execPath, [bin, "apply-patch", "module.js", "--diff", diffPath, "--root", join(dir, "work")], join(dir, "work"));
      if (r.status !== 0 || readFileSync(file, "utf8") !== after) failures++;
      if (i > 0) cli.push(r.ms); // the first run warms the disk cache
    }
    const bare: number[] = [];
    for (let i = 0; i <= RUNS; i++) {
      const r = wallMs(process.execPath, ["-e", "0"], dir);
      if (i > 0) bare.push(r.ms);
    }
    const cliMs = median(cli);
    const bareMs = median(bare);
    return [
      section(`5. CLI start (median wall time of ${RUNS} runs)`),
      table(
        ["command", "ms"],
        [
          ["lockstep apply-patch on a 2,000-line file (3 hunks)", fixed(cliMs)],
          ["node -e 0", fixed(bareMs)],
          ["overhead over bare node", fixed(cliMs - bareMs)],
        ],
      ),
      failures > 0 ? `apply-patch did NOT apply correctly in ${failures}/${RUNS + 1} runs` : `apply-patch applied correctly in all ${RUNS + 1} runs`,
    ].join("\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
