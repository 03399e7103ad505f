// Tools that only read: every file comes back versioned and hashed.
import { pathToFileURL } from "node:url";
import * as z from "zod";
import { fail, succeed, type Outcome } from "../shared/outcome.js";
import type { FileState } from "../workspace/file-state.js";
import type { ResolvedPath } from "../workspace/sandbox.js";
import { expandGlob, isGlob } from "../workspace/walk.js";
import { failureEnvelope, okEnvelope } from "./envelope.js";
import { filePath } from "./schemas.js";
import { defineTool, type ToolContext } from "./tool.js";

/** read_many_files stops adding files past these, and says so. */
export const READ_MANY_LIMITS = { files: 1000, bytes: 32 * 1024 * 1024 };

function remember(ctx: ToolContext, state: FileState): void {
  ctx.conversation?.filesInContext.add(state.file_path);
  ctx.conversation?.seenSha256?.set(state.file_path, state.sha256);
}

/** A file longer than this, read without offset/limit, comes back as its first this many lines. */
export const READ_LINES_DEFAULT = 2000;

/** How many files read_many_files reads at once (the ledger awaits realpath, open, read and close per file). */
const READ_CONCURRENCY = 64;

export const readFile = defineTool({
  name: "read_file",
  kind: "read",
  description:
    `Read a file. Returns {file_path, version, sha256, content}: the text the user sees ` +
    `(unsaved editor changes included), the editor's version number (null when read from ` +
    `disk) and the sha256 of the content. Keep the sha256: every write must name it as ` +
    `base_content_sha256. When a file appears several times in the conversation, only the ` +
    `newest state counts. For part of a file give offset (first line, 1-based) and limit ` +
    `(lines): the answer then also has start_line, end_line, total_lines and truncated: ` +
    `true, content is those lines only, and sha256 is still the whole file's, so ` +
    `safe_patch built on it works. A file over ${READ_LINES_DEFAULT} lines read without ` +
    `them comes back as its first ${READ_LINES_DEFAULT} lines.`,
  params: z
    .object({
      file_path: filePath,
      offset: z
        .number()
        .int()
        .min(1, "is the first line to read, counted from 1")
        .optional()
        .describe("First line to read (1-based). With limit, for reading part of a large file."),
      limit: z
        .number()
        .int()
        .min(1, "is how many lines to read, at least 1")
        .optional()
        .describe(`How many lines to read from offset (default ${READ_LINES_DEFAULT}).`),
    })
    .strict(),
  async run(args, ctx) {
    const resolved = await ctx.workspace.resolve(args.file_path, "read");
    if (!resolved.ok) return failureEnvelope(resolved.error);
    const state = await ctx.workspace.read(resolved.value);
    if (!state.ok) return failureEnvelope(state.error);
    remember(ctx, state.value);
    const ranged = lineRange(state.value, args.offset, args.limit);
    if (!ranged.ok) return failureEnvelope(ranged.error);
    return okEnvelope(ranged.value);
  },
});

/** Where each line of `text` starts (a text without a final newline still ends a last line). */
function lineStarts(text: string): number[] {
  const starts: number[] = [];
  if (text === "") return starts;
  starts.push(0);
  for (let nl = text.indexOf("\n"); nl !== -1 && nl + 1 < text.length; nl = text.indexOf("\n", nl + 1))
    starts.push(nl + 1);
  return starts;
}

/**
 * The whole state, or the lines asked for: content cut to them, with
 * start_line, end_line, total_lines, truncated and how to read on. The sha256
 * stays the whole file's: it is the lock, and hunks are placed by content.
 */
function lineRange(
  state: FileState,
  offset: number | undefined,
  limit: number | undefined,
): Outcome<Record<string, unknown>> {
  const starts = lineStarts(state.content);
  const total = starts.length;
  const first = offset ?? 1;
  if (first > Math.max(total, 1)) {
    return fail(
      "invalid_argument",
      `offset ${first} is past the end of ${state.file_path}, which has ${total} line${total === 1 ? "" : "s"}.`,
      [`Call read_file with an offset from 1 to ${Math.max(total, 1)}.`],
    );
  }
  const last = Math.min(total, first - 1 + (limit ?? READ_LINES_DEFAULT));
  if (first === 1 && last === total) return succeed({ ...state });
  const content = state.content.slice(
    starts[first - 1] ?? 0,
    last < total ? starts[last] : state.content.length,
  );
  const note =
    last < total
      ? `Lines ${first}-${last} of ${total}. To read on, call read_file with offset ${last + 1}${limit === undefined ? "" : ` and limit ${limit}`}; the sha256 is the whole file's, so an edit built on this part works.`
      : `Lines ${first}-${last} of ${total} (the end of the file); the sha256 is the whole file's.`;
  return succeed({
    ...state,
    content,
    start_line: first,
    end_line: last,
    total_lines: total,
    truncated: true,
    note,
  });
}

type ReadError = { file_path: string; code: string; message: string };

