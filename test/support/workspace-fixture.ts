// A real workspace in a temporary directory, for tests of the tools layer: the
// files a test names are written to disk, and the ToolContext it gets back runs
// the tools on them through a real Sandbox and Workspace (disk delivery, no
// editor). Cleanup is registered on the running test.
import { createHash } from "node:crypto";
import { promises as fs, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { onTestFinished } from "vitest";
import type { Envelope } from "../../server/src/tools/envelope.js";
import { invokeTool } from "../../server/src/tools/registry.js";
import type { CommandAccess } from "../../server/src/tools/command-question.js";
import type { ApprovalDecision, ProposedChange } from "../../server/src/review/proposal.js";
import type { DiagnosticsView } from "../../server/src/diagnostics/types.js";
import type { ConversationContext, EditCorrector, ToolContext } from "../../server/src/tools/tool.js";
import { Sandbox } from "../../server/src/workspace/sandbox.js";
import { Workspace } from "../../server/src/workspace/workspace.js";

/** Hex SHA-256 computed independently of the code under test. */
export function sha256Of(content: string | Uint8Array): string {
  return createHash("sha256").update(content).digest("hex");
}

export const EMPTY_SHA256 = sha256Of("");

/** Text whose every line ends with `\n`: `lines("a", "b")` is `"a\nb\n"`. */
export function lines(...items: string[]): string {
  return items.map((l) => l + "\n").join("");
}

/** Files to create: workspace-relative path → text (UTF-8) or raw bytes. */
export type FileTree = Record<string, string | Uint8Array>;

/** Writes each file of `tree` under `dir`, making parent directories. */
export async function writeTree(dir: string, tree: FileTree): Promise<void> {
  for (const [rel, content] of Object.entries(tree)) {
    const abs = path.join(dir, rel);
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, content);
  }
}

/** A fresh temporary directory (real path), removed when the current test finishes. */
export function tempDir(prefix = "lockstep-test-"): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  onTestFinished(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });
  return dir;
}

export interface FixtureOptions {
  /** The user's answer to every approval prompt (default "apply"). */
  approve?: ApprovalDecision;
  /** Paths already in the conversation's context; giving this (even empty) turns it on. */
  conversation?: string[];
  corrector?: EditCorrector;
  signal?: AbortSignal;
  /** A wrapped server's diagnostics: the workspace is then in wrap mode (get_diagnostics exists). */
  diagnostics?: DiagnosticsView;
  /** What run_command needs: run_command exists then. */
  commands?: CommandAccess;
}

export interface WorkspaceFixture {
  /** Real path of the workspace root. */
  root: string;
  /** Real path of the directory holding the root: files there are outside the workspace. */
  parent: string;
  ctx: ToolContext;
  /** Every change a tool asked approval for, in order. */
  approvals: ProposedChange[];
  /** Runs a tool through the registry (validation included) in this workspace. */
  call(tool: string, args: unknown): Promise<Envelope>;
  abs(rel: string): string;
  text(rel: string): Promise<string>;
  bytes(rel: string): Promise<Buffer>;
  exists(rel: string): Promise<boolean>;
  /** Writes a file outside the root (beside it) and returns its absolute path. */
  outside(name: string, content: string): Promise<string>;
}

export async function makeWorkspace(
  tree: FileTree = {},
  options: FixtureOptions = {},
): Promise<WorkspaceFixture> {
  const parent = await fs.realpath(tempDir("lockstep-ws-"));
  const root = path.join(parent, "workspace");
  await fs.mkdir(root);
  await writeTree(root, tree);

  const approvals: ProposedChange[] = [];
  const conversation: ConversationContext | undefined = options.conversation
    ? { filesInContext: new Set(options.conversation) }
    : undefined;
  const ctx: ToolContext = {
    workspace: new Workspace(await Sandbox.create([root])),
    signal: options.signal ?? new AbortController().signal,
    approve: async (change) => {
      approvals.push(change);
      return options.approve ?? "apply";
    },
    ...(conversation ? { conversation } : {}),
    ...(options.corrector ? { corrector: options.corrector } : {}),
    ...(options.diagnostics ? { diagnostics: options.diagnostics } : {}),
    ...(options.commands ? { commands: options.commands } : {}),
    conditions: {
      ...(options.diagnostics ? { wrapped: true } : {}),
      ...(options.commands ? { commands: true } : {}),
    },
  };

  const abs = (rel: string): string => path.join(root, rel);
  return {
    root,
    parent,
    ctx,
    approvals,
    call: (tool, args) => invokeTool(tool, args, ctx),
    abs,
    text: (rel) => fs.readFile(abs(rel), "utf8"),
    bytes: (rel) => fs.readFile(abs(rel)),
    exists: (rel) =>
      fs.access(abs(rel)).then(
        () => true,
        () => false,
      ),
    outside: async (name, content) => {
      const file = path.join(parent, name);
      await fs.writeFile(file, content);
      return file;
    },
  };
}

/** The `data.latest_file_state` of an envelope, or a thrown error naming what came back instead. */
export function latestState(envelope: Envelope): {
  file_path: string;
  version: number | null;
  sha256: string;
  content: string;
} {
  const state = envelope.data?.["latest_file_state"];
  if (typeof state !== "object" || state === null)
    throw new Error(`no latest_file_state in ${JSON.stringify(envelope)}`);
  return state as { file_path: string; version: number | null; sha256: string; content: string };
}
