// The peers' own code, run as shipped: Codex's apply_patch (the native binary of
// the `@openai/codex` npm package, installed by `npm run bench:moving-buffer:peers`
// into bench/peers/, never into the product's dependencies) and gemini-cli's edit
// matcher (`calculateReplacement` and `getErrorReplaceResult` of the core bundled in
// the `@google/gemini-cli` devDependency). Nothing here re-implements either.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Attempt } from "./classify.js";

export interface Peer {
  version: string;
  /** Applies the change to `current` the way the peer would on the file as it is at write time. */
  run(
    current: string,
    change: { path: string; codexPatch: string; oldString: string; newString: string },
  ): Promise<Attempt>;
  dispose(): void;
}

function packageVersion(dir: string): string {
  return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
}

/** The native `codex` binary inside the platform package, or why it is not there. */
function codexBinary(root: string): { bin: string; version: string } | { missing: string } {
  const scope = join(root, "bench", "peers", "node_modules", "@openai");
  if (!existsSync(join(scope, "codex")))
    return { missing: "not installed (run `npm run bench:moving-buffer:peers`)" };
  for (const pkg of readdirSync(scope).filter((n) => n.startsWith("codex-"))) {
    const vendor = join(scope, pkg, "vendor");
    if (!existsSync(vendor)) continue;
    for (const triple of readdirSync(vendor)) {
      const bin = join(vendor, triple, "bin", "codex");
      if (existsSync(bin)) return { bin, version: packageVersion(join(scope, "codex")) };
    }
  }
  return { missing: "no native binary for this platform in the installed package" };
}

/** Codex's `apply_patch`: the binary's own mode, on a temp copy of the file. */
export function codexPeer(root: string): Peer | string {
  const found = codexBinary(root);
  if ("missing" in found) return found.missing;
  const dir = mkdtempSync(join(tmpdir(), "lockstep-bench-codex-"));
  let next = 0;
  return {
    version: found.version,
    run: async (current, change) => {
      const work = join(dir, String(next++));
      const file = join(work, change.path);
      // The patch names the file by its relative path; it is applied in its own directory.
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, current);
      const r = spawnSync(found.bin, ["--codex-run-as-apply-patch", change.codexPatch], {
        cwd: work,
        encoding: "utf8",
        env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: dir, CODEX_HOME: join(dir, ".codex") },
        timeout: 60_000,
      });
      const written = readFileSync(file, "utf8");
      rmSync(work, { recursive: true, force: true });
      if (r.status === 0) return { kind: "applied", content: written };
      // A failure that still changed the file is a write, and judged as one.
      if (written !== current) return { kind: "applied", content: written };
      return { kind: "refused", why: (r.stderr || `exit ${r.status}`).split("\n")[0]!.slice(0, 80) };
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

interface GeminiCore {
  calculateReplacement(
    config: unknown,
    context: { currentContent: string; params: Record<string, unknown>; abortSignal: AbortSignal },
  ): Promise<{ newContent: string; occurrences: number; finalOldString: string; finalNewString: string }>;
  getErrorReplaceResult(
    params: Record<string, unknown>,
    occurrences: number,
    finalOld: string,
    finalNew: string,
  ): { raw: string } | undefined;
}

/** The bundled core module that exports the edit matcher (the one gemini.js itself imports). */
function geminiCoreFile(root: string): string | undefined {
  const bundle = join(root, "node_modules", "@google", "gemini-cli", "bundle");
  if (!existsSync(bundle)) return undefined;
  const entry = readFileSync(join(bundle, "gemini.js"), "utf8");
  const candidates = readdirSync(bundle).filter(
    (n) => /^(core|dist)-[A-Z0-9]+\.js$/.test(n) && entry.includes(n),
  );
  const all =
    candidates.length > 0
      ? candidates
      : readdirSync(bundle).filter((n) => /^(core|dist)-[A-Z0-9]+\.js$/.test(n));
  return all.map((n) => join(bundle, n)).find((f) => /\bcalculateReplacement,/.test(readFileSync(f, "utf8")));
}

/**
 * gemini-cli's edit tool as it decides at execute time: it re-reads the file, runs
 * calculateReplacement (exact, flexible, regex, then fuzzy by edit distance), and
 * refuses through getErrorReplaceResult (no match, not exactly one, no change).
 * Its model-driven self-correction after a miss needs a model and is not run.
 */
export async function geminiPeer(root: string): Promise<Peer | string> {
  const file = geminiCoreFile(root);
  if (!file) return "the @google/gemini-cli devDependency's bundle holds no core with calculateReplacement";
  const core = (await import(pathToFileURL(file).href)) as GeminiCore;
  // Usage statistics off: the telemetry logger stays silent and nothing is sent anywhere.
  const config = {
    getUsageStatisticsEnabled: () => false,
    getSessionId: () => "bench",
    getContentGeneratorConfig: () => undefined,
  };
  const version = packageVersion(join(root, "node_modules", "@google", "gemini-cli"));
  return {
    version,
    run: async (current, change) => {
      const params = { file_path: change.path, old_string: change.oldString, new_string: change.newString };
      const r = await core.calculateReplacement(config, {
        currentContent: current,
        params,
        abortSignal: new AbortController().signal,
      });
      const error = core.getErrorReplaceResult(params, r.occurrences, r.finalOldString, r.finalNewString);
      if (error) return { kind: "refused", why: error.raw.slice(0, 80) };
      return { kind: "applied", content: r.newContent };
    },
    dispose: () => undefined,
  };
}
