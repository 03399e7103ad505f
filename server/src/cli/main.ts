// The `lockstep` command: the language server (default), and the same tools
// from the shell. Every tool command prints exactly one envelope as JSON on
// stdout (a short summary for a person instead when stdout is a terminal, unless
// --json) and exits 0 when it applied, 1 when it refused, 2 on a usage error.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { parseArgs, promisify } from "node:util";
import { hasEnvelope } from "../edit/changeset/envelope-parse.js";
import { errorEnvelope, type Envelope } from "../tools/envelope.js";
import { invokeTool } from "../tools/registry.js";
import type { ToolContext } from "../tools/tool.js";
import { Sandbox } from "../workspace/sandbox.js";
import { Workspace } from "../workspace/workspace.js";
import { VERSION } from "../version.js";
import { applyAcrossFiles, finishInterrupted, otherFilesRefusal } from "./apply-patch-cli.js";
import { commandMessage, isParseArgsError } from "./command-errors.js";
import { commandHelp, USAGE } from "./help.js";
import { formatHuman, styleFor } from "./human-output.js";

// The worker threads that run large engine jobs load this bundle and call this.
export { runEngineJob } from "../tools/engine-offload.js";

class UsageError extends Error {}
/** Input the command refuses (exit 1), as opposed to a malformed command line (exit 2). */
class RefusedInput extends Error {}

type Io = { stdout: (s: string) => void; stderr: (s: string) => void; stdin: () => Promise<string> };

const defaultIo: Io = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  stdin: readStdin,
};

/** Input beyond this is refused before it is all read: no model writes an 8 MB diff. */
const MAX_STDIN_BYTES = 8 * 1024 * 1024;

/** What the command reads on standard input, for the hint on a terminal (set by main). */
let stdinWhat = "the input";

async function readStdin(): Promise<string> {
  // A person at a terminal would otherwise see nothing happen.
  if (process.stdin.isTTY) process.stderr.write(`Paste ${stdinWhat}, then press Ctrl-D on a new line (Ctrl-C cancels).\n`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_STDIN_BYTES) {
      process.stdin.destroy();
      throw new RefusedInput(`Standard input is too large (over ${MAX_STDIN_BYTES / 1024 / 1024} MB); it was not read and nothing was changed. Send a smaller diff (split the change).`);
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") throw new UsageError(`standard input was empty: give ${stdinWhat} on stdin${stdinWhat === "the diff" ? " (e.g. git diff | lockstep apply-patch FILE) or in a file (--diff F)" : ""}`);
  return text;
}

async function toolContext(root: string | undefined): Promise<ToolContext> {
  let sandbox: Sandbox;
  try {
    sandbox = await Sandbox.create([root ?? process.cwd()]);
  } catch (error) {
    const why = error instanceof Error && "code" in error && error.code === "ENOENT" ? "no such directory" : error instanceof Error ? error.message : String(error);
    throw new UsageError(`--root ${root ?? process.cwd()}: ${why}; give the workspace's directory`);
  }
  // Answers are read by a person at a shell: their advice names commands and options, not tools.
  return { workspace: new Workspace(sandbox), signal: new AbortController().signal, approve: async () => "apply", reader: "shell" };
}

/** What is wrong with an mcp or acp command line, in its options' words (not Node's). */
function stdioServerProblem(error: unknown): string {
  if (error instanceof Error && "code" in error && error.code === "ENOENT" && "syscall" in error && error.syscall === "realpath" && "path" in error) {
    return `--root ${String(error.path)}: no such directory; give the workspace's directory`;
  }
  return commandMessage(error);
}

/**
 * `lockstep mcp` and `lockstep acp`: servers on stdio, each loaded on first use. A failure to start
 * (a bad option, a --root that is not there) is a usage error, named, with the command's help.
 */
async function runStdioServer(command: "mcp" | "acp", rest: string[], io: Io): Promise<number> {
  try {
    const run = command === "mcp" ? (await import("../companion/stdio-command.js")).runMcpCommand : (await import("../acp/command.js")).runAcpCommand;
    return await run(rest, io.stderr);
  } catch (error) {
    io.stderr(`lockstep ${command}: ${stdioServerProblem(error)}\n\n${commandHelp(command) ?? USAGE}\n`);
    return 2;
  }
}

/** The text of a file an option names; one that cannot be read is a usage error naming the option. */
async function optionFile(path: string, option: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    const code = error instanceof Error && "code" in error ? String(error.code) : "";
    throw new UsageError(`${option} ${path}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "a directory, not a file" : `cannot be read (${code || String(error)})`}`);
  }
}

/** --base-sha256 is the 64 hex digits `lockstep read` prints; anything else is a usage error. */
function checkSha(sha: string | undefined): void {
  if (sha !== undefined && !/^[0-9a-fA-F]{64}$/.test(sha)) throw new UsageError(`--base-sha256 takes the file's 64-digit hex sha256 (lockstep read prints it), not '${sha.slice(0, 80)}'`);
}

