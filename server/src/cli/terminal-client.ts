// `lockstep ask` and `lockstep demo`: an editor-agnostic client. It spawns the
// language server and talks LSP to it exactly as an editor would: it takes the
// WorkspaceEdits (writing them to disk, as it has no buffers), answers the
// approval prompts, and renders the lockstep/stream notifications.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { createPatch } from "diff";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from "vscode-jsonrpc/node.js";
import type { ApplyWorkspaceEditParams, ApplyWorkspaceEditResult, MessageActionItem, ShowMessageRequestParams, TextEdit } from "vscode-languageserver";
import { TextDocument } from "vscode-languageserver-textdocument";
import type { StreamEvent } from "../agent/events.js";
import type { Usage } from "../agent/model.js";
import { loadSettings, originLabel } from "../config/load-settings.js";
import { writeTextFileAtomic } from "../workspace/disk.js";
import { reportFailure } from "./command-errors.js";
import { Prompter } from "./prompt.js";
import { SETTINGS_OPTIONS, settingsFlags } from "./settings-flags.js";

interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

/** The package's root: where bin/ and demo/ are, wherever this file was bundled to. */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "bin", "lockstep.js")) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

const color = (code: number) => (s: string): string => (process.stdout.isTTY && !process.env["NO_COLOR"] ? `\x1b[${code}m${s}\x1b[0m` : s);
const dim = color(2);
const green = color(32);
const red = color(31);
const bold = color(1);

function colorDiff(diff: string): string {
  return diff
    .split("\n")
    .slice(2)
    .map((l) => (l.startsWith("+") ? green(l) : l.startsWith("-") ? red(l) : l.startsWith("@@") ? dim(l) : l))
    .join("\n");
}

export interface AskOptions {
  root: string;
  prompt: string;
  yes: boolean;
  replay?: string;
  replayDelayMs?: number;
  /** The settings in force (lockstep's settings files, LOCKSTEP_* and flags), sent as initializationOptions. */
  settings?: Record<string, unknown>;
  /** Where the answers to the prompts come from (a terminal: one key; else one line each). */
  prompter?: Prompter;
  debug?: boolean;
  /** `--continue` or `--resume ID`: a stored session the server resumes before the prompt. */
  resume?: { latest: true } | { id: string };
  /** Called on each stream event before it is rendered (the demo uses it to edit a file mid-run). */
  onEvent?: (event: StreamEvent) => Promise<void>;
}

/** Applies a WorkspaceEdit to files on disk: the terminal has no buffers. */
async function applyToDisk(params: ApplyWorkspaceEditParams, root: string, io: Io): Promise<ApplyWorkspaceEditResult> {
  const edits: { uri: string; edits: TextEdit[] }[] = [];
  for (const change of params.edit.documentChanges ?? []) {
    if ("textDocument" in change) edits.push({ uri: change.textDocument.uri, edits: change.edits.filter((e): e is TextEdit => "range" in e) });
    // A revert removes a file the run created (the server checked it is as the run left it).
    if ("kind" in change && change.kind === "delete") {
      await rm(fileURLToPath(change.uri), { force: true });
      io.stdout(`\n${bold(`✗ ${path.relative(root, fileURLToPath(change.uri))}`)} deleted\n`);
    }
  }
  for (const [uri, list] of Object.entries(params.edit.changes ?? {})) edits.push({ uri, edits: list });
  for (const { uri, edits: list } of edits) {
    const file = fileURLToPath(uri);
    const exists = existsSync(file);
    const before = exists ? await readFile(file, "utf8") : "";
    const after = TextDocument.applyEdits(TextDocument.create(uri, "plaintext", 0, before), list);
    // Under the lock other lockstep processes honour, and only while the file still holds what the edits were applied to.
    const written = await writeTextFileAtomic(file, after, { base: exists ? before : null });
    if (!written.ok) return { applied: false, failureReason: written.error.message };
    const rel = path.relative(root, file);
    io.stdout(`\n${bold(`✎ ${rel}`)}\n${colorDiff(createPatch(rel, before, after, "", "", { context: 2 }))}\n`);
  }
  return { applied: true };
}

