// run_command: a thin entry over commands/. Validate (the command, a cwd inside the root, the
// timeout), choose the sandbox, approve (command-approval.ts), make sure the command sees the
// conversation's text (unsaved buffers saved where the editor can, else named), run it, and
// name the files the conversation was shown that it changed (their old sha256 is stale now).
import * as z from "zod";
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, runCommand, type RunResult } from "../commands/index.js";
import { keyVariables, namedKeySecrets } from "../config/key-variables.js";
import { readTextFile } from "../workspace/disk.js";
import type { ResolvedPath } from "../workspace/sandbox.js";
import { approveCommand, chooseSandbox, questionFor, reviewCommand } from "./command-approval.js";
import type { CommandAccess } from "./command-question.js";
import { errorEnvelope, failureEnvelope, okEnvelope, type Envelope } from "./envelope.js";
import { defineTool, type ToolContext } from "./tool.js";
import { existsSync } from "node:fs";
import path from "node:path";
import { sha256 } from "../edit/shared/text.js";

/** Longer is not a command a person could read in a question. */
const MAX_COMMAND = 16_000;
/** Files of the conversation checked for changes by the command: the most recently shown first. */
const WATCHED_FILES = 300;

const OFF =
  'run_command is off: the `commands` setting is "off". Set it to "ask" (the default) to let the agent run commands with approval.';

export const runCommandTool = defineTool({
  name: "run_command",
  kind: "execute",
  description:
    "Run a shell command in the project (bash, non-interactive: standard input is closed, no pager, no colour) and get its exit code and output (stdout and stderr together; a long output keeps its head and tail). " +
    "Use it to run the project's tests, build, type checker and linter after changing code, and to inspect things only a command can tell (git status, git log). " +
    "Never use it to read or change files (no cat, sed -i, echo >, tee): read_file and the editing tools keep each file's version, and a file changed behind them goes stale. " +
    "The user may be asked to approve each command; a rejected one returns `rejected`. It usually runs in a sandbox: only the project is writable, no network. " +
    "Keep commands short and non-interactive (pass --yes/--no-watch flags); timeout_ms defaults to 120000, at most 600000.",
  available: (conditions) => conditions.commands === true,
  unavailable: OFF,
  params: z
    .object({
      command: z
        .string()
        .max(MAX_COMMAND, `must be at most ${MAX_COMMAND} characters: run a script file instead`)
        .refine((c) => c.trim() !== "", "must not be empty")
        .refine((c) => !c.includes("\0"), "must not contain a NUL byte")
        .describe("The shell command line, e.g. `npm test` or `cargo test -p core`."),
      cwd: z
        .string()
        .min(1)
        .optional()
        .describe("Directory to run it in, relative to the project root (default: the root)."),
      timeout_ms: z
        .number()
        .int()
        .positive()
        .max(MAX_TIMEOUT_MS)
        .optional()
        .describe(`Kill it after this long (default ${DEFAULT_TIMEOUT_MS}).`),
    })
    .strict(),
  async run(args, ctx) {
    const access = ctx.commands;
    if (access === undefined || access.settings().commands === "off")
      return errorEnvelope("invalid_argument", OFF);
    const settings = access.settings();
    const dir = await ctx.workspace.resolve(args.cwd ?? ".", "list");
    if (!dir.ok) return failureEnvelope(dir.error);
    const review = reviewCommand(args.command);
    const sandbox = await chooseSandbox(settings, review);
    if (sandbox.backend === undefined && sandbox.refused !== undefined)
      return errorEnvelope("permission_denied", `Not run: ${sandbox.refused}.`, [
        'Set sandbox to "auto" to run commands unsandboxed where there is none.',
      ]);
    const question = questionFor(args.command, dir.value.rel, review, sandbox, settings, ctx.jobId);
    const verdict = await approveCommand(access, question, review, ctx.signal);
    if (!verdict.run) {
      if (ctx.signal.aborted) return errorEnvelope("cancelled", "Cancelled before the command ran.");
      if (verdict.why === "rejected")
        return errorEnvelope(
          "rejected",
          verdict.reason !== undefined
            ? `The user rejected running \`${args.command}\`. The user said: ${JSON.stringify(verdict.reason)} Do what the user said instead; do not run it again.`
            : `The user rejected running \`${args.command}\`. Do not run it again; ask the user, or go on without it.`,
        );
      return errorEnvelope(
        "permission_denied",
        `\`${args.command}\` was not run: it needs the user's approval, and this editor cannot ask for it now.`,
        [
          "Tell the user the command; they can run it themselves, or allow its prefix with the allowedCommands setting.",
        ],
      );
    }
    const unsaved = await saveConversationFiles(ctx);
    const before = await diskHashes(ctx);
    const root = dir.value.root;
    const dotGit = path.join(root, ".git");
    access.started?.(ctx.jobId, args.command);
    // The door's own runner where it has one (an ACP client's terminal), with the same sandbox and environment.
    const run = access.run?.() ?? runCommand;
    const result = await run({
      command: args.command,
      cwd: dir.value.abs,
      timeoutMs: args.timeout_ms ?? DEFAULT_TIMEOUT_MS,
      signal: ctx.signal,
      env: process.env,
      remove: keyVariables(settings.apiKeyEnv),
      secrets: namedKeySecrets(settings.apiKeyEnv),
      ...(access.redact ? { redact: access.redact } : {}),
      ...(sandbox.backend
        ? {
            sandbox: {
              backend: sandbox.backend,
              policy: {
                root,
                readOnly: existsSync(dotGit) ? [dotGit] : [],
                network: settings.sandboxNetwork,
              },
            },
          }
        : {}),
      onOutput: (text) => access.output?.(ctx.jobId, text),
    });
    const changed = await changedSince(before);
    return envelopeOf(args.command, dir.value.rel, result, unsaved, changed, verdict.asked);
  },
});

