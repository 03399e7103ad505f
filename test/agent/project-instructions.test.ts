// AGENTS.md (else GEMINI.md) at the root, as the user sees it, up to 64 KB.
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import {
  instructionsSection,
  MAX_INSTRUCTION_BYTES,
  readProjectInstructions,
} from "../../server/src/agent/project-instructions.js";
import { buildSystemPrompt } from "../../server/src/agent/system-prompt.js";
import { Sandbox } from "../../server/src/workspace/sandbox.js";
import type { EditorLink } from "../../server/src/workspace/editor-link.js";
import { Workspace } from "../../server/src/workspace/workspace.js";
import { tempDir, writeTree, type FileTree } from "../support/workspace-fixture.js";

async function workspace(tree: FileTree, buffers: Record<string, string> = {}): Promise<Workspace> {
  const root = tempDir();
  await writeTree(root, tree);
  const sandbox = await Sandbox.create([root]);
  const open = new Map(
    Object.entries(buffers).map(([rel, text]) => [
      pathToFileURL(`${sandbox.roots[0]}/${rel}`).href,
      { version: 3, text },
    ]),
  );
  const editor: EditorLink = {
    document: (uri) => open.get(uri),
    applyEdit: async () => ({ applied: false }),
    canApplyEdit: false,
    createFiles: false,
  };
  return new Workspace(sandbox, { editor });
}

describe("project instructions", () => {
  it.each<[name: string, tree: FileTree, file: string | undefined]>([
    ["AGENTS.md first", { "AGENTS.md": "Use tabs.\n", "GEMINI.md": "Use spaces.\n" }, "AGENTS.md"],
    ["GEMINI.md when there is no AGENTS.md", { "GEMINI.md": "Use spaces.\n" }, "GEMINI.md"],
    ["nothing when there is neither", { "README.md": "# x\n" }, undefined],
    ["nothing from a file only in a subdirectory", { "sub/AGENTS.md": "x\n" }, undefined],
  ])("reads %s", async (_name, tree, file) => {
    const found = await readProjectInstructions(await workspace(tree));
    expect(found?.file_path).toBe(file);
  });

  it("reads the open buffer's unsaved text, which wins over the disk", async () => {
    const found = await readProjectInstructions(
      await workspace({ "AGENTS.md": "saved\n" }, { "AGENTS.md": "unsaved rule\n" }),
    );
    expect(found?.text).toBe("unsaved rule\n");
    expect(buildSystemPrompt(instructionsSection(found))).toContain("Project instructions from AGENTS.md");
    expect(buildSystemPrompt(instructionsSection(found))).toContain("unsaved rule");
  });

  it("takes the first 64 KB of a longer file, on a character boundary, and says so", async () => {
    const found = await readProjectInstructions(
      await workspace({ "AGENTS.md": "a" + "é".repeat(MAX_INSTRUCTION_BYTES) }),
    );
    expect(found?.truncated).toBe(true);
    expect(Buffer.byteLength(found!.text)).toBe(MAX_INSTRUCTION_BYTES - 1);
    expect(found!.text).not.toContain("\uFFFD");
    expect(instructionsSection(found)).toMatch(/only its beginning is shown/);
  });
});