async function askUser(params: ShowMessageRequestParams, options: AskOptions, io: Io): Promise<MessageActionItem | null> {
  const actions = params.actions ?? [];
  const apply = actions.find((a) => a.title === "Apply");
  const reject = actions.find((a) => a.title === "Reject") ?? null;
  if (options.yes) {
    io.stdout(dim(`\n? ${params.message} → Apply (--yes)\n`));
    return apply ?? null;
  }
  if (!options.prompter) {
    io.stdout(`\n? ${params.message}\n  No terminal to ask and no --yes: rejected.\n`);
    return reject;
  }
  const answer = await options.prompter.choose(`\n? ${params.message} [y]es / [n]o / [a]lways: `, ["y", "n", "a"]);
  if (!("key" in answer)) {
    io.stdout(`  No answer (${answer.end === "interrupt" ? "Ctrl-C" : "end of input"}): rejected.\n`);
    return reject;
  }
  if (answer.key === "a") return actions.find((a) => a.title.startsWith("Always")) ?? apply ?? null;
  return answer.key === "y" ? (apply ?? null) : reject;
}

function render(event: StreamEvent, io: Io): void {
  switch (event.kind) {
    case "text":
      io.stdout(event.text);
      break;
    case "thought":
      io.stdout(dim(event.text));
      break;
    case "tool_call":
      io.stdout(dim(`\n→ ${event.tool}${event.file_path ? ` ${event.file_path}` : ""}\n`));
      break;
    case "tool_result":
      io.stdout(event.ok ? dim(`  ✓ ${event.message.split("\n")[0]}\n`) : red(`  ✗ ${event.message.split("\n")[0]}\n`));
      break;
    case "status":
      if (event.message) io.stdout(dim(`${event.message}…\n\n`));
      break;
    case "done":
      io.stdout(`\n\n${event.status === "done" ? green("✔ done") : red(`✘ ${event.status}${event.message ? `: ${event.message}` : ""}`)}\n`);
      break;
  }
}

interface JobView {
  tool_calls?: { kind?: string }[];
  files_changed?: string[];
}

/** Every change the run proposed was rejected or failed (and it proposed some). */
function nothingLanded(job: JobView): boolean {
  return (job.tool_calls ?? []).some((c) => c.kind === "modify") && (job.files_changed ?? []).length === 0;
}

/**
 * At the end of a run that changed files, when there is someone to ask: keep them, or undo the
 * whole run (lockstep.revert). No answer (Ctrl-C, Ctrl-D, the end of the input) keeps nothing:
 * the run is undone, and what is on disk is said file by file. Resolves with whether the changes were kept.
 */
async function offerUndo(conn: MessageConnection, jobId: string, job: JobView, options: AskOptions, io: Io): Promise<"kept" | "undone" | "no-answer"> {
  const changed = job.files_changed ?? [];
  if (changed.length === 0 || options.yes || !options.prompter || options.settings?.["approval"] === "auto") return "kept";
  const answer = await options.prompter.choose(`\n? Keep the changes to ${changed.join(", ")}? [Y]es / [u]ndo the whole run: `, ["y", "u"], "y");
  if ("key" in answer && answer.key === "y") {
    io.stdout(dim(`Kept: ${changed.join(", ")} on disk as changed.\n`));
    return "kept";
  }
  if (!("key" in answer)) io.stdout(`No answer (${answer.end === "interrupt" ? "Ctrl-C" : "end of input"}): undoing the run, nothing is kept that you did not keep.\n`);
  const reverted = (await conn.sendRequest("workspace/executeCommand", { command: "lockstep.revert", arguments: [{ job_id: jobId }] })) as {
    ok: boolean;
    data?: { files?: { file_path: string; status: string; message: string }[] };
    error?: { message: string };
  };
  if (!reverted.ok) {
    io.stdout(red(`✘ ${reverted.error?.message ?? "revert failed"}\nOn disk: the run's changes to ${changed.join(", ")} are still there.\n`));
  } else {
    for (const f of reverted.data?.files ?? []) io.stdout(`${f.status === "reverted" ? green("↶") : f.status === "conflict" ? red("✘") : dim("·")} ${f.message}\n`);
    const back = (reverted.data?.files ?? []).filter((f) => f.status === "reverted").map((f) => f.file_path);
    const left = (reverted.data?.files ?? []).filter((f) => f.status !== "reverted").map((f) => f.file_path);
    io.stdout(`On disk: ${back.length > 0 ? `${back.join(", ")} as before the run` : "nothing was undone"}${left.length > 0 ? `; ${left.join(", ")} still changed (see above)` : ""}.\n`);
  }
  return "key" in answer ? "undone" : "no-answer";
}