/** A file the command will not see as the editor holds it, and why the editor did not save it, where it said. */
interface Unsaved {
  rel: string;
  why?: string;
}

/** The files the model was shown whose buffer the disk lacks: saved where the editor can, else named. */
async function saveConversationFiles(ctx: ToolContext): Promise<Unsaved[]> {
  const paths: ResolvedPath[] = [];
  for (const rel of conversationFiles(ctx)) {
    const r = await ctx.workspace.resolve(rel, "read");
    if (r.ok) paths.push(r.value);
  }
  let unsaved = await ctx.workspace.unsaved(paths);
  const saved = unsaved.length > 0 ? await ctx.workspace.save(unsaved, ctx.signal) : false;
  if (saved !== false) unsaved = await ctx.workspace.unsaved(unsaved);
  return unsaved.map((p) => {
    const why = saved === false ? undefined : saved.get(p.rel);
    return why === undefined ? { rel: p.rel } : { rel: p.rel, why };
  });
}

async function diskHashes(ctx: ToolContext): Promise<Map<string, { abs: string; sha: string | null }>> {
  const out = new Map<string, { abs: string; sha: string | null }>();
  for (const rel of conversationFiles(ctx)) {
    const r = await ctx.workspace.resolve(rel, "read");
    if (r.ok) out.set(rel, { abs: r.value.abs, sha: await diskSha(r.value.abs) });
  }
  return out;
}

/** The files the model was shown or wrote in this conversation, the most recent last, at most WATCHED_FILES. */
function conversationFiles(ctx: ToolContext): string[] {
  const all = new Set([
    ...(ctx.conversation?.filesInContext ?? []),
    ...(ctx.conversation?.seenSha256?.keys() ?? []),
  ]);
  return [...all].slice(-WATCHED_FILES);
}

async function diskSha(abs: string): Promise<string | null> {
  const text = await readTextFile(abs);
  return text.ok ? sha256(text.value.content) : null;
}

async function changedSince(before: Map<string, { abs: string; sha: string | null }>): Promise<string[]> {
  const changed: string[] = [];
  for (const [rel, { abs, sha }] of before) if ((await diskSha(abs)) !== sha) changed.push(rel);
  return changed;
}

function envelopeOf(
  command: string,
  cwd: string,
  r: RunResult,
  unsaved: Unsaved[],
  changed: string[],
  asked: boolean,
): Envelope {
  const seconds = (r.duration_ms / 1000).toFixed(1);
  const how = r.signal !== null ? `was ended by ${r.signal}` : `exited with code ${r.exit_code}`;
  const data: Record<string, unknown> = {
    command,
    cwd,
    exit_code: r.exit_code,
    signal: r.signal,
    duration_ms: r.duration_ms,
    sandboxed: r.sandboxed,
    output: r.output,
    output_omitted_characters: r.omitted_characters,
    approved_by_user: asked,
  };
  const notes: string[] = [];
  if (unsaved.length > 0) {
    data["unsaved_files"] = unsaved.map((u) => u.rel);
    const named = unsaved.map((u) => (u.why === undefined ? u.rel : `${u.rel} (the editor said: ${u.why})`));
    notes.push(
      `It did not see the unsaved editor text of ${named.join(", ")} (the disk holds an older version).`,
    );
  }
  if (changed.length > 0) {
    data["changed_files"] = changed;
    notes.push(
      `It changed ${changed.join(", ")}: the states you hold of them are stale; read them again before changing them.`,
    );
  }
  const tail = notes.length > 0 ? ` ${notes.join(" ")}` : "";
  if (r.start_error !== undefined)
    return errorEnvelope("io_error", `The command could not be started: ${r.start_error}.`, [], data);
  if (r.timed_out)
    return errorEnvelope(
      "timeout",
      `The command timed out after ${seconds} s and was killed with everything it started; output until then is in data.output.${tail}`,
      ["Run a narrower command, or pass a larger timeout_ms (at most 600000)."],
      data,
    );
  if (r.cancelled)
    return errorEnvelope(
      "cancelled",
      `The command was cancelled after ${seconds} s and killed with everything it started.${tail}`,
      [],
      data,
    );
  data["message"] = `The command ${how} after ${seconds} s${r.sandboxed ? " (sandboxed)" : ""}.${tail}`;
  return okEnvelope(data);
}

export type { CommandAccess };
