// The tools from the shell: apply-patch, edit, apply-blocks, read, search and find, each
// the registry's own tool on the disk. Every one prints exactly one envelope as JSON on
// stdout (a short summary for a person instead when stdout is a terminal, unless --json)
// and exits 0 when it applied, 1 when it refused, 2 on a usage error.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { parseArgs, promisify } from "node:util";
import { hasEnvelope } from "../edit/changeset/envelope-parse.js";
import { errorEnvelope, type Envelope } from "../tools/envelope.js";
import { invokeTool } from "../tools/registry.js";
import type { ToolContext } from "../tools/tool.js";
import { errnoCode } from "../shared/errno.js";
import { Sandbox } from "../workspace/sandbox.js";
import { searchAlone } from "../workspace/walk/search-worker.js";
import { Workspace } from "../workspace/workspace.js";
import { applyAcrossFiles, finishInterrupted, otherFilesRefusal } from "./apply-patch-cli.js";
import { commandMessage, isParseArgsError } from "./command-errors.js";
import { commandHelp, USAGE } from "./help.js";
import { formatHuman, styleFor } from "./human-output.js";
import { processIo, RefusedInput, UsageError, type Io } from "./io.js";

async function toolContext(root: string | undefined): Promise<ToolContext> {
  let sandbox: Sandbox;
  try {
    sandbox = await Sandbox.create([root ?? process.cwd()]);
  } catch (error) {
    const why = errnoCode(error) === "ENOENT" ? "no such directory" : commandMessage(error);
    throw new UsageError(`--root ${root ?? process.cwd()}: ${why}; give the workspace's directory`);
  }
  // Answers are read by a person at a shell: their advice names commands and options, not tools.
  const signal = new AbortController().signal;
  return { workspace: new Workspace(sandbox), signal, approve: async () => "apply", reader: "shell" };
}

/** The text of a file an option names; one that cannot be read is a usage error naming the option. */
async function optionFile(path: string, option: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    const code = errnoCode(error) ?? "";
    const why =
      code === "ENOENT"
        ? "no such file"
        : code === "EISDIR"
          ? "a directory, not a file"
          : `cannot be read (${code || String(error)})`;
    throw new UsageError(`${option} ${path}: ${why}`);
  }
}

/** --base-sha256 is the 64 hex digits `lockstep read` prints; anything else is a usage error. */
function checkSha(sha: string | undefined): void {
  if (sha !== undefined && !/^[0-9a-fA-F]{64}$/.test(sha)) {
    throw new UsageError(
      `--base-sha256 takes the file's 64-digit hex sha256 (lockstep read prints it), not '${sha.slice(0, 80)}'`,
    );
  }
}

/** Without --base-sha256 the file as it is now is the base. */
async function currentSha(ctx: ToolContext, file: string): Promise<string | undefined> {
  const read = await invokeTool("read_file", { file_path: file }, ctx);
  return read.ok ? String(read.data["sha256"]) : undefined;
}

const common = {
  root: { type: "string" },
  "dry-run": { type: "boolean" },
  "base-sha256": { type: "string" },
} as const;

const DIFF_ELSEWHERE = " (e.g. git diff | lockstep apply-patch FILE) or in a file (--diff F)";

