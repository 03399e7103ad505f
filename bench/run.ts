// `npm run bench`: robustness of lockstep's diff engine against its peers on
// perturbed real diffs, then speed, scale and CLI start. Seeded and reproducible:
// `node dist/bench/run.js --seed N` (or BENCH_SEED=N); `--files N` for another
// corpus size, `--only robustness,ctx0,adversarial,multifile,speed,scale,cli,fuzz` for some sections.
import { existsSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { runAdversarial } from "./adversarial.js";
import { runCliStart } from "./cli-start.js";
import { chooseCorpus } from "./corpus.js";
import { Rng } from "./prng.js";
import { runRobustness } from "./robustness.js";
import { runScale } from "./scale.js";
import { runZeroContext } from "./zero-context.js";
import { runSpeed } from "./speed.js";
import { makeSubject, variantsFor, type Skipped, type Subject, type Variant } from "./variants.js";

const DEFAULT_SEED = 20240611;
const FILES = 60;
/** Every sixth file is converted to CRLF before its edit is made. */
const CRLF_EVERY = 6;

function projectRoot(): string {
  // dist/bench/run.js -> the project root two levels up; bench/run.ts when run from source.
  for (let dir = resolve(import.meta.dirname); ; dir = resolve(dir, "..")) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "node_modules"))) return dir;
    if (dir === resolve(dir, ".."))
      throw new Error("no project root with node_modules above " + import.meta.dirname);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { seed: { type: "string" }, files: { type: "string" }, only: { type: "string" } },
  });
  const seed = Number(values.seed ?? process.env["BENCH_SEED"] ?? DEFAULT_SEED);
  const fileCount = Number(values.files ?? FILES);
  const only = new Set(
    (values.only ?? "robustness,ctx0,adversarial,multifile,speed,scale,cli,fuzz").split(","),
  );
  const root = projectRoot();
  const rng = new Rng(seed);
  const began = performance.now();
  const log = (s: string): void => {
    process.stderr.write(`[bench ${((performance.now() - began) / 1000).toFixed(1)}s] ${s}\n`);
  };

  const corpus = chooseCorpus(join(root, "node_modules"), fileCount, rng.fork("corpus"));
  const subjects: Subject[] = [];
  for (let i = 0; i < corpus.length; i++) {
    const file = corpus[i]!;
    const s = makeSubject(file, i % CRLF_EVERY === CRLF_EVERY - 1, rng.fork(`edit:${file.path}`));
    if (s) subjects.push(s);
  }
  const skipped: Skipped = new Map();
  const variants: Variant[] = subjects.flatMap((s, i) =>
    variantsFor(s, i, subjects, rng.fork(`variants:${s.file.path}`), skipped),
  );
  const determinable = variants.filter((v) => v.expected !== undefined).length;
  const lines = subjects.reduce((n, s) => n + s.lfPre.split("\n").length - 1, 0);
  const hunks = subjects.reduce((n, s) => n + (s.diffs.get(3)!.match(/^@@/gm)?.length ?? 0), 0);

  const load = (): string =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  console.log(
    `lockstep bench  seed=${seed}  node=${process.version}  cpus=${cpus().length}  load average at start: ${load()}`,
  );
  console.log(
    `corpus: ${subjects.length} files from ${new Set(subjects.map((s) => s.file.pkg)).size} packages in node_modules ` +
      `(${lines} lines; ${subjects.filter((s) => s.crlf).length} converted to CRLF), ` +
      `${hunks} hunks at context 3; true diffs at context 3 and 10`,
  );
  const redraws = subjects.reduce((n, s) => n + s.redraws, 0);
  console.log(
    "edits: 1-4 changes per file (modify / insert / delete lines); about 30% of added runs are a small nested block",
  );
  console.log(
    `edits re-drawn ${redraws} times in all, so that every hunk's old lines occur once in their file (modulo whitespace)`,
  );
  console.log(
    `variants: ${variants.length} (${determinable} determinable, ${variants.length - determinable} must refuse)`,
  );
  if (skipped.size > 0) console.log(`not formed: ${[...skipped].map(([k, n]) => `${k} (${n})`).join("; ")}`);
  if (subjects.length < corpus.length)
    console.log(
      `${corpus.length - subjects.length} chosen files had no edit with determinable hunks and were dropped`,
    );

  let failed = false;
  if (only.has("robustness")) {
    const r = await runRobustness(variants, rng.fork("gnu-subset"), log);
    console.log(r.text);
    failed ||= r.lockstepWrong > 0;
  }
  if (only.has("ctx0")) {
    log("ctx0");
    const z = await runZeroContext(subjects, rng.fork("ctx0"), log);
    console.log(z.text);
    failed ||= z.wrong > 0;
  }
  if (only.has("adversarial")) {
    log("adversarial");
    const a = runAdversarial(corpus, rng.fork("adversarial"));
    console.log(a.text);
    const groups = new Map<string, { n: number; files: string }>();
    for (const f of a.failures) {
      const key = `${f.engine} / ${f.family}${f.note ? ` (${f.note})` : ""} / ${f.kind}: ${f.why}`;
      groups.set(key, { n: (groups.get(key)?.n ?? 0) + 1, files: groups.get(key)?.files ?? f.files });
    }
    for (const [key, g] of groups) console.log(`  WRONG ${g.n} x ${key}, e.g. ${g.files}.*`);
    failed ||= a.wrong > 0;
  }
  if (only.has("multifile")) {
    log("changes across files");
    const { runMultiFile } = await import("./multi-file.js");
    const m = await runMultiFile(subjects, rng.fork("multi-file"), log);
    console.log(m.text);
    failed ||= m.lockstepWrong > 0;
  }
  if (only.has("speed")) {
    log("speed");
    const before = load();
    console.log(runSpeed(variants.filter((v) => v.family === "exact")));
    console.log(
      `(load average before timing: ${before}, after: ${load()}; other processes on this machine inflate the times)`,
    );
  }
  if (only.has("scale")) {
    log("scale");
    console.log(runScale(rng.fork("scale")));
  }
  if (only.has("cli")) {
    log("cli start");
    console.log(runCliStart(root));
  }
  if (only.has("fuzz")) {
    log("fuzz");
    const { runFuzz } = await import("./fuzz.js");
    console.log((await runFuzz(corpus, rng.fork("fuzz"))).text);
  }
  console.log(`\nload average at end: ${load()}`);
  console.log(`bench wall time: ${((performance.now() - began) / 1000).toFixed(1)} s`);
  if (failed) {
    console.log("exit status 1: lockstep applied at least one variant wrongly (listed in section 1)");
    process.exitCode = 1;
  }
}

await main();