/** Without --base-sha256 the file as it is now is the base. */
async function currentSha(ctx: ToolContext, file: string): Promise<string | undefined> {
  const read = await invokeTool("read_file", { file_path: file }, ctx);
  return read.ok ? String(read.data["sha256"]) : undefined;
}

const common = { root: { type: "string" }, "dry-run": { type: "boolean" }, "base-sha256": { type: "string" } } as const;

async function applyPatchCommand(args: string[], io: Io): Promise<Envelope> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...common, diff: { type: "string" } } });
  const [file, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError("apply-patch takes at most one FILE");
  const diff = values.diff === undefined || values.diff === "-" ? await io.stdin() : await optionFile(values.diff, "--diff");
  checkSha(values["base-sha256"]);
  const ctx = await toolContext(values.root);
  // A dry run changes nothing, an interrupted change's recovery included.
  if (values["dry-run"] !== true) await finishInterrupted(ctx, io.stderr);
  if (!file) {
    if (diff.trim() === "") throw new UsageError("apply-patch without FILE applies the diff or apply_patch envelope on stdin (or --diff F), and none was given");
    if (values["base-sha256"] !== undefined) throw new UsageError("--base-sha256 names one file's base; give FILE with it");
    return applyAcrossFiles(diff, values["dry-run"] ?? false, ctx);
  }
  const others = otherFilesRefusal(diff, file);
  if (others) return others;
  if (hasEnvelope(diff)) {
    if (values["base-sha256"] !== undefined) throw new UsageError("an apply_patch envelope is checked against the files as they are; leave out --base-sha256");
    return applyAcrossFiles(diff, values["dry-run"] ?? false, ctx);
  }
  const current = values["base-sha256"] ?? (await currentSha(ctx, file));
  // A missing file takes only a diff that creates it; anything else is "no such file", not a failed match.
  if (current === undefined && /^[ -]/m.test(diff.replace(/^(---|\+\+\+) .*$/gm, ""))) {
    const resolved = await ctx.workspace.resolve(file, "read");
    if (resolved.ok ? !resolved.value.exists : resolved.error.code === "not_found") {
      const near = await ctx.workspace.sandbox.suggest(file);
      return errorEnvelope("not_found", `No such file: ${file}. The diff changes lines of it (context or removed lines), so it cannot create it.`, [
        ...near.map((n) => `Did you mean ${n}?`),
        "To create the file, send a diff with only added lines (--- /dev/null).",
      ]);
    }
  }
  const base = current ?? (await import("../edit/shared/text.js")).EMPTY_SHA256;
  return invokeTool("safe_patch", { file_path: file, unified_diff: diff, base_content_sha256: base, dry_run: values["dry-run"] ?? false }, ctx);
}

async function editCommand(args: string[]): Promise<Envelope> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...common, old: { type: "string" }, new: { type: "string" }, "old-file": { type: "string" }, "new-file": { type: "string" }, "expected-replacements": { type: "string" } },
  });
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0) throw new UsageError("edit takes exactly one FILE");
  const text = async (inline: string | undefined, path: string | undefined, name: string): Promise<string> => {
    if (inline !== undefined && path !== undefined) throw new UsageError(`give --${name} or --${name}-file, not both`);
    if (path !== undefined) return optionFile(path, `--${name}-file`);
    if (inline === undefined) throw new UsageError(`--${name} (or --${name}-file) is required`);
    return inline;
  };
  checkSha(values["base-sha256"]);
  const ctx = await toolContext(values.root);
  const count = values["expected-replacements"];
  if (count !== undefined && !/^\d+$/.test(count)) throw new UsageError("--expected-replacements takes a whole number");
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
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { root: common.root, "dry-run": common["dry-run"], stage: { type: "boolean" } } });
  if (positionals.length > 0) throw new UsageError("apply-blocks reads the model output on stdin and takes no FILE");
  const ctx = await toolContext(values.root);
  const result = await invokeTool("apply_edit_blocks", { text: await io.stdin(), dry_run: values["dry-run"] ?? false }, ctx);
  const changed = result.data?.["files_changed"];
  if (values.stage && Array.isArray(changed) && changed.length > 0) {
    try {
      await promisify(execFile)("git", ["add", "--", ...changed.map(String)], { cwd: ctx.workspace.sandbox.roots[0] });
      if (result.data) result.data["staged"] = changed;
    } catch (error) {
      if (result.data) result.data["stage_error"] = `git add failed: ${error instanceof Error ? error.message : String(error)}`;
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
  const options = { root: common.root, path: { type: "string" }, include: { type: "string" }, "case-sensitive": { type: "boolean" }, "max-results": { type: "string" } } as const;
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options });
  const [pattern, ...extra] = positionals;
  if (pattern === undefined || extra.length > 0) throw new UsageError("search takes exactly one PATTERN (quote it)");
  const max = values["max-results"];
  if (max !== undefined && !/^\d+$/.test(max)) throw new UsageError("--max-results takes a whole number");
  const ctx = await toolContext(values.root);
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
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { root: common.root, path: { type: "string" } } });
  const [pattern, ...extra] = positionals;
  if (pattern === undefined || extra.length > 0) throw new UsageError("find takes exactly one GLOB (quote it, so the shell leaves it alone)");
  const ctx = await toolContext(values.root);
  return invokeTool("find_files", { pattern, ...(values.path !== undefined ? { path: values.path } : {}) }, ctx);
}

