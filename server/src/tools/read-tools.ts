// Tools that only read: every file comes back versioned and hashed.
import * as z from "zod";
import type { FileState } from "../workspace/file-state.js";
import { expandGlob, isGlob } from "../workspace/walk.js";
import { failureEnvelope, okEnvelope } from "./envelope.js";
import { filePath } from "./schemas.js";
import { defineTool, type ToolContext } from "./tool.js";

/** read_many_files stops adding files past these, and says so. */
export const READ_MANY_LIMITS = { files: 1000, bytes: 32 * 1024 * 1024 };

function remember(ctx: ToolContext, state: FileState): void {
  ctx.session?.filesInContext.add(state.file_path);
}

export const readFile = defineTool({
  name: "read_file",
  kind: "read",
  description:
    "Read a file. Returns {file_path, version, sha256, content}: the text the user sees (unsaved editor changes included), the editor's version number (null when read from disk) and the sha256 of the content. Keep the sha256: every write must name it as base_content_sha256. When a file appears several times in the conversation, only the newest state counts.",
  params: z.object({ file_path: filePath }).strict(),
  async run(args, ctx) {
    const resolved = await ctx.workspace.resolve(args.file_path, "read");
    if (!resolved.ok) return failureEnvelope(resolved.error);
    const state = await ctx.workspace.read(resolved.value);
    if (!state.ok) return failureEnvelope(state.error);
    remember(ctx, state.value);
    return okEnvelope({ ...state.value });
  },
});

export const readManyFiles = defineTool({
  name: "read_many_files",
  kind: "read",
  description:
    "Read several files at once; paths may be glob patterns (src/**/*.ts). Returns {files: [{file_path, version, sha256, content}], errors}: each file versioned and hashed exactly as read_file does. node_modules and .git are skipped unless named explicitly.",
  params: z
    .object({
      file_paths: z.array(filePath).min(1, "must list at least one path or pattern").describe("Paths or glob patterns, workspace-relative."),
    })
    .strict(),
  async run(args, ctx) {
    const errors: { file_path: string; code: string; message: string }[] = [];
    const wanted: string[] = [];
    for (const pattern of args.file_paths) {
      if (!isGlob(pattern)) {
        wanted.push(pattern);
        continue;
      }
      const expanded = await expandGlob(ctx.workspace.sandbox, pattern, { limit: READ_MANY_LIMITS.files, signal: ctx.signal });
      if (!expanded.ok) {
        errors.push({ file_path: pattern, code: expanded.error.code, message: expanded.error.message });
        continue;
      }
      const { files: matches, total } = expanded.value;
      if (matches.length === 0) errors.push({ file_path: pattern, code: "not_found", message: `No file matches the pattern ${pattern}.` });
      if (total !== undefined) {
        errors.push({
          file_path: pattern,
          code: "invalid_argument",
          message: `The pattern ${pattern} matches ${total} files, over the limit of ${READ_MANY_LIMITS.files} for one call; the first ${matches.length} in name order were taken. Use a narrower pattern.`,
        });
      }
      wanted.push(...matches);
    }
    const files: FileState[] = [];
    const seen = new Set<string>();
    let bytes = 0;
    for (let i = 0; i < wanted.length; i++) {
      if (ctx.signal.aborted) return failureEnvelope({ code: "cancelled", message: "Cancelled while reading files.", suggestions: [] });
      const name = wanted[i]!;
      if (files.length >= READ_MANY_LIMITS.files || bytes >= READ_MANY_LIMITS.bytes) {
        // One error for the rest, with the count: not one per file left out.
        const left = wanted.length - i;
        errors.push({
          file_path: name,
          code: "invalid_argument",
          message: `Not read: ${name} and the ${left - 1} file(s) after it; the call reached its limit (${READ_MANY_LIMITS.files} files or ${READ_MANY_LIMITS.bytes / 1024 / 1024} MB). Ask for fewer files.`,
        });
        break;
      }
      const resolved = await ctx.workspace.resolve(name, "read");
      if (!resolved.ok) {
        errors.push({ file_path: name, code: resolved.error.code, message: resolved.error.message });
        continue;
      }
      if (seen.has(resolved.value.abs)) continue;
      seen.add(resolved.value.abs);
      const state = await ctx.workspace.read(resolved.value);
      if (!state.ok) {
        errors.push({ file_path: name, code: state.error.code, message: state.error.message });
        continue;
      }
      bytes += state.value.content.length;
      files.push(state.value);
      remember(ctx, state.value);
      if (wanted.length > 20 && i % 50 === 0) ctx.progress?.(`Read ${i + 1} of ${wanted.length} files`, Math.round(((i + 1) / wanted.length) * 100));
    }
    return okEnvelope({ files, errors });
  },
});

export const listFiles = defineTool({
  name: "list_files",
  kind: "read",
  description: "List a directory of the workspace (use \".\" for the root). Returns {entries: [{name, type}]} with type file, directory, symlink or other.",
  params: z.object({ path: z.string().trim().min(1, "must name a directory (use \".\" for the workspace root)").describe("Workspace-relative directory.") }).strict(),
  async run(args, ctx) {
    const resolved = await ctx.workspace.resolve(args.path, "list");
    if (!resolved.ok) return failureEnvelope(resolved.error);
    if (!resolved.value.exists) {
      const suggestions = await ctx.workspace.sandbox.suggest(args.path);
      return failureEnvelope({ code: "not_found", message: `Directory not found: ${args.path}.`, suggestions: suggestions.map((s) => `Did you mean ${s}?`) });
    }
    const entries = await ctx.workspace.list(resolved.value);
    if (!entries.ok) return failureEnvelope(entries.error);
    return okEnvelope({ path: resolved.value.rel, entries: entries.value });
  },
});
