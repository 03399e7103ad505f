// Real source files nobody here wrote: scripts from the packages in
// node_modules, chosen by the seed, one per package while packages last.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { Rng } from "./prng.js";

export interface CorpusFile {
  /** Path relative to node_modules, used as the diff's file name. */
  path: string;
  pkg: string;
  /** The file as read (LF only; files with CR are not taken). */
  content: string;
}

const SCRIPT = /\.(?:js|ts|mjs|cjs)$/;
const MIN_LINES = 80;
const MAX_LINES = 3000;
const MAX_LINE_LENGTH = 300;

function isScript(name: string): boolean {
  return SCRIPT.test(name) && !/\.d\.[cm]?ts$/.test(name) && !/\.min\./.test(name);
}

/** The package a file belongs to: the segment(s) after the last node_modules. */
function packageOf(relPath: string): string {
  const parts = relPath.split(sep);
  const at = parts.lastIndexOf("node_modules");
  const rest = parts.slice(at + 1);
  return rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1] ?? ""}` : (rest[0] ?? "");
}

/** Every script under `root`, sorted, grouped by package. */
function listScripts(root: string): Map<string, string[]> {
  const byPackage = new Map<string, string[]>();
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith(".")) continue;
      const full = join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile() && isScript(e.name)) {
        const rel = relative(root, full);
        const pkg = packageOf(join("node_modules", rel));
        const list = byPackage.get(pkg) ?? [];
        list.push(rel);
        byPackage.set(pkg, list);
      }
    }
  };
  walk(root);
  for (const list of byPackage.values()) list.sort();
  return byPackage;
}

/** The file's text if it is one the bench can use: LF text, 80–3000 lines, no minified lines. */
function usable(full: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(full, "utf8");
  } catch {
    return undefined;
  }
  if (text.includes("\r") || text.includes("\0") || text.includes("\uFFFD")) return undefined;
  const lines = text.split("\n");
  const count = text.endsWith("\n") ? lines.length - 1 : lines.length;
  if (count < MIN_LINES || count > MAX_LINES) return undefined;
  if (lines.some((l) => l.length > MAX_LINE_LENGTH)) return undefined;
  // Files that are mostly one repeated line (generated tables) say little about placement.
  if (new Set(lines).size < count / 3) return undefined;
  return text;
}

/** `count` files, one per package in seeded order, then a second round if packages run out. */
export function chooseCorpus(root: string, count: number, rng: Rng): CorpusFile[] {
  const byPackage = listScripts(root);
  const packages = rng.shuffle([...byPackage.keys()].sort());
  const queues = new Map(packages.map((p) => [p, rng.shuffle(byPackage.get(p)!)]));
  const chosen: CorpusFile[] = [];
  for (let round = 0; round < 3 && chosen.length < count; round++) {
    for (const pkg of packages) {
      if (chosen.length >= count) break;
      const queue = queues.get(pkg)!;
      // Look at a bounded number of candidates per package and round.
      for (let tries = 0; tries < 40 && queue.length > 0; tries++) {
        const rel = queue.shift()!;
        const content = usable(join(root, rel));
        if (content !== undefined) {
          chosen.push({ path: rel.split(sep).join("/"), pkg, content });
          break;
        }
      }
    }
  }
  return chosen;
}