async function applyPatchCommand(args: string[], io: Io): Promise<Envelope> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...common, diff: { type: "string" } },
  });
  const [file, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError("apply-patch takes at most one FILE");
  const diff =
    values.diff === undefined || values.diff === "-"
      ? await io.stdin("the diff", DIFF_ELSEWHERE)
      : await optionFile(values.diff, "--diff");
  checkSha(values["base-sha256"]);
  const ctx = await toolContext(values.root);
  const dryRun = values["dry-run"] ?? false;
  // A dry run changes nothing, an interrupted change's recovery included.
  if (!dryRun) await finishInterrupted(ctx, io.stderr);
  if (!file) {
    if (diff.trim() === "")
      throw new UsageError(
        "apply-patch without FILE applies the diff or apply_patch envelope on stdin (or --diff F), and none was given",
      );
    if (values["base-sha256"] !== undefined)
      throw new UsageError("--base-sha256 names one file's base; give FILE with it");
    return applyAcrossFiles(diff, dryRun, ctx);
  }
  const others = otherFilesRefusal(diff, file);
  if (others) return others;
  if (hasEnvelope(diff)) {
    if (values["base-sha256"] !== undefined)
      throw new UsageError(
        "an apply_patch envelope is checked against the files as they are; leave out --base-sha256",
      );
    return applyAcrossFiles(diff, dryRun, ctx);
  }
  const current = values["base-sha256"] ?? (await currentSha(ctx, file));
  // A missing file takes only a diff that creates it; anything else is "no such file", not a failed match.
  if (current === undefined && /^[ -]/m.test(diff.replace(/^(---|\+\+\+) .*$/gm, ""))) {
    const resolved = await ctx.workspace.resolve(file, "read");
    if (resolved.ok ? !resolved.value.exists : resolved.error.code === "not_found") {
      const near = await ctx.workspace.sandbox.suggest(file);
      return errorEnvelope(
        "not_found",
        `No such file: ${file}. The diff changes lines of it (context or removed lines), so it cannot create it.`,
        [
          ...near.map((n) => `Did you mean ${n}?`),
          "To create the file, send a diff with only added lines (--- /dev/null).",
        ],
      );
    }
  }
  const base = current ?? (await import("../edit/shared/text.js")).EMPTY_SHA256;
  return invokeTool(
    "safe_patch",
    { file_path: file, unified_diff: diff, base_content_sha256: base, dry_run: dryRun },
    ctx,
  );
}

async function editCommand(args: string[]): Promise<Envelope> {
  const options = {
    ...common,
    old: { type: "string" },
    new: { type: "string" },
    "old-file": { type: "string" },
    "new-file": { type: "string" },
    "expected-replacements": { type: "string" },
  } as const;
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options });
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0) throw new UsageError("edit takes exactly one FILE");
  const text = async (
    inline: string | undefined,
    path: string | undefined,
    name: string,
  ): Promise<string> => {
    if (inline !== undefined && path !== undefined)
      throw new UsageError(`give --${name} or --${name}-file, not both`);
    if (path !== undefined) return optionFile(path, `--${name}-file`);
    if (inline === undefined) throw new UsageError(`--${name} (or --${name}-file) is required`);
    return inline;
  };
  checkSha(values["base-sha256"]);
  const ctx = await toolContext(values.root);
  const count = values["expected-replacements"];
  if (count !== undefined && !/^\d+$/.test(count))
    throw new UsageError("--expected-replacements takes a whole number");
  return invokeTool(
    "edit",
    {
      file_path: file,
      old_string: await text(values.old, values["old-file"], "old"),
      new_string: await text(values.new, values["new-file"], "new"),
      ...(count !== undefined ? { expected_replacements: Number(count) } : {}),
      ...(values["base-sha256"] !== undefined ? { base_content_sha256: values["base-sha256"] } : {}),
      dry_run: values["dry-run"] ?? false,
    },
    ctx,
  );
}