/** Runs one agent request through a spawned server; resolves with the job's final status. */
export async function askThroughServer(options: AskOptions, io: Io): Promise<{ status: string; job: Record<string, unknown>; kept: "kept" | "undone" | "no-answer" }> {
  const child = spawn(process.execPath, [path.join(packageRoot(), "bin", "lockstep.js"), "--stdio", ...(options.debug ? ["--debug"] : [])], {
    cwd: options.root,
    stdio: ["pipe", "pipe", options.debug ? "inherit" : "ignore"],
  });
  const conn: MessageConnection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  let finish: (event: StreamEvent & { kind: "done" }) => void = () => undefined;
  const done = new Promise<StreamEvent & { kind: "done" }>((resolve) => (finish = resolve));
  let events = Promise.resolve();
  let thinking = false;
  conn.onRequest("workspace/applyEdit", (params: ApplyWorkspaceEditParams) => applyToDisk(params, options.root, io));
  conn.onRequest("window/showMessageRequest", (params: ShowMessageRequestParams) => askUser(params, options, io));
  conn.onRequest("window/workDoneProgress/create", () => null);
  conn.onNotification("window/showMessage", (p: { message: string }) => io.stderr(dim(`[lockstep] ${p.message}\n`)));
  conn.onNotification("lockstep/stream", (event: StreamEvent) => {
    // Events are handled one after another, in the order they came.
    events = events.then(async () => {
      await options.onEvent?.(event);
      // Thoughts stream dimmed, and end their line before the answer or a tool goes on.
      if (thinking && event.kind !== "thought") io.stdout("\n");
      thinking = event.kind === "thought";
      render(event, io);
      if (event.kind === "done") finish(event);
    });
  });
  conn.listen();
  const exited = new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
  try {
    await conn.sendRequest("initialize", {
      processId: process.pid,
      rootUri: pathToFileURL(options.root).href,
      workspaceFolders: [{ uri: pathToFileURL(options.root).href, name: path.basename(options.root) }],
      capabilities: {
        workspace: { applyEdit: true, workspaceEdit: { documentChanges: true, resourceOperations: ["create", "delete"] } },
        window: { showMessage: { messageActionItem: { additionalPropertiesSupport: false } } },
      },
      initializationOptions: {
        ...options.settings,
        ...(options.replay ? { replay: options.replay, replayDelayMs: options.replayDelayMs ?? 0 } : {}),
      },
    });
    await conn.sendNotification("initialized", {});
    if (options.resume) await (await import("./sessions-commands.js")).resumeThroughServer(conn, options.resume, io);
    const started = (await conn.sendRequest("workspace/executeCommand", { command: "lockstep.ask", arguments: [{ prompt: options.prompt }] })) as {
      ok: boolean;
      data?: { job_id: string };
      error?: { message: string };
    };
    if (!started.ok || !started.data) throw new Error(started.error?.message ?? "the server did not start the job");
    const end = await Promise.race([done, exited.then(() => undefined)]);
    if (!end) throw new Error("the language server exited before the job finished");
    const job = (await conn.sendRequest("workspace/executeCommand", { command: "lockstep.job", arguments: [{ job_id: started.data.job_id }] })) as { data?: Record<string, unknown> };
    const kept = await offerUndo(conn, started.data.job_id, (job.data ?? {}) as JobView, options, io);
    return { status: end.status, job: job.data ?? {}, kept };
  } finally {
    await conn.sendRequest("shutdown").catch(() => undefined);
    await conn.sendNotification("exit").catch(() => undefined);
    conn.dispose();
    setTimeout(() => child.kill(), 1000).unref();
  }
}