export const readManyFiles = defineTool({
  name: "read_many_files",
  kind: "read",
  description:
    "Read several files at once; paths may be glob patterns (src/**/*.ts). Returns {files: " +
    "[{file_path, version, sha256, content}], errors}: each file versioned and hashed " +
    "exactly as read_file does. Globs honour .gitignore, .ignore and .rgignore; node_modules and .git " +
    "are skipped unless named explicitly.",
  params: z
    .object({
      file_paths: z
        .array(filePath)
        .min(1, "must list at least one path or pattern")
        .describe("Paths or glob patterns, workspace-relative."),
    })
    .strict(),
  async run(args, ctx) {
    const errors: ReadError[] = [];
    const wanted: string[] = [];
    // Files a glob's walk found are real paths inside a root already: no second resolution.
    const walked = new Map<string, ResolvedPath>();
    for (const pattern of args.file_paths) {
      if (!isGlob(pattern)) {
        wanted.push(pattern);
        continue;
      }
      const expanded = await expandGlob(ctx.workspace.sandbox, pattern, {
        limit: READ_MANY_LIMITS.files,
        signal: ctx.signal,
      });
      if (!expanded.ok) {
        errors.push({ file_path: pattern, code: expanded.error.code, message: expanded.error.message });
        continue;
      }
      const { files: matches, total } = expanded.value;
      if (matches.length === 0)
        errors.push({
          file_path: pattern,
          code: "not_found",
          message: `No file matches the pattern ${pattern}.`,
        });
      if (total !== undefined) {
        errors.push({
          file_path: pattern,
          code: "invalid_argument",
          message: `The pattern ${pattern} matches ${total} files, over the limit of ${READ_MANY_LIMITS.files} for one call; the first ${matches.length} (depth first, by name) were taken. Use a narrower pattern.`,
        });
      }
      wanted.push(...matches);
      expanded.value.found.forEach((f, i) =>
        walked.set(matches[i]!, {
          abs: f.abs,
          rel: f.rel,
          root: f.root,
          uri: pathToFileURL(f.abs).href,
          exists: true,
        }),
      );
    }
    const files: FileState[] = [];
    const seen = new Set<string>();
    let bytes = 0;
    // Read a window at a time, kept in order: the limits and the duplicates are decided in the order asked.
    for (let at = 0; at < wanted.length; at += READ_CONCURRENCY) {
      if (ctx.signal.aborted)
        return failureEnvelope({
          code: "cancelled",
          message: "Cancelled while reading files.",
          suggestions: [],
        });
      const window = wanted.slice(at, at + READ_CONCURRENCY);
      const reads = await readWindow(ctx, window, walked);
      for (let j = 0; j < reads.length; j++) {
        const i = at + j;
        const name = wanted[i]!;
        if (files.length >= READ_MANY_LIMITS.files || bytes >= READ_MANY_LIMITS.bytes) {
          // One error for the rest, with the count: not one per file left out.
          const left = wanted.length - i;
          errors.push({
            file_path: name,
            code: "invalid_argument",
            message: `Not read: ${name} and the ${left - 1} file(s) after it; the call reached its limit (${READ_MANY_LIMITS.files} files or ${READ_MANY_LIMITS.bytes / 1024 / 1024} MB). Ask for fewer files.`,
          });
          return okEnvelope({ files, errors });
        }
        const read = reads[j]!;
        if (!read.ok) {
          errors.push({ file_path: name, code: read.error.code, message: read.error.message });
          continue;
        }
        if (seen.has(read.value.uri)) continue;
        seen.add(read.value.uri);
        bytes += read.value.content.length;
        files.push(read.value);
        remember(ctx, read.value);
      }
      if (wanted.length > 20)
        ctx.progress?.(
          `Read ${Math.min(at + READ_CONCURRENCY, wanted.length)} of ${wanted.length} files`,
          Math.round((Math.min(at + READ_CONCURRENCY, wanted.length) / wanted.length) * 100),
        );
    }
    return okEnvelope({ files, errors });
  },
});

/** The states of `names`, in order: resolved together (a glob's files are already), then read in one pass. */
async function readWindow(
  ctx: ToolContext,
  names: readonly string[],
  walked: ReadonlyMap<string, ResolvedPath>,
): Promise<Outcome<FileState>[]> {
  const resolved = await Promise.all(
    names.map((name) => walked.get(name) ?? ctx.workspace.resolve(name, "read")),
  );
  const paths = resolved.map((r) => ("ok" in r ? r : { ok: true as const, value: r }));
  const states = await ctx.workspace.readMany(
    paths.flatMap((p) => (p.ok ? [p.value] : [])),
    ctx.signal,
  );
  let next = 0;
  return paths.map((p) => (p.ok ? states[next++]! : p));
}

export const listFiles = defineTool({
  name: "list_files",
  kind: "read",
  description:
    'List a directory of the workspace (use "." for the root). Returns {entries: [{name, type}]} with type file, directory, symlink or other.',
  params: z
    .object({
      path: z
        .string()
        .trim()
        .min(1, 'must name a directory (use "." for the workspace root)')
        .describe("Workspace-relative directory."),
    })
    .strict(),
  async run(args, ctx) {
    const resolved = await ctx.workspace.resolve(args.path, "list");
    if (!resolved.ok) return failureEnvelope(resolved.error);
    if (!resolved.value.exists) {
      const suggestions = await ctx.workspace.sandbox.suggest(args.path);
      return failureEnvelope({
        code: "not_found",
        message: `Directory not found: ${args.path}.`,
        suggestions: suggestions.map((s) => `Did you mean ${s}?`),
      });
    }
    const entries = await ctx.workspace.list(resolved.value);
    if (!entries.ok) return failureEnvelope(entries.error);
    return okEnvelope({ path: resolved.value.rel, entries: entries.value });
  },
});
