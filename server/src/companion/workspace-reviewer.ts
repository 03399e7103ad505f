// openDiff's reviewer over the session's workspace: the agent's proposal is
// rebased onto the buffer, staged for review hunk by hunk, and the agent hears
// the text the editor reports once the user has decided every hunk: with the
// hunks taken, and without the others.
//
// The agent built its proposal on the disk's text. When the buffer holds unsaved
// typing, each hunk of the change (disk → proposal) is placed on the buffer past
// the typing (edit/merge), and a hunk over lines the user typed is refused, never forced.
import { changeHunks } from "../edit/merge/hunks.js";
import { placeAll } from "../edit/merge/rebase.js";
import type { Journal } from "../review/journal.js";
import type { Approver } from "../review/proposal.js";
import { invokeTool } from "../tools/registry.js";
import type { ToolContext } from "../tools/tool.js";
import { readTextFile } from "../workspace/disk.js";
import type { Workspace } from "../workspace/workspace.js";
import type { CurrentText, DiffOutcome, DiffReviewer } from "./diff-desk.js";

/**
 * How long ide/diffAccepted waits for the editor to report the applied text (eglot reports on a
 * 0.5 s idle timer). Longer than the workspace keeps an unconfirmed claim (3 s by default): an
 * editor that claimed and never applied is then read as it really is.
 */
const CONFIRM_WAIT_MS = 4000;

export interface ReviewerDeps {
  workspace: Workspace;
  /** Stages one proposal for review (the tool name in the change is "openDiff"). */
  approve: Approver;
  /** What lands is journaled like any change, so it can be reverted. */
  journal?: Journal;
  /** Tells the user why a proposal was not staged. */
  warn: (message: string) => void;
}

export function workspaceReviewer({ workspace, approve, journal, warn }: ReviewerDeps): DiffReviewer {
  const current = async (filePath: string): Promise<CurrentText | null | { error: string }> => {
    const resolved = await workspace.resolve(filePath, "write");
    if (!resolved.ok) return { error: resolved.error.message };
    const read = await workspace.read(resolved.value);
    if (read.ok) return { content: read.value.content, sha256: read.value.sha256 };
    return read.error.code === "not_found" ? null : { error: read.error.message };
  };

  /** The proposal as it applies to the buffer: unchanged when the buffer is the disk's text. */
  const rebase = async (
    filePath: string,
    buffer: string,
    proposal: string,
  ): Promise<{ content: string } | { error: string }> => {
    const resolved = await workspace.resolve(filePath, "read");
    const disk = resolved.ok && resolved.value.exists ? await readTextFile(resolved.value.abs) : undefined;
    if (!disk?.ok || disk.value.content === buffer) return { content: proposal };
    const placed = placeAll(disk.value.content, buffer, changeHunks(disk.value.content, proposal));
    return placed.ok
      ? { content: placed.text }
      : {
          error: `hunk ${placed.hunk + 1} of the proposal does not fit the unsaved buffer: ${placed.error.message}`,
        };
  };

  /** The one step that stages and waits for the decision; a per-hunk review would take its place. */
  const stage = async (
    filePath: string,
    base: CurrentText | null,
    proposal: string,
    signal: AbortSignal,
  ): Promise<DiffOutcome> => {
    const ctx: ToolContext = {
      workspace,
      signal,
      approve: (change, s) =>
        approve(Object.assign(Object.create(change) as typeof change, { tool: "openDiff" }), s),
      ...(journal ? { journal } : {}),
    };
    const result = await invokeTool(
      "write_file",
      { file_path: filePath, content: proposal, ...(base ? { base_content_sha256: base.sha256 } : {}) },
      ctx,
    );
    if (!result.ok) {
      // The user declined or the agent withdrew it: nothing to say. Anything else the user should hear.
      if (result.error.code !== "rejected" && result.error.code !== "cancelled")
        warn(`lockstep: an agent's proposal for ${filePath} was not staged: ${result.error.message}`);
      return { status: "rejected", message: result.error.message };
    }
    const state = result.data["latest_file_state"] as { content?: unknown } | undefined;
    if (typeof state?.content !== "string")
      return { status: "rejected", message: "no file state in the result" };
    return { status: "accepted", content: await confirmed(filePath, state.content) };
  };

  // The editor's reply to an edit is a claim (Neovim answers applied: true for an edit it skipped);
  // its next report is the truth. The agent hears the text the buffer reports, once it does.
  const confirmed = async (filePath: string, delivered: string): Promise<string> => {
    const until = Date.now() + CONFIRM_WAIT_MS;
    const resolved = await workspace.resolve(filePath, "read");
    if (!resolved.ok) return delivered;
    for (;;) {
      const read = await workspace.read(resolved.value);
      if (!read.ok || !read.value.open) return delivered;
      if (read.value.unconfirmed !== true) return read.value.content;
      if (Date.now() > until) return delivered;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  const review = async (
    { filePath, content }: { filePath: string; content: string },
    signal: AbortSignal,
  ): Promise<DiffOutcome> => {
    const now = await current(filePath);
    if (now !== null && "error" in now) return { status: "rejected", message: now.error };
    if (now === null) return stage(filePath, null, content, signal);
    const rebased = await rebase(filePath, now.content, content);
    if ("error" in rebased) {
      warn(`lockstep: an agent's proposal for ${filePath} was not staged: ${rebased.error}`);
      return { status: "rejected", message: rebased.error };
    }
    return stage(filePath, now, rebased.content, signal);
  };

  return { current, review };
}
