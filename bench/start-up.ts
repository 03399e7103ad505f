// What an editor waits for when it starts the server: spawn → initialize result,
// with the code cache the build writes (bin/load-bundle.js), without it, and a bare
// `node -e 0` beside them. Each also with NODE_EXTRA_CA_CERTS removed, when it is
// set: Node 20 reads and parses that file at start, before any of our code runs.
// The variants take turns, so a busy machine slows them alike.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { createWorkspace, removeWorkspace, startServer } from "../test/support/lsp-client.js";
import { timingRow, type TimingRow } from "./report.js";

const RUNS = 21;

interface Variant {
  what: string;
  note: string;
  /** Milliseconds from spawn to the moment measured. */
  measure: () => Promise<number>;
  samples: number[];
}

/** The project root: where bin/lockstep.js is, from bench/ or dist/bench/. */
export function projectRoot(): string {
  for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "bin", "lockstep.js")) && existsSync(path.join(dir, "package.json")))
      return dir;
    if (dir === path.dirname(dir)) throw new Error(`no bin/lockstep.js above ${import.meta.dirname}`);
  }
}

function bareNode(env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore", env });
    child.once("error", reject);
    child.once("exit", () => resolve(performance.now() - began));
  });
}

/** Median and p90 of `runs` starts of each variant. Needs the build (its code cache). */
export async function startUpRows(runs = RUNS): Promise<TimingRow[]> {
  const cache = path.join(projectRoot(), "dist", "bundle", "lockstep.cjs.cache");
  if (!existsSync(cache))
    throw new Error(
      `${cache} is missing: run \`npm run build\` (it writes the code cache) before the start-up bench.`,
    );
  const root = await createWorkspace({ "README.md": "# bench\n" }, "lockstep-bench-start-up-");
  // startServer adds `env` to this process's environment, so an empty value is how to
  // remove one; Node treats an empty NODE_EXTRA_CA_CERTS as unset.
  const environments = [{ label: "", env: {} }];
  if (process.env["NODE_EXTRA_CA_CERTS"])
    environments.push({ label: ", NODE_EXTRA_CA_CERTS removed", env: { NODE_EXTRA_CA_CERTS: "" } });
  const variants: Variant[] = environments.flatMap(({ label, env }) => {
    const server = (mode: string) => async (): Promise<number> => {
      const began = performance.now();
      const client = await startServer({ root, style: "helix", env: { ...env, LOCKSTEP_CODE_CACHE: mode } });
      const ms = performance.now() - began;
      await client.shutdown();
      return ms;
    };
    return [
      {
        what: `spawn → initialize result, code cache${label}`,
        note: "node bin/lockstep.js --stdio",
        measure: server(""),
        samples: [],
      },
      {
        what: `spawn → initialize result, no code cache${label}`,
        note: "LOCKSTEP_CODE_CACHE=off",
        measure: server("off"),
        samples: [],
      },
      {
        what: `bare Node start (node -e 0)${label}`,
        note: "spawn → exit",
        measure: () => bareNode({ ...process.env, ...env }),
        samples: [],
      },
    ];
  });
  try {
    for (let i = 0; i <= runs; i++) {
      for (const variant of variants) {
        const ms = await variant.measure();
        if (i > 0) variant.samples.push(ms); // the first round warms the disk cache
      }
    }
  } finally {
    await removeWorkspace(root);
  }
  return variants.map((v) => timingRow(v.what, v.samples, v.note));
}
