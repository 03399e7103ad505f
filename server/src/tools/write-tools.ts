// Tools that change one file: write_file, safe_patch and edit. Each computes the
// new text from the current state; modifyFile does the locking, hash check,
// approval and delivery they share.
import * as z from "zod";
import { fail, succeed } from "../shared/outcome.js";
import { parseUnifiedDiff } from "../edit/patch/diff-parse.js";
import type { ReplaceRequest, ReplaceResult } from "../edit/replace/replace.js";
import type { Outcome } from "../shared/outcome.js";
import { foreignSections } from "./diff-scope.js";
import { runEngine, type PatchJob } from "./engine-offload.js";
import { errorEnvelope } from "./envelope.js";
import { modifyFile, type Computed } from "./modify.js";
import { baseSha256, dryRun, filePath } from "./schemas.js";
import { defineTool, type ToolContext } from "./tool.js";

const MAX_DIFF_CHARS = 8 * 1024 * 1024;
/** More hunks than this in one call is not a patch but a rewrite: refused with a clear message. */
const MAX_HUNKS = 20_000;

export const writeFile = defineTool({
  name: "write_file",
  kind: "modify",
  description:
    "Create a file, or replace a whole file. Creating needs no base_content_sha256; " +
    "replacing an existing file needs the sha256 of the version you are replacing. Prefer " +
    "safe_patch or edit for changes to existing files. Write the complete content: never " +
    "placeholders such as '// rest unchanged'.",
  params: z
    .object({
      file_path: filePath,
      content: z.string().describe("The complete new content of the file."),
      base_content_sha256: baseSha256.optional(),
    })
    .strict(),
  async run(args, ctx) {
    return modifyFile(
      ctx,
      { tool: "write_file", file_path: args.file_path, base: args.base_content_sha256, mayCreate: true },
      (current, exists) => {
        if (exists && args.base_content_sha256 === undefined) {
          return fail(
            "invalid_argument",
            `${args.file_path} already exists; replacing it needs base_content_sha256 (the sha256 of the version you are replacing, attached as latest_file_state).`,
            [
              "Pass latest_file_state.sha256 as base_content_sha256, or use safe_patch/edit to change part of the file.",
            ],
          );
        }
        if (exists && current.content === args.content)
          return fail("no_change", "No Change: the file already has exactly this content.");
        return succeed({
          content: args.content,
          message: exists ? `Replaced ${current.file_path}.` : `Created ${args.file_path}.`,
        });
      },
    );
  },
});

export const safePatch = defineTool({
  name: "safe_patch",
  kind: "modify",
  description: [
    "Change a file with a unified diff. The preferred tool for every change to an existing file, including several changes at once (one hunk each).",
    "Protocol: (1) Build the diff from the newest state of the file in the conversation, " +
      "the one with the highest version or the latest result of a write; if you have none, " +
      "call read_file first. (2) Give every hunk at least 10 unchanged context lines around " +
      "the change, copied exactly from that state. (3) Pass that state's sha256 as " +
      "base_content_sha256: it is the lock, and if the file changed since, nothing is " +
      "applied and the current state comes back so you can rebuild the diff at once.",
    "Line numbers in @@ headers may be approximate or omitted (@@ @@): hunks are placed by their context and removed lines, and only where they fit exactly one place. All hunks apply, or none.",
  ].join(" "),
  params: z
    .object({
      file_path: filePath,
      unified_diff: z
        .string()
        .min(1, "must contain the diff")
        .max(MAX_DIFF_CHARS, `is too large (over ${MAX_DIFF_CHARS / 1024 / 1024} MB); split the change`)
        .describe(
          "A unified diff for this one file: @@ hunks with context lines (space), removed lines (-) and added lines (+).",
        ),
      base_content_sha256: baseSha256,
      dry_run: dryRun,
    })
    .strict(),
  async run(args, ctx) {
    const hunks = (args.unified_diff.match(/^@@/gm) ?? []).length;
    if (hunks > MAX_HUNKS) {
      return errorEnvelope(
        "invalid_argument",
        `Invalid Argument: the diff has ${hunks} hunks, over the limit of ${MAX_HUNKS} for one call. Nothing was applied.`,
        ["Split the change into several safe_patch calls, or write the whole file with write_file."],
      );
    }
    const others = foreignSections(args.unified_diff, args.file_path);
    if (others.length > 0) {
      return errorEnvelope(
        "invalid_diff",
        `Invalid Diff: the diff also changes ${others.map((o) => `\`${o}\``).join(", ")}, not only \`${args.file_path}\`; nothing was applied.`,
        ["Send one safe_patch call per file, each with only that file's hunks."],
      );
    }
    const existing = await existingHeaderFiles(ctx, args.unified_diff, args.file_path);
    return modifyFile(
      ctx,
      {
        tool: "safe_patch",
        file_path: args.file_path,
        base: args.base_content_sha256,
        dry_run: args.dry_run,
        mayCreate: true,
      },
      async (current): Promise<Computed> => {
        const job: PatchJob = {
          kind: "patch",
          content: current.content,
          diff: args.unified_diff,
          filePath: current.file_path,
          existing: [...existing],
        };
        const patched = await runEngine(job, ctx.signal);
        if (!patched.ok) return patched;
        const moved = patched.value.moved;
        const note =
          moved > 0
            ? ` (${moved} hunk header${moved > 1 ? "s" : ""} had the wrong line number and ${moved > 1 ? "were" : "was"} corrected)`
            : "";
        return succeed({
          content: patched.value.content,
          message: `Patch applied successfully.${note}`,
          extra: { diff: patched.value.diff },
        });
      },
    );
  },
});

