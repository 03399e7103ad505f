// Code actions that need no model: edit blocks in a buffer, and a patch in a
// .diff/.patch buffer or a fenced ```diff block. Each carries a `command` with
// its arguments, which Neovim, Helix and eglot all run.
import type { CodeAction, Command } from "vscode-languageserver";
import { CodeActionKind } from "vscode-languageserver";
import { countEditBlocks } from "../edit/blocks/edit-blocks.js";
import { parseUnifiedDiff } from "../edit/patch/diff-parse.js";
import { hasEnvelope, parseEnvelope } from "../edit/changeset/envelope-parse.js";
import { parseMultiFileDiff } from "../edit/changeset/multi-diff.js";
import { COMMAND_PREFIX } from "./commands.js";

function action(title: string, kind: string, command: string, argument: unknown): CodeAction {
  const cmd: Command = { title, command: COMMAND_PREFIX + command, arguments: [argument] };
  return { title, kind, command: cmd };
}

export function editBlockActions(text: string): CodeAction[] {
  const n = countEditBlocks(text);
  if (n === 0) return [];
  const blocks = `${n} edit block${n > 1 ? "s" : ""}`;
  return [
    action(`Apply ${blocks}`, CodeActionKind.Source, "apply_edit_blocks", { text }),
    action(`Check ${blocks} (dry run)`, CodeActionKind.Source, "apply_edit_blocks", { text, dry_run: true }),
  ];
}

/** An apply_patch envelope in a buffer (a model's answer, a pasted patch): applied across files, all or none. */
export function envelopeActions(text: string): CodeAction[] {
  if (!hasEnvelope(text)) return [];
  const ops = parseEnvelope(text);
  if (!ops.ok) return [];
  const files = `${ops.value.length} file${ops.value.length > 1 ? "s" : ""}`;
  return [
    action(`Apply apply_patch envelope (${files}, all or none)`, CodeActionKind.Source, "apply_patch", {
      input: text,
    }),
    action(`Check apply_patch envelope (${files}, dry run)`, CodeActionKind.Source, "apply_patch", {
      input: text,
      dry_run: true,
    }),
  ];
}

const FENCED_DIFF = /^```(?:diff|patch)[^\n]*\n([\s\S]*?)^```/gm;

/** The patches a buffer holds: the whole buffer when it is a .diff/.patch, else its fenced diff blocks. */
export function patchTexts(uri: string, languageId: string, text: string): string[] {
  if (/\.(diff|patch)$/.test(uri) || languageId === "diff") return [text];
  const out: string[] = [];
  for (const m of text.matchAll(FENCED_DIFF)) out.push(m[1]!);
  return out;
}

/**
 * "Apply patch to FILE" for each patched file named in the buffer. The base is
 * the target's state now (`shaOf`); if it changes before the user picks the
 * action, the hash check refuses it, as it should.
 */
export async function patchActions(
  uri: string,
  languageId: string,
  text: string,
  shaOf: (filePath: string) => Promise<{ file_path: string; sha256: string } | undefined>,
): Promise<CodeAction[]> {
  const actions: CodeAction[] = [];
  for (const diff of patchTexts(uri, languageId, text)) {
    const parsed = parseUnifiedDiff(diff);
    if (!parsed.ok) continue;
    // A diff across files: the whole change (all or none), and each file's own section on its own.
    const sections = parseMultiFileDiff(diff);
    const several = sections.ok && sections.value.length > 1;
    const sectionOf = new Map<string, string>();
    if (sections.ok && several) {
      for (const op of sections.value)
        if (op.op === "update" && op.body?.kind === "diff" && !op.moveTo)
          sectionOf.set(op.path.path, op.body.text);
      actions.push(
        action(
          `Apply the change to ${sections.value.length} files (all or none)`,
          CodeActionKind.Source,
          "apply_patch",
          { input: diff },
        ),
      );
    }
    for (const patch of parsed.value) {
      const target = patch.newPath ?? patch.oldPath;
      if (target === undefined) continue;
      const state = await shaOf(target);
      if (!state || (several && !sectionOf.has(target))) continue;
      actions.push(
        action(`Apply patch to ${state.file_path}`, CodeActionKind.Source, "safe_patch", {
          file_path: state.file_path,
          unified_diff: sectionOf.get(target) ?? diff,
          base_content_sha256: state.sha256,
        }),
      );
    }
  }
  return actions;
}
