// The project's own instructions for agents: AGENTS.md at the workspace root,
// else GEMINI.md, up to 64 KB, read at the start of every run (so an edit to it,
// saved or not, counts from the next run: the open buffer wins, as for any read).
import type { Workspace } from "../workspace/workspace.js";

export const INSTRUCTION_FILES = ["AGENTS.md", "GEMINI.md"] as const;
export const MAX_INSTRUCTION_BYTES = 64 * 1024;

export interface ProjectInstructions {
  file_path: string;
  text: string;
  /** The file was longer than the limit; `text` is its beginning. */
  truncated: boolean;
}

/** The first instruction file that exists at the first root, as the user sees it; undefined when none can be read. */
export async function readProjectInstructions(
  workspace: Workspace,
): Promise<ProjectInstructions | undefined> {
  for (const name of INSTRUCTION_FILES) {
    const resolved = await workspace.resolve(name, "read");
    if (!resolved.ok || !resolved.value.exists) continue;
    const state = await workspace.read(resolved.value);
    if (!state.ok) continue;
    const bytes = Buffer.from(state.value.content, "utf8");
    if (bytes.length <= MAX_INSTRUCTION_BYTES)
      return { file_path: state.value.file_path, text: state.value.content, truncated: false };
    // Cut on a character boundary: a partial UTF-8 sequence at the end decodes to U+FFFD, dropped.
    const text = bytes
      .subarray(0, MAX_INSTRUCTION_BYTES)
      .toString("utf8")
      .replace(/\uFFFD$/, "");
    return { file_path: state.value.file_path, text, truncated: true };
  }
  return undefined;
}

/** The instructions as a section of the system instruction. */
export function instructionsSection(found: ProjectInstructions | undefined): string | undefined {
  if (!found) return undefined;
  const cut = found.truncated
    ? `\n\n(${found.file_path} is longer than ${MAX_INSTRUCTION_BYTES / 1024} KB; only its beginning is shown.)`
    : "";
  return `Project instructions from ${found.file_path} (written by the project's people for agents; follow them unless they conflict with the rules above):\n\n${found.text.trim()}${cut}`;
}