/**
 * The diff's header paths that name a file that is there (on disk or open in the editor) and is
 * not the target itself: only those may refuse a diff for naming another file. A name that merely
 * resolves (`modified`, `after.c`, `b/file` when no such file exists) is a hint, never a refusal.
 */
async function existingHeaderFiles(ctx: ToolContext, diff: string, target: string): Promise<Set<string>> {
  const parsed = parseUnifiedDiff(headerPairs(diff));
  const found = new Set<string>();
  if (!parsed.ok) return found;
  const paths = new Set(
    parsed.value.flatMap((p) => [p.oldPath, p.newPath]).filter((p): p is string => p !== undefined),
  );
  if (paths.size === 0) return found;
  const self = await ctx.workspace.resolve(target, "write");
  const targetUri = self.ok ? self.value.uri : undefined;
  for (const p of paths) {
    const file = await ctx.workspace.existingFile(p);
    if (file !== undefined && file.uri !== targetUri) found.add(p);
  }
  return found;
}

/**
 * The diff's `---`/`+++` header pairs alone, each given a one-line hunk so the parser reads it:
 * parsing a whole 20,000-hunk diff here, on the server's thread, would cost 30 ms.
 */
function headerPairs(diff: string): string {
  let pairs = "";
  for (const m of diff.matchAll(/^--- .*\r?\n\+\+\+ .*$/gm)) pairs += `${m[0]}\n@@ @@\n x\n`;
  return pairs;
}

export const edit = defineTool({
  name: "edit",
  kind: "modify",
  description: [
    "Replace old_string with new_string in a file. For small, unique replacements; use safe_patch for several changes.",
    "old_string must be copied exactly from the newest state of the file (include 3 or " +
      "more unchanged lines around the change so it matches one place); new_string is the " +
      "full replacement, never a placeholder like '// ...existing code'.",
    "Pass base_content_sha256 (the sha256 of the state you copied from) to lock the change " +
      "to that version; without it only an exact match of old_string lands. Set expected_replacements to change several identical places at " +
      "once. instruction says in one sentence what the change is for; it is used to repair " +
      "an old_string that does not match.",
  ].join(" "),
  params: z
    .object({
      file_path: filePath,
      old_string: z.string().describe("The exact text to replace. Empty only to create a new file."),
      new_string: z.string().describe("The text to put in its place."),
      expected_replacements: z
        .number()
        .int()
        .min(1)
        .max(100_000)
        .optional()
        .describe("How many places old_string must match (default 1)."),
      instruction: z.string().optional().describe("One sentence on what the change is for."),
      base_content_sha256: baseSha256.optional(),
      dry_run: dryRun,
    })
    .strict(),
  async run(args, ctx) {
    if (args.old_string.length + args.new_string.length > MAX_DIFF_CHARS) {
      return errorEnvelope(
        "invalid_argument",
        `Invalid Argument: old_string and new_string together are over ${MAX_DIFF_CHARS / 1024 / 1024} MB, the limit for one call. Nothing was applied.`,
        ["Split the change into several smaller edits, or write the whole file with write_file."],
      );
    }
    const corrected = await correctedEdit(args, ctx);
    return modifyFile(
      ctx,
      {
        tool: "edit",
        file_path: args.file_path,
        base: args.base_content_sha256,
        dry_run: args.dry_run,
        mayCreate: args.old_string === "",
      },
      async (current, exists): Promise<Computed> => {
        const result = exists
          ? await runEngine(
              { kind: "replace", content: current.content, request: replaceRequest(args) },
              ctx.signal,
            )
          : succeed<ReplaceResult>({
              content: args.new_string,
              strategy: "exact",
              occurrences: 1,
              unescaped: false,
            });
        const chosen =
          !result.ok && corrected && corrected.sha256 === current.sha256 ? corrected.result : result;
        if (!chosen.ok) return chosen;
        const { content, strategy, occurrences } = chosen.value;
        const how = chosen === result ? strategy : "llm";
        if (exists && args.base_content_sha256 === undefined && how !== "exact") return unlockedGuess(how);
        return succeed({
          content,
          message: exists
            ? `Edit applied successfully (${occurrences} replacement${occurrences > 1 ? "s" : ""}, ${how} match).`
            : `Created ${args.file_path}.`,
          extra: { strategy: how, occurrences },
        });
      },
    );
  },
});

