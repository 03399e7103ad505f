// Random and mangled input for every engine entry and every tool's arguments,
// timed one call at a time: the slowest input of each kind is reported, and the
// target is that none takes over 100 ms at the default limits. Seeded, so a slow
// input found here can be run again.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPatch } from "diff";
import { applyEditBlock } from "../server/src/edit/blocks/edit-block-apply.js";
import { parseEditBlocks } from "../server/src/edit/blocks/edit-block-parser.js";
import { applyModelPatch } from "../server/src/edit/patch/patch.js";
import { replaceInText } from "../server/src/edit/replace/replace.js";
import { invokeTool, TOOLS } from "../server/src/tools/registry.js";
import { Sandbox } from "../server/src/workspace/sandbox.js";
import { Workspace } from "../server/src/workspace/workspace.js";
import type { CorpusFile } from "./corpus.js";
import { fuzzCommands } from "./fuzz-commands.js";
import { randomEdit } from "./edits.js";
import type { Rng } from "./prng.js";
import { fixed, section, table } from "./report.js";

const TARGET_MS = 100;

interface Slowest {
  ms: number;
  what: string;
  count: number;
  over: number;
}

function timed(tally: Slowest, what: string, fn: () => unknown): void {
  const t0 = performance.now();
  try {
    fn();
  } catch (error) {
    // The engine answers with values; a throw is a bug worth seeing in the report.
    tally.what = `THREW on ${what}: ${error instanceof Error ? error.message : String(error)}`;
    tally.ms = Infinity;
  }
  const ms = performance.now() - t0;
  tally.count++;
  if (ms > TARGET_MS) tally.over++;
  if (ms > tally.ms || (tally.ms === 0 && tally.what === "")) [tally.ms, tally.what] = [ms, what];
}

const JUNK = [
  "@@",
  "@@ @@",
  "@@ -1,3 +1,3 @@",
  "---",
  "+++",
  "-",
  "+",
  " ",
  "\\ No newline at end of file",
  "```diff",
  "«««",
  "═══════ REPL",
  "»»» EDIT END",
  "<<<<<<< SEARCH",
  "=======",
  ">>>>>>> REPLACE",
  "\t",
  "\r",
  "\uFEFF",
  "\u0000",
];

/** A diff of the file, then mangled: lines dropped, duplicated, re-signed, junk put in. */
function mangledDiff(text: string, rng: Rng): string {
  const lines = text.split("\n");
  const diff = createPatch("f.js", text, randomEdit(lines, rng).join("\n")).split("\n");
  const out: string[] = [];
  for (const line of diff) {
    const r = rng.next();
    if (r < 0.05) continue;
    if (r < 0.1) out.push(line, line);
    else if (r < 0.15) out.push(rng.pick(["+", "-", " "]) + line.slice(1));
    else if (r < 0.2) out.push(rng.pick(JUNK));
    else out.push(line);
  }
  return out.join(rng.chance(0.2) ? "\r\n" : "\n");
}

function slice(text: string, rng: Rng, max: number): string {
  const at = rng.int(0, Math.max(0, text.length - 1));
  return text.slice(at, at + rng.int(0, max));
}

/** Random values of every JSON shape, for a tool's arguments. */
function randomValue(rng: Rng, depth = 0): unknown {
  const kinds = depth > 2 ? 5 : 7;
  switch (rng.int(0, kinds - 1)) {
    case 0:
      return null;
    case 1:
      return rng.int(-5, 1e6);
    case 2:
      return rng.chance(0.5);
    case 3:
      return rng.pick(["", "src/a.js", "../x", "/etc/passwd", "**/*", "a".repeat(5000), "{,}", "\u0000"]);
    case 4:
      return "x".repeat(rng.int(0, 300));
    case 5:
      return Array.from({ length: rng.int(0, 4) }, () => randomValue(rng, depth + 1));
    default: {
      const keys = [
        "file_path",
        "file_paths",
        "unified_diff",
        "base_content_sha256",
        "old_string",
        "new_string",
        "content",
        "text",
        "dry_run",
        "path",
        "extra",
      ];
      return Object.fromEntries(
        Array.from({ length: rng.int(0, 5) }, () => [rng.pick(keys), randomValue(rng, depth + 1)]),
      );
    }
  }
}

export async function runFuzz(
  corpus: readonly CorpusFile[],
  rng: Rng,
  perKind = 300,
): Promise<{ text: string; over: number }> {
  const tallies = new Map<string, Slowest>(
    ["diffs (safe_patch engine)", "edit (old/new)", "edit blocks", "tool arguments"].map((k) => [
      k,
      { ms: 0, what: "", count: 0, over: 0 },
    ]),
  );
  const files = corpus.map((f) => f.content);
  for (let i = 0; i < perKind; i++) {
    const text = rng.pick(files);
    const diff = mangledDiff(text, rng);
    timed(tallies.get("diffs (safe_patch engine)")!, `${diff.length}-char diff`, () =>
      applyModelPatch(text, diff, { filePath: "f.js" }),
    );
    const old = rng.chance(0.3) ? slice(text, rng, 2000) : rng.pick(JUNK) + slice(text, rng, 200);
    const neu = slice(text, rng, 400);
    timed(tallies.get("edit (old/new)")!, `${old.length}-char old_string`, () =>
      replaceInText(text, { old_string: old, new_string: neu }),
    );
    const blocks = `f.js\n««« EDIT\n${slice(text, rng, 600)}\n═══════ REPL\n${slice(text, rng, 300)}\n»»» EDIT END\n${rng.pick(JUNK)}`;
    timed(tallies.get("edit blocks")!, `${blocks.length}-char answer`, () => {
      for (const b of parseEditBlocks(blocks)) applyEditBlock(text, b);
    });
  }
  const root = mkdtempSync(join(tmpdir(), "lockstep-fuzz-"));
  try {
    writeFileSync(join(root, "a.js"), files[0] ?? "x\n");
    const workspace = new Workspace(await Sandbox.create([root]));
    const ctx = { workspace, signal: new AbortController().signal, approve: async () => "apply" as const };
    const tally = tallies.get("tool arguments")!;
    for (let i = 0; i < perKind; i++) {
      const tool = rng.pick(TOOLS).name;
      const args = randomValue(rng);
      const t0 = performance.now();
      await invokeTool(tool, args, ctx);
      const ms = performance.now() - t0;
      tally.count++;
      if (ms > TARGET_MS) tally.over++;
      if (ms > tally.ms) [tally.ms, tally.what] = [ms, `${tool} ${JSON.stringify(args).slice(0, 60)}`];
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const lsp = await fuzzCommands(
    rng,
    TOOLS.map((t) => t.name),
    randomValue,
    perKind,
    TARGET_MS,
  );
  tallies.set("LSP executeCommand", {
    ms: lsp.slowestMs,
    what: lsp.alive ? lsp.slowest : "THE SERVER STOPPED ANSWERING",
    count: lsp.count,
    over: lsp.over + (lsp.alive ? 0 : 1),
  });
  const rows = [...tallies].map(([kind, t]) => [
    kind,
    String(t.count),
    fixed(t.ms, 1),
    String(t.over),
    t.what.slice(0, 70),
  ]);
  const over = [...tallies.values()].reduce((n, t) => n + t.over, 0);
  return {
    text: [
      section(`6. Fuzz: the slowest input of each kind (target: none over ${TARGET_MS} ms)`),
      table(["kind", "inputs", "slowest ms", `over ${TARGET_MS} ms`, "slowest input"], rows),
    ].join("\n"),
    over,
  };
}
