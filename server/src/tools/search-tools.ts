// Finding things in the tree without reading it: search_files (a regular
// expression over file contents) and find_files (a glob over file names). Both
// walk through workspace/walk.ts, with the same ignore rules as read_many_files.
import * as z from "zod";
import { expandGlob, scopeOf } from "../workspace/walk.js";
import { includeFilter, MAX_GLOB_LENGTH, patternLength } from "../workspace/walk/glob.js";
import { compileSearch } from "../workspace/walk/line-search.js";
import { searchTree } from "../workspace/walk/search-tree.js";
import { failureEnvelope, okEnvelope } from "./envelope.js";
import { defineTool } from "./tool.js";

export const SEARCH_DEFAULT_RESULTS = 100;
export const SEARCH_MAX_RESULTS = 1000;
/** find_files lists at most this many names, and says when there were more. */
export const FIND_LIMIT = 1000;

const searchPath = z
  .string()
  .trim()
  .min(1, "must name a directory or file (leave it out to search the whole workspace)")
  .optional()
  .describe("Directory (or file) to search in, workspace-relative; every workspace root when left out.");

export const searchFiles = defineTool({
  name: "search_files",
  kind: "read",
  description:
    "Search file contents for a JavaScript regular expression, like grep -n. Returns " +
    "{matches: [{file_path, line, text}], files_searched, truncated}: line is 1-based, " +
    "text is the matching line (cut at 300 characters). Case-insensitive unless the " +
    "pattern holds an upper-case letter or case_sensitive is set. Honours .gitignore, " +
    ".ignore and .rgignore, skips binary files, node_modules and .git. Open editor buffers are searched " +
    "by their unsaved text. Use it to find where something is defined or used before " +
    "reading; then read_file with offset/limit around the line.",
  params: z
    .object({
      pattern: z
        .string()
        .min(1, "must be a regular expression to search for")
        .describe('JavaScript regular expression, e.g. "function\\s+parseConfig" or "TODO|FIXME".'),
      path: searchPath,
      include: z
        .string()
        .trim()
        .min(1, 'must be a glob such as "*.ts" (leave it out to search every file)')
        .refine(
          (p) => patternLength(p) <= MAX_GLOB_LENGTH,
          `must be at most ${MAX_GLOB_LENGTH} characters long (runs of * counted as one)`,
        )
        .optional()
        .describe(
          'Glob filter on files: "*.ts" or "*.{ts,tsx}" by file name at any depth; "src/**/*.ts" by path.',
        ),
      case_sensitive: z
        .boolean()
        .optional()
        .describe("Force case-sensitive (true) or case-insensitive (false) matching."),
      max_results: z
        .number()
        .int()
        .min(1)
        .max(SEARCH_MAX_RESULTS)
        .optional()
        .describe(`Most matches to return (default ${SEARCH_DEFAULT_RESULTS}).`),
    })
    .strict(),
  async run(args, ctx) {
    const pattern = compileSearch(args.pattern, args.case_sensitive);
    if (!pattern.ok) return failureEnvelope(pattern.error);
    const scope = await scopeOf(ctx.workspace.sandbox, args.path);
    if (!scope.ok) return failureEnvelope(scope.error);
    const result = await searchTree(ctx.workspace, {
      pattern: pattern.value,
      scope: scope.value,
      ...(args.include === undefined ? {} : { include: includeFilter(args.include) }),
      maxResults: args.max_results ?? SEARCH_DEFAULT_RESULTS,
      signal: ctx.signal,
    });
    if (!result.ok) return failureEnvelope(result.error);
    return okEnvelope({ ...result.value });
  },
});

export const findFiles = defineTool({
  name: "find_files",
  kind: "read",
  description:
    "Find files by name with a glob pattern (src/**/*.ts, **/*.test.js, *.md for the top " +
    "level only). Returns {files: [file_path, …], truncated} in path order (depth first, " +
    "by name), at most 1,000. Same ignore rules as search_files (.gitignore, .ignore, .rgignore, " +
    "node_modules, .git).",
  params: z
    .object({
      pattern: z
        .string()
        .trim()
        .min(1, 'must be a glob pattern such as "**/*.ts"')
        .describe("Glob pattern, relative to path (or the workspace root)."),
      path: searchPath.describe("Directory the pattern is relative to; the workspace root when left out."),
    })
    .strict(),
  async run(args, ctx) {
    const expanded = await expandGlob(ctx.workspace.sandbox, args.pattern, {
      limit: FIND_LIMIT,
      signal: ctx.signal,
      ...(args.path === undefined ? {} : { base: args.path }),
    });
    if (!expanded.ok) return failureEnvelope(expanded.error);
    return okEnvelope({ files: expanded.value.files, truncated: expanded.value.total !== undefined });
  },
});
