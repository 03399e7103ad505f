// search_files through ripgrep, giving what the JavaScript search gives. One rg
// walks the tree with the walker's rules (rg-walk.ts), names the files holding
// the pattern's required text (`--files-with-matches --fixed-strings --text`,
// most often a handful) and counts the files it searched (`--stats`). Those
// files are then searched exactly as the JavaScript search searches a file, on
// its watched threads (so the binary, UTF-8 and line rules are its own, and a
// catastrophic pattern is still stopped), each as soon as rg names it, open
// buffers by their unsaved text instead of their disk copies, the matches put in
// walk order (rg-judge.ts). Whatever rg cannot do alike gives a reason, and any
// error rg reports (an unreadable file, say) gives undefined: the caller
// searches in JavaScript.
import { fail, type Outcome } from "../../shared/outcome.js";
import { MAX_FILE_BYTES } from "../disk.js";
import type { Workspace } from "../workspace.js";
import { requiredLiterals } from "./required-literal.js";
import { relOf, type Listing } from "./rg-listing.js";
import { listWithRipgrep, ripgrepWalk, type RgWalk } from "./rg-walk.js";
import { ripgrep, runRecords, type Ripgrep } from "./ripgrep.js";
import { CandidateJudge } from "./rg-judge.js";
import type { SearchResult, TreeSearch } from "./search-types.js";

/** Files rg may name at most (past it, the JavaScript search instead). */
const MAX_CANDIDATES = 200_000;

interface Plan extends RgWalk {
  namesSkipped: boolean;
  needles: string[];
  ignoreCase: boolean;
}

/** Why this search goes to JavaScript, or the plan for rg. */
export async function planRipgrep(
  workspace: Workspace,
  request: TreeSearch,
  rg: Ripgrep | undefined = ripgrep(),
): Promise<Plan | string> {
  if (!rg) return "rg is not used";
  const scope = request.scope;
  if (scope.kind !== "tree") return "one file";
  if (scope.starts.length !== 1) return "several roots";
  const start = scope.starts[0]!;
  const ignoreCase = request.pattern.flags.includes("i");
  const needles = requiredLiterals(request.pattern.source, ignoreCase);
  if (needles === undefined || needles.some((n) => n === "" || n.includes("\n")))
    return "no required text in the pattern";
  const walk = await ripgrepWalk(workspace.sandbox.roots, start, scope.namesSkipped, rg, MAX_FILE_BYTES);
  if (typeof walk === "string") return walk;
  return { ...walk, namesSkipped: scope.namesSkipped, needles, ignoreCase };
}

/** The search through rg, or undefined when it cannot give the JavaScript search's answer. */
export async function searchWithRipgrep(
  workspace: Workspace,
  request: TreeSearch,
  plan: Plan,
): Promise<Outcome<SearchResult> | undefined> {
  const { rg, start, flags, where } = plan;
  const signal = request.signal;
  const bounds = { maxTotal: 64 * 1024 * 1024, signal };
  // The walk's listing, only when a search needs the names: to count the files `include`
  // keeps (started at once), the files up to where a truncated search stopped, or an editor's
  // open buffers it cannot list. Otherwise rg's own count of the files it searched is enough.
  let listing: Promise<Listing | undefined> | undefined;
  const listed = (): Promise<Listing | undefined> =>
    (listing ??= listWithRipgrep(plan, signal, request.include));
  if (request.include) void listed();
  const judge = new CandidateJudge(workspace, request, start, plan.namesSkipped, listed, (rels) =>
    locateLines(plan, request, rels),
  );
  const candidates: string[] = [];
  let searched: number | undefined;
  const named = await runRecords(
    rg,
    start.root,
    [...flags, "--files-with-matches", "--stats", "--null", "--text", ...needleFlags(plan), "--", where],
    { ...bounds, separator: 0, maxRecord: 64 * 1024 },
    (record) => {
      const rel = relOf(record.toString("utf8"));
      if (request.include === undefined || request.include(rel)) {
        candidates.push(rel);
        judge.offer(rel);
      }
      return candidates.length <= MAX_CANDIDATES;
    },
    (stats) => {
      const files = /\n(\d+) files searched\n/.exec(stats.toString("utf8"))?.[1];
      if (files !== undefined) searched = Number(files);
    },
  );
  if (signal.aborted || named !== "done" || candidates.length > MAX_CANDIDATES) {
    await judge.abandon();
    await listing;
    if (signal.aborted || named === "aborted")
      return fail("cancelled", "Cancelled: the search stopped; nothing else was done.");
    return undefined;
  }
  return judge.finish(candidates, request.include ? undefined : searched);
}

/**
 * The lines of these files (root-relative) holding the required text, by rg (line number and
 * byte offset, pair after pair): for each file it named fewer than the most matches wanted
 * plus one, so none was left out. Raw bytes (no BOM dropped: the offsets are the file's own).
 */
async function locateLines(plan: Plan, request: TreeSearch, rels: string[]): Promise<Map<string, number[]>> {
  const most = request.maxResults + 1;
  const found = new Map<string, number[]>();
  // Each record is "LINE:OFFSET:[Omitted long matching line]\n" and the next file's name.
  let name: string | undefined;
  let malformed = false;
  const note = (at: RegExpExecArray): void => {
    const lines = found.get(name!) ?? [];
    if (lines.length === 0) found.set(name!, lines);
    lines.push(Number(at[1]), Number(at[2]));
  };
  for (let i = 0; i < rels.length; i += 64) {
    const end = await runRecords(
      plan.rg,
      plan.start.root,
      [
        "--no-config",
        // Named files are searched whatever the rules; no ignore file need be opened.
        "--no-ignore",
        "--text",
        "--encoding",
        "none",
        "--with-filename",
        "--line-number",
        "--byte-offset",
        "--max-columns",
        "1",
        "--max-count",
        String(most),
        "--null",
        ...needleFlags(plan),
        "--",
        ...rels.slice(i, i + 64),
      ],
      { separator: 0, maxRecord: 64 * 1024, maxTotal: 64 * 1024 * 1024, signal: request.signal },
      (record) => {
        const text = record.toString("utf8");
        if (name !== undefined) {
          const at = /^(\d+):(\d+):[^\n]*\n/.exec(text);
          if (at === null) return !(malformed = true);
          note(at);
          name = text.slice(at[0].length);
        } else name = text;
        return true;
      },
      (tail) => {
        // The last record: "LINE:OFFSET:…\n" of the last name.
        const at = /^(\d+):(\d+):/.exec(tail.toString("utf8"));
        if (name !== undefined && at !== null) note(at);
        name = undefined;
      },
    );
    if (end !== "done" || malformed) return new Map();
  }
  for (const [rel, lines] of found) if (lines.length / 2 >= most) found.delete(rel);
  return found;
}

/** The required text as rg's flags: fixed strings, folded as the pattern is. */
function needleFlags(plan: Plan): string[] {
  return [
    "--fixed-strings",
    plan.ignoreCase ? "--ignore-case" : "--case-sensitive",
    ...plan.needles.flatMap((n) => ["--regexp", n]),
  ];
}
