// The store from the shell: `lockstep sessions` (list, `--json`), `sessions rm ID`,
// `sessions prune --days N`, `lockstep revert [RUN]`; and `ask --continue` /
// `--resume ID`, which ask the spawned server to resume before the prompt. The
// store is read directly (no server) except for a resume.
import { loadSettings } from "../config/load-settings.js";
import { realpathSync } from "node:fs";
import { parseArgs } from "node:util";
import { createPatch } from "diff";
import type { MessageConnection } from "vscode-jsonrpc/node.js";
import {
  findRun,
  keySecrets,
  revertStoredRun,
  SessionStore,
  stateDirectory,
  type SessionSummary,
} from "../sessions/index.js";
import { Sandbox } from "../workspace/sandbox.js";
import { Workspace } from "../workspace/workspace.js";
import { UsageError, type Io } from "./io.js";
import { Prompter } from "./prompt.js";

function storeFor(root: string | undefined): SessionStore {
  let real: string;
  try {
    real = realpathSync(root ?? process.cwd());
  } catch {
    throw new UsageError(`--root ${root ?? process.cwd()}: no such directory; give the project's directory`);
  }
  // The same settings files `lockstep ask` reads: a project's `sessionsDir` is where its sessions are.
  const { settings } = loadSettings({ root: real });
  return new SessionStore(real, stateDirectory(settings.sessionsDir), () => keySecrets(settings.apiKeyEnv));
}

const when = (iso: string): string => iso.replace("T", " ").slice(0, 16);

function row(s: SessionSummary): string {
  const tokens = s.usage.input_tokens + s.usage.output_tokens;
  const files = s.files_changed.length === 1 ? "1 file" : `${s.files_changed.length} files`;
  return `${s.id}  ${when(s.updated)}  ${String(s.turns).padStart(3)} turns  ${files.padStart(8)}  ${String(tokens).padStart(7)} tokens  ${s.live === null ? "" : `(live, pid ${s.live}) `}${s.title}`;
}

export async function sessionsCommand(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] =
    args[0] === "rm" || args[0] === "prune" || args[0] === "list" ? args : ["list", ...args];
  if (sub === "rm") {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { root: { type: "string" }, yes: { type: "boolean" } },
    });
    if (positionals.length !== 1) throw new UsageError("sessions rm takes exactly one session ID");
    const store = storeFor(values.root);
    const id = store.resolveId(positionals[0]!);
    if (!id.ok) return fail(io, id.message);
    // A prefix is confirmed: the whole id is what gets deleted.
    if (
      id.value !== positionals[0] &&
      !values.yes &&
      !(await confirm(`Delete session ${id.value}? [y]es / [N]o: `))
    ) {
      return fail(
        io,
        `'${positionals[0]}' names session ${id.value}; nothing was deleted. Give the whole id (or --yes) to delete it${process.stdin.isTTY ? "" : " without a terminal to ask"}.`,
      );
    }
    const removed = store.delete(id.value);
    if (!removed.ok) return fail(io, removed.message);
    io.stdout(`Deleted session ${removed.value}.\n`);
    return 0;
  }
  if (sub === "prune") {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { root: { type: "string" }, days: { type: "string" } },
    });
    if (positionals.length > 0 || values.days === undefined || !/^\d+$/.test(values.days)) {
      throw new UsageError(
        "sessions prune takes --days N (a whole number): sessions unchanged for longer are deleted",
      );
    }
    const removed = storeFor(values.root).prune(Number(values.days));
    io.stdout(
      removed.length === 0
        ? `No session is older than ${values.days} days.\n`
        : `Deleted ${removed.length} session(s): ${removed.join(", ")}\n`,
    );
    return 0;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { root: { type: "string" }, json: { type: "boolean" } },
  });
  if (positionals.length > 0)
    throw new UsageError(
      `unknown sessions command '${positionals[0]}'; use: sessions [--json], sessions rm ID, sessions prune --days N`,
    );
  const store = storeFor(values.root);
  const { sessions, skipped } = store.list();
  if (values.json) {
    io.stdout(JSON.stringify({ ok: true, data: { folder: store.folder, sessions, skipped } }) + "\n");
    return 0;
  }
  for (const s of skipped) io.stderr(`skipped ${s.file}: ${s.reason}\n`);
  if (sessions.length === 0) io.stdout(`No stored session for ${store.realRoot}.\n`);
  for (const s of sessions) io.stdout(row(s) + "\n");
  return 0;
}

