// npm run bench:moving-buffer [-- --json FILE] [--files N] [--seed S] [--only NAME-PART]
// What each agent's edit does while the user keeps typing: lockstep's tools, Codex's
// apply_patch and gemini-cli's edit matcher (their own code), jsdiff and GNU patch,
// on seeded cases cut from real files plus the hand-written headline fixtures.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { chooseCorpus } from "./corpus.js";
import { GnuPatch } from "./peers.js";
import { Rng } from "./prng.js";
import { section, table } from "./report.js";
import { FAMILIES, generateCases, type Family } from "./moving-buffer/cases.js";
import { OUTCOMES } from "./moving-buffer/classify.js";
import { loadHeadlines } from "./moving-buffer/headline.js";
import { LockstepOnDisk } from "./moving-buffer/lockstep-tools.js";
import { Merger } from "./moving-buffer/merge.js";
import { codexPeer, geminiPeer, type Peer } from "./moving-buffer/peer-code.js";
import { LockstepOverLsp } from "./moving-buffer/lockstep-lsp.js";
import {
  baselineSpecs,
  lockstepSpecs,
  lspSpecs,
  peerSpec,
  runAll,
  runCase,
  totals,
  type ToolSpec,
  type ToolTally,
} from "./moving-buffer/runner.js";

function projectRoot(): string {
  for (let dir = resolve(import.meta.dirname); ; dir = resolve(dir, "..")) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "server"))) return dir;
    if (dir === resolve(dir, "..")) throw new Error("no project root above " + import.meta.dirname);
  }
}

function option(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

function versionOf(root: string, pkg: string): string {
  return (
    JSON.parse(readFileSync(join(root, "node_modules", pkg, "package.json"), "utf8")) as { version: string }
  ).version;
}

const COLUMNS = [...OUTCOMES, "refused_clean_merge", "retry_landed"] as const;
const SHORT: Record<(typeof COLUMNS)[number], string> = {
  correct: "correct",
  refused: "refused",
  lost_user_edit: "LOST",
  wrong_write: "WRONG",
  partial_write: "partial",
  silent_noop: "noop",
  refused_clean_merge: "refused/clean",
  retry_landed: "retry ok",
};

function toolTable(tally: ToolTally): string {
  const families: Family[] = ["still", ...FAMILIES];
  const rows = families
    .filter((f) => tally.byFamily.has(f))
    .map((f) => [f, ...COLUMNS.map((c) => String(tally.byFamily.get(f)![c]))]);
  const sum = totals(tally);
  rows.push(["all", ...COLUMNS.map((c) => String(sum[c]))]);
  return table(["family", ...COLUMNS.map((c) => SHORT[c])], rows);
}

async function main(args: readonly string[]): Promise<void> {
  const root = projectRoot();
  const seed = Number(option(args, "--seed") ?? 37);
  const fileCount = Number(option(args, "--files") ?? 30);
  const jsonFile = option(args, "--json");
  const log = (s: string): void => void process.stderr.write(s + "\n");
  const rng = new Rng(seed);
  const files = chooseCorpus(join(root, "node_modules"), fileCount, rng.fork("corpus"));
  const cases = generateCases(files, rng.fork("cases"));
  const headlines = loadHeadlines(join(root, "bench", "moving-buffer", "headline"));

  const merger = new Merger();
  const disk = new LockstepOnDisk();
  const gnu = new GnuPatch();
  const lockstepVersion = (
    JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }
  ).version;
  const gnuVersion =
    /\d+\.\d+(\.\d+)?/.exec(spawnSync("patch", ["--version"], { encoding: "utf8" }).stdout ?? "")?.[0] ?? "?";
  const lsp = await LockstepOverLsp.start(join(root, "bin", "lockstep.js"));
  const tools: ToolSpec[] = [...lspSpecs(lsp, lockstepVersion), ...lockstepSpecs(disk, lockstepVersion)];
  const absent: string[] = [];
  const peers: Peer[] = [];
  const codex = codexPeer(root);
  if (typeof codex === "string") absent.push(`Codex apply_patch: ${codex}`);
  else {
    peers.push(codex);
    tools.push(peerSpec("Codex apply_patch", codex, "codex --codex-run-as-apply-patch (native binary)"));
  }
  const gemini = await geminiPeer(root);
  if (typeof gemini === "string") absent.push(`gemini-cli edit: ${gemini}`);
  else {
    peers.push(gemini);
    tools.push(peerSpec("gemini-cli edit", gemini, "calculateReplacement + getErrorReplaceResult"));
  }
  tools.push(...baselineSpecs(gnu, versionOf(root, "diff"), gnuVersion));
  const only = option(args, "--only");
  if (only !== undefined)
    tools.splice(0, tools.length, ...tools.filter((t) => t.name.toLowerCase().includes(only.toLowerCase())));

  const out: string[] = [section("Moving-buffer benchmark")];
  out.push(
    `${cases.length} generated cases from ${files.length} files in node_modules (seed ${seed}), and ${headlines.length} headline fixtures.`,
  );
  for (const a of absent) out.push(`NOT RUN: ${a}`);
  try {
    const tallies = await runAll(tools, cases, merger, log);
    out.push(
      section("Tools"),
      table(
        ["tool", "own code", "version", "what runs"],
        tools.map((t) => [t.name, t.own_code ? "yes" : "no (re-implemented)", t.version, t.what]),
      ),
    );
    out.push(section("All tools, all generated cases"));
    out.push(
      table(
        ["tool", ...COLUMNS.map((c) => SHORT[c])],
        tools.map((t) => [t.name, ...COLUMNS.map((c) => String(totals(tallies.get(t.name)!)[c]))]),
      ),
    );
    for (const t of tools)
      out.push(section(`${t.name} (${t.version}) by family`), toolTable(tallies.get(t.name)!));
    const rows: string[][] = [];
    for (const h of headlines) {
      const row = [h.id];
      for (const t of tools) row.push((await runCase(t, h, merger)).outcome);
      rows.push(row);
    }
    out.push(
      section("Headline fixtures (bench/moving-buffer/headline)"),
      table(["case", ...tools.map((t) => t.name)], rows),
    );
    process.stdout.write(out.join("\n") + "\n");
    if (jsonFile) {
      const json = {
        cases: cases.length,
        seed,
        tools: Object.fromEntries(
          tools.map((t) => {
            const sum = totals(tallies.get(t.name)!);
            const outcomes = Object.fromEntries(OUTCOMES.map((o) => [o, sum[o]]));
            return [
              t.name,
              {
                own_code: t.own_code,
                version: t.version,
                outcomes,
                refused_clean_merge: sum.refused_clean_merge,
                retry_landed: sum.retry_landed,
              },
            ];
          }),
        ),
        not_run: absent,
      };
      writeFileSync(jsonFile, JSON.stringify(json, null, 2) + "\n");
    }
  } finally {
    merger.dispose();
    disk.dispose();
    await lsp.dispose();
    gnu.dispose();
    for (const p of peers) p.dispose();
  }
}

await main(process.argv.slice(2));