/**
 * Without base_content_sha256 nothing says which text the model copied old_string from: a match
 * found only by ignoring whitespace (or repaired by a model) may be the user's own edit of those
 * lines (re-indented, trailing spaces typed), and replacing it would lose what they typed. So an
 * unlocked edit lands on an exact match only; anything looser is refused with the way to retry.
 */
function unlockedGuess(how: string): Outcome<never> {
  const found =
    how === "llm" ? "only after a model repaired old_string" : `only by a ${how} match (whitespace ignored)`;
  return fail(
    "state_mismatch",
    `State Mismatch: old_string was found ${found}, and without base_content_sha256 lockstep cannot tell a stale copy from the user's own edit of those lines. Nothing was applied.`,
    [
      "Copy old_string exactly from latest_file_state (attached) and pass its sha256 as base_content_sha256, then call edit again.",
    ],
  );
}

/**
 * When every matching tier fails and a model is at hand, ask it once to repair
 * old_string against the current text (outside the file lock: it can take seconds).
 */
async function correctedEdit(
  args: {
    file_path: string;
    old_string: string;
    new_string: string;
    expected_replacements?: number | undefined;
    instruction?: string | undefined;
    base_content_sha256?: string | undefined;
  },
  ctx: ToolContext,
): Promise<{ sha256: string; result: Outcome<ReplaceResult> } | undefined> {
  if (!ctx.corrector || args.old_string === "") return undefined;
  const resolved = await ctx.workspace.resolve(args.file_path, "read");
  if (!resolved.ok || !resolved.value.exists) return undefined;
  const state = await ctx.workspace.read(resolved.value);
  // A stale base fails the hash check anyway: no model call for an edit that cannot land.
  if (
    !state.ok ||
    (args.base_content_sha256 !== undefined && args.base_content_sha256 !== state.value.sha256)
  )
    return undefined;
  const first = await runEngine(
    { kind: "replace", content: state.value.content, request: replaceRequest(args) },
    ctx.signal,
  );
  if (first.ok || first.error.code !== "not_found") return undefined;
  const answer = await ctx.corrector.correct(
    {
      instruction: args.instruction ?? "",
      old_string: args.old_string,
      new_string: args.new_string,
      error: first.error.message,
      content: state.value.content,
    },
    ctx.signal,
  );
  if (!answer) return undefined;
  if (answer.noChangesRequired) {
    return {
      sha256: state.value.sha256,
      result: fail("no_change", `No Change: ${answer.explanation || "the change is already in the file."}`),
    };
  }
  const request = replaceRequest({ ...args, old_string: answer.search, new_string: answer.replace });
  return {
    sha256: state.value.sha256,
    result: await runEngine({ kind: "replace", content: state.value.content, request }, ctx.signal),
  };
}

/** The engine's part of the edit tool's arguments (what goes to a worker is only that). */
function replaceRequest(args: {
  old_string: string;
  new_string: string;
  expected_replacements?: number | undefined;
}): ReplaceRequest {
  return {
    old_string: args.old_string,
    new_string: args.new_string,
    ...(args.expected_replacements !== undefined
      ? { expected_replacements: args.expected_replacements }
      : {}),
  };
}