/**
 * A yes from the person at the terminal, one key as ask's questions take; no terminal is a no,
 * and so are Enter, n, Ctrl-C and Ctrl-D.
 */
async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const prompter = new Prompter(process.stdin, (s) => process.stdout.write(s));
  const answer = await prompter.choose(question, ["y", "n"], "n").finally(() => prompter.close());
  return "key" in answer && answer.key === "y";
}

function fail(io: Io, message: string): number {
  io.stderr(`${message}\n`);
  return 1;
}

/** `lockstep revert [RUN]`: shows what the run changed and will be undone, asks (or --yes), reverts by content on disk. */
export async function revertCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { root: { type: "string" }, yes: { type: "boolean" }, session: { type: "string" } },
  });
  if (positionals.length > 1)
    throw new UsageError("revert takes at most one RUN (a job id; the last run by default)");
  const store = storeFor(values.root);
  const found = findRun(store, positionals[0], values.session);
  if (!found.ok) return fail(io, found.message);
  const { session, run } = found.value;
  const entries = session.journal.filter((e) => e.job_id === run.job_id);
  if (entries.length === 0)
    return fail(io, `Run ${run.job_id} of session ${session.header.id} has no change left to revert.`);
  io.stdout(
    `Run ${run.job_id} of session ${session.header.id} (${when(run.started)}): ${run.prompt.split("\n")[0]}\nWhat reverting it undoes:\n`,
  );
  for (const file of new Set(entries.map((e) => e.file_path))) {
    const mine = entries.filter((e) => e.file_path === file);
    const before = mine[0]!.before;
    const after = mine[mine.length - 1]!.after;
    if (before === null) {
      io.stdout(`\n${file}: created by the run; deleted if it is still as the run left it\n`);
      continue;
    }
    const undoing = createPatch(file, after, before, "now", "before the run", { context: 2 });
    io.stdout(`\n${undoing.split("\n").slice(2).join("\n")}`);
  }
  if (!values.yes) {
    if (!process.stdin.isTTY)
      return fail(
        io,
        "\nlockstep revert: no terminal to ask, so nothing was reverted. Run it again with --yes to revert without asking.",
      );
    if (!(await confirm("\nRevert it? [y]es / [N]o: "))) return fail(io, "Nothing was reverted.");
  }
  const workspace = new Workspace(await Sandbox.create([store.realRoot]));
  const reverted = await revertStoredRun(
    store,
    workspace,
    session.header.id,
    run.job_id,
    () => false,
    new AbortController().signal,
  );
  if (!reverted.ok) return fail(io, reverted.message);
  for (const f of reverted.value)
    io.stdout(`${f.status === "reverted" ? "↶" : f.status === "conflict" ? "✘" : "·"} ${f.message}\n`);
  return reverted.value.some((f) => f.status === "conflict") ? 1 : 0;
}

type Answer<T> = { ok: boolean; data?: T; error?: { message: string } };

function execute<T>(
  conn: MessageConnection,
  command: string,
  args: Record<string, unknown>,
): Promise<Answer<T>> {
  return conn.sendRequest("workspace/executeCommand", { command, arguments: [args] }) as Promise<Answer<T>>;
}

/** `ask --continue` (the newest session not live elsewhere) or `--resume ID`: the server resumes it before the prompt. */
export async function resumeThroughServer(
  conn: MessageConnection,
  resume: { latest: true } | { id: string },
  io: Io,
): Promise<void> {
  let id: string;
  if ("latest" in resume) {
    const listed = await execute<{ sessions: SessionSummary[] }>(conn, "lockstep.sessions", {});
    if (!listed.ok) throw new Error(listed.error?.message ?? "the server could not list the sessions");
    const newest = listed.data?.sessions.find((s) => s.live === null);
    if (!newest)
      throw new Error(
        "--continue: no stored session of this project to continue; run lockstep ask without it to start one",
      );
    id = newest.id;
  } else id = resume.id;
  const resumed = await execute<{ message: string }>(conn, "lockstep.resume", { session_id: id });
  if (!resumed.ok) throw new Error(resumed.error?.message ?? `session ${id} could not be resumed`);
  io.stderr(`${resumed.data?.message ?? `Resumed ${id}.`}\n`);
}
