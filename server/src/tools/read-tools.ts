// Tools that only read: every file comes back versioned and hashed.
import * as z from "zod";
import type { FileState } from "../workspace/file-state.js";
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

const GLOB_CHARS = /[*?[\]{}]/;

/** The pattern relative to the root, or undefined when it could reach outside it. */
function insideRoot(pattern: string, root: string): string | undefined {
  let rel = pattern.replace(/\\/g, "/");
  if (rel.startsWith("file://")) rel = rel.slice("file://".length);
  if (rel.startsWith("/")) {
    const base = root.endsWith("/") ? root : root + "/";
    if (!rel.startsWith(base)) return undefined;
    rel = rel.slice(base.length);
  }
  return rel.split("/").includes("..") ? undefined : rel;
}

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
    const root = ctx.workspace.sandbox.roots[0]!;
    const errors: { file_path: string; code: string; message: string }[] = [];
    const wanted: string[] = [];
    for (const pattern of args.file_paths) {
      if (!GLOB_CHARS.test(pattern)) {
        wanted.push(pattern);
        continue;
      }
      // Globbing happens outside the sandbox, so a pattern must stay below the root by its words alone.
      const inside = insideRoot(pattern, root);
      if (inside === undefined) {
        errors.push({ file_path: pattern, code: "permission_denied", message: `The pattern ${pattern} reaches outside the workspace; use a pattern relative to the workspace root, without "..".` });
        continue;
      }
      const explicit = /(^|\/)(node_modules|\.git)(\/|$)/.test(pattern);
      // Loaded on first use: most commands never glob, and start-up time is paid on every CLI call.
      const { glob } = await import("tinyglobby");
      const matches = await glob(inside, { cwd: root, onlyFiles: true, dot: false, ignore: explicit ? [] : ["**/node_modules/**", "**/.git/**"] });
      if (matches.length === 0) errors.push({ file_path: pattern, code: "not_found", message: `No file matches the pattern ${pattern}.` });
      wanted.push(...matches.sort());
    }
    const files: FileState[] = [];
    const seen = new Set<string>();
    let bytes = 0;
    for (let i = 0; i < wanted.length; i++) {
      if (ctx.signal.aborted) return failureEnvelope({ code: "cancelled", message: "Cancelled while reading files.", suggestions: [] });
      const name = wanted[i]!;
      if (files.length >= READ_MANY_LIMITS.files || bytes >= READ_MANY_LIMITS.bytes) {
        errors.push({ file_path: name, code: "invalid_argument", message: `Not read: the call reached its limit (${READ_MANY_LIMITS.files} files or ${READ_MANY_LIMITS.bytes / 1024 / 1024} MB). Ask for fewer files.` });
        continue;
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