const TOOL_COMMANDS: Record<string, (args: string[], io: Io) => Promise<Envelope>> = {
  "apply-patch": applyPatchCommand,
  edit: (args) => editCommand(args),
  "apply-blocks": applyBlocksCommand,
  read: (args) => readCommand(args),
  search: (args) => searchCommand(args),
  find: (args) => findCommand(args),
};

export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "--help" || command === "-h" || command === "help") {
    io.stdout(USAGE + "\n");
    return 0;
  }
  if (command !== undefined && (rest.includes("--help") || rest.includes("-h"))) {
    const help = commandHelp(command);
    if (help !== undefined) {
      io.stdout(help + "\n");
      return 0;
    }
  }
  // The server speaks LSP on stdin: a person at a terminal who typed `lockstep` wants the help instead.
  if (command === undefined && process.stdin.isTTY && io === defaultIo) {
    io.stderr("lockstep is a language server: your editor starts it (see README). Commands for the shell:\n\n" + USAGE + "\n");
    return 2;
  }
  if (command === "--version" || command === "-v") {
    io.stdout(VERSION + "\n");
    return 0;
  }
  if (command === undefined || command.startsWith("--")) {
    const wrapAt = argv.indexOf("--wrap");
    let wrap: { command: string; args: string[] } | undefined;
    if (wrapAt >= 0) {
      const [cmd, ...args] = argv.slice(wrapAt + 1 + (argv[wrapAt + 1] === "--" ? 1 : 0));
      if (cmd === undefined || cmd === "") {
        io.stderr(`lockstep --wrap: name the language server to wrap after --, e.g. lockstep --stdio --wrap -- pyright-langserver --stdio\n\n${USAGE}\n`);
        return 2;
      }
      wrap = { command: cmd, args };
    }
    const { runServer } = await import("../lsp/server.js");
    return runServer(wrapAt >= 0 ? argv.slice(0, wrapAt) : argv, wrap);
  }
  if (command === "ask" || command === "demo" || command === "config" || command === "trust") {
    const { runTerminalClient } = await import("./terminal-client.js");
    return runTerminalClient(command, rest, io);
  }
  if (command === "sessions" || command === "revert") {
    const { runSessionsCommand } = await import("./sessions-commands.js");
    return runSessionsCommand(command, rest, io);
  }
  if (command === "mcp" || command === "acp") return runStdioServer(command, rest, io);
  const run = TOOL_COMMANDS[command];
  // A person at a terminal reads a summary; a program (stdout not a terminal, or --json) the envelope.
  const human = !rest.includes("--json") && io === defaultIo && process.stdout.isTTY === true;
  const print = (envelope: Envelope): void => io.stdout(human ? formatHuman(command, envelope, styleFor(process.stdout)) : JSON.stringify(envelope) + "\n");
  const printUsage = (envelope: Envelope): void => void (human || io.stdout(JSON.stringify(envelope) + "\n"));
  if (!run) {
    io.stderr(`lockstep: unknown command '${command}'\n\n${USAGE}\n`);
    printUsage(errorEnvelope("invalid_argument", `Unknown command '${command}'. Run lockstep --help.`));
    return 2;
  }
  stdinWhat = command === "apply-patch" ? "the diff" : command === "apply-blocks" ? "the model's answer (its edit blocks)" : "the input";
  try {
    const envelope = await run(rest.filter((a) => a !== "--json"), io);
    print(envelope);
    return envelope.ok ? 0 : 1;
  } catch (error) {
    const usage = error instanceof UsageError || isParseArgsError(error);
    const message = commandMessage(error);
    if (usage) {
      io.stderr(`lockstep ${command}: ${message}\n\n${commandHelp(command) ?? USAGE}\n`);
      printUsage(errorEnvelope("invalid_argument", `Usage: ${message}. Run lockstep ${command} --help.`));
      return 2;
    }
    if (error instanceof RefusedInput) {
      print(errorEnvelope("invalid_argument", message));
      return 1;
    }
    const code = error instanceof Error && "code" in error && error.code === "ENOENT" ? "not_found" : "io_error";
    print(errorEnvelope(code, `lockstep ${command}: ${message}`));
    return 1;
  }
}