/** A command line `lockstep ask` or `demo` cannot run: said with the option it names, the synopsis after it (exit 2). */
class AskUsage extends Error {}

async function askCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { root: { type: "string" }, yes: { type: "boolean" }, continue: { type: "boolean" }, resume: { type: "string" }, ...SETTINGS_OPTIONS },
  });
  if (values.continue && values.resume !== undefined) throw new AskUsage("give --continue (the newest session) or --resume ID, not both");
  const prompt = positionals.join(" ").trim();
  if (!prompt) {
    io.stderr('lockstep ask: say what to do, e.g. lockstep ask "fix the failing test in @src/app.ts"\n');
    return 2;
  }
  const root = path.resolve(values.root ?? process.cwd());
  const isDirectory = await stat(root).then((st) => st.isDirectory(), () => false);
  if (!isDirectory) throw new AskUsage(`--root ${values.root ?? root}: no such directory; give the workspace's directory`);
  if (values.provider !== undefined && !["gemini", "openai", "anthropic"].includes(values.provider)) {
    throw new AskUsage(`--provider ${values.provider}: not a provider; give gemini, openai (any OpenAI-compatible endpoint, with --base-url) or anthropic (Claude)`);
  }
  // The settings files, LOCKSTEP_* and the flags: every mistake is said now, in the words it was written in, before anything is sent.
  const loaded = loadSettings({ root, ...settingsFlags(values) });
  for (const p of loaded.problems.filter((p) => p.severity === "warning")) io.stderr(`lockstep ask: ${p.message}\n`);
  const errors = loaded.problems.filter((p) => p.severity === "error");
  if (errors.length > 0) throw new AskUsage(`${errors.map((p) => p.message).join("\n  ")}\n  (lockstep config shows the settings in force and where each came from)`);
  // Hunks are decided through an editor's code actions; the terminal asks for each change instead.
  const settings = loaded.settings.approval === "review" ? { ...loaded.settings, approval: "ask" as const } : loaded.settings;
  if (loaded.settings.approval === "review") io.stderr(dim(`lockstep ask: approval review (${originLabel(loaded.origins.approval)}) is for editors; the terminal asks before each change instead.\n`));
  // On a terminal each answer is one key; otherwise one line each from standard input (the end of it answers no).
  const prompter = values.yes ? undefined : new Prompter(process.stdin, io.stdout);
  try {
    const { status, job, kept } = await askThroughServer(
      {
        root,
        prompt,
        yes: values.yes ?? false,
        debug: settings.debug,
        settings: { ...settings },
        ...(prompter ? { prompter } : {}),
        ...(values.continue ? { resume: { latest: true as const } } : values.resume !== undefined ? { resume: { id: values.resume } } : {}),
      },
      io,
    );
    const usage = job["usage"] as Partial<Usage> | undefined;
    if (usage && (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0) > 0) {
      const cached = usage.cache_read_input_tokens === undefined ? "" : ` (${usage.cache_read_input_tokens} from cache, ${usage.cache_creation_input_tokens ?? 0} cached)`;
      io.stdout(`tokens: ${usage.input_tokens ?? 0} in${cached}, ${usage.output_tokens ?? 0} out\n`);
    }
    if (status === "done" && nothingLanded(job as JobView)) {
      io.stderr(red("lockstep ask: no change landed: every change the agent proposed was rejected or failed.\n"));
      return 1;
    }
    if (kept === "no-answer") return 1;
    return status === "done" ? 0 : 1;
  } finally {
    prompter?.close();
  }
}

export async function runTerminalClient(command: string, args: string[], io: Io): Promise<number> {
  try {
    if (command === "demo") {
      const { runDemo } = await import("./demo.js");
      return await runDemo(args, io);
    }
    if (command === "config") {
      const { configCommand } = await import("./config-command.js");
      return await configCommand(args, io, (message) => new AskUsage(message));
    }
    return await askCommand(args, io);
  } catch (error) {
    return reportFailure(command, error, error instanceof AskUsage, io.stderr);
  }
}

/** A fresh copy of a directory in the temp folder. */
export async function copyToTemp(source: string, prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  await cp(source, dir, { recursive: true });
  return dir;
}

export { packageRoot };