async function applyBlocksCommand(args: string[], io: Io): Promise<Envelope> {
  const options = { root: common.root, "dry-run": common["dry-run"], stage: { type: "boolean" } } as const;
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options });
  if (positionals.length > 0)
    throw new UsageError("apply-blocks reads the model output on stdin and takes no FILE");
  const ctx = await toolContext(values.root);
  const text = await io.stdin("the model's answer (its edit blocks)");
  const result = await invokeTool("apply_edit_blocks", { text, dry_run: values["dry-run"] ?? false }, ctx);
  const changed = result.data?.["files_changed"];
  if (values.stage && Array.isArray(changed) && changed.length > 0) {
    try {
      await promisify(execFile)("git", ["add", "--", ...changed.map(String)], {
        cwd: ctx.workspace.sandbox.roots[0],
      });
      if (result.data) result.data["staged"] = changed;
    } catch (error) {
      if (result.data)
        result.data["stage_error"] =
          `git add failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return result;
}

async function readCommand(args: string[]): Promise<Envelope> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { root: common.root } });
  if (positionals.length === 0) throw new UsageError("read takes at least one FILE");
  const ctx = await toolContext(values.root);
  if (positionals.length === 1) return invokeTool("read_file", { file_path: positionals[0] }, ctx);
  return invokeTool("read_many_files", { file_paths: positionals }, ctx);
}

async function searchCommand(args: string[]): Promise<Envelope> {
  const options = {
    root: common.root,
    path: { type: "string" },
    include: { type: "string" },
    "case-sensitive": { type: "boolean" },
    "max-results": { type: "string" },
  } as const;
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options });
  const [pattern, ...extra] = positionals;
  if (pattern === undefined || extra.length > 0)
    throw new UsageError("search takes exactly one PATTERN (quote it)");
  const max = values["max-results"];
  if (max !== undefined && !/^\d+$/.test(max)) throw new UsageError("--max-results takes a whole number");
  const ctx = await toolContext(values.root);
  // Nothing else is answered while this process searches: every core searches.
  searchAlone();
  return invokeTool(
    "search_files",
    {
      pattern,
      ...(values.path !== undefined ? { path: values.path } : {}),
      ...(values.include !== undefined ? { include: values.include } : {}),
      ...(values["case-sensitive"] !== undefined ? { case_sensitive: values["case-sensitive"] } : {}),
      ...(max !== undefined ? { max_results: Number(max) } : {}),
    },
    ctx,
  );
}

async function findCommand(args: string[]): Promise<Envelope> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { root: common.root, path: { type: "string" } },
  });
  const [pattern, ...extra] = positionals;
  if (pattern === undefined || extra.length > 0)
    throw new UsageError("find takes exactly one GLOB (quote it, so the shell leaves it alone)");
  const ctx = await toolContext(values.root);
  return invokeTool(
    "find_files",
    { pattern, ...(values.path !== undefined ? { path: values.path } : {}) },
    ctx,
  );
}

const TOOL_COMMANDS: Record<string, (args: string[], io: Io) => Promise<Envelope>> = {
  "apply-patch": applyPatchCommand,
  edit: (args) => editCommand(args),
  "apply-blocks": applyBlocksCommand,
  read: (args) => readCommand(args),
  search: (args) => searchCommand(args),
  find: (args) => findCommand(args),
};

export function isToolCommand(command: string): boolean {
  return Object.hasOwn(TOOL_COMMANDS, command);
}

/**
 * Runs a tool command and prints its envelope. A person at a terminal reads a summary; a program
 * (stdout not a terminal, or --json) the envelope, also for a usage error (exit 2) or an unknown command.
 */
export async function runToolCommand(command: string, args: string[], io: Io): Promise<number> {
  const run = Object.hasOwn(TOOL_COMMANDS, command) ? TOOL_COMMANDS[command] : undefined;
  const human = !args.includes("--json") && io === processIo && process.stdout.isTTY === true;
  const print = (envelope: Envelope): void => {
    io.stdout(
      human ? formatHuman(command, envelope, styleFor(process.stdout)) : JSON.stringify(envelope) + "\n",
    );
  };
  const printUsage = (envelope: Envelope): void => void (human || io.stdout(JSON.stringify(envelope) + "\n"));
  if (!run) {
    io.stderr(`lockstep: unknown command '${command}'\n\n${USAGE}\n`);
    printUsage(errorEnvelope("invalid_argument", `Unknown command '${command}'. Run lockstep --help.`));
    return 2;
  }
  try {
    const envelope = await run(
      args.filter((a) => a !== "--json"),
      io,
    );
    print(envelope);
    return envelope.ok ? 0 : 1;
  } catch (error) {
    const message = commandMessage(error);
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.stderr(`lockstep ${command}: ${message}\n\n${commandHelp(command) ?? USAGE}\n`);
      printUsage(errorEnvelope("invalid_argument", `Usage: ${message}. Run lockstep ${command} --help.`));
      return 2;
    }
    if (error instanceof RefusedInput) {
      print(errorEnvelope("invalid_argument", message));
      return 1;
    }
    print(
      errorEnvelope(
        errnoCode(error) === "ENOENT" ? "not_found" : "io_error",
        `lockstep ${command}: ${message}`,
      ),
    );
    return 1;
  }
}
