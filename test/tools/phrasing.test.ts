// One error, phrased for its reader: a model hears tools and parameters, a
// person at a shell hears commands and options. The reader is the tool
// context's; the messages are written once.
import { describe, expect, it } from "vitest";
import { errorEnvelope } from "../../server/src/tools/envelope.js";
import { phrasedFor } from "../../server/src/tools/phrasing.js";
import { invokeTool } from "../../server/src/tools/registry.js";
import { makeWorkspace } from "../support/workspace-fixture.js";

const TOOL_WORDS =
  /\b(read_file|read_many_files|list_files|safe_patch|write_file|search_files|find_files|apply_edit_blocks|base_content_sha256|old_string|new_string|unified_diff|file_path)\b/;

describe("phrasedFor", () => {
  const envelope = errorEnvelope(
    "state_mismatch",
    "State Mismatch: re-read the file with read_file; pass its sha256 as base_content_sha256.",
    ["Call list_files to see which files exist.", "Or use search_files, find_files or safe_patch."],
  );

  it("leaves a model's envelope as it is", () => {
    expect(phrasedFor(envelope, "model")).toBe(envelope);
  });

  it("names commands and options for a shell, and keeps the code and data", () => {
    const shell = phrasedFor(envelope, "shell");
    expect(shell.ok).toBe(false);
    if (shell.ok) return;
    expect(shell.error.code).toBe("state_mismatch");
    expect(shell.error.message).toBe(
      "State Mismatch: re-read the file with lockstep read; pass its sha256 as --base-sha256.",
    );
    expect(shell.error.suggestions).toEqual([
      "List the directory (ls) to see which files exist.",
      "Or use lockstep search, lockstep find or lockstep apply-patch.",
    ]);
  });
});

describe("invokeTool honours the context's reader", () => {
  it.each([
    ["safe_patch", { file_path: "a.txt" }],
    ["edit", { file_path: "missing.txt", old_string: "x", new_string: "y" }],
    ["read_file", { file_path: "nope.txt" }],
  ])("%s: the model hears tools, the shell hears commands, for the same failure", async (tool, args) => {
    const ws = await makeWorkspace({ "a.txt": "one\n" });
    const model = await invokeTool(tool, args, ws.ctx);
    const shell = await invokeTool(tool, args, { ...ws.ctx, reader: "shell" });
    expect(model.ok || shell.ok).toBe(false);
    if (model.ok || shell.ok) return;
    expect(shell.error.code).toBe(model.error.code);
    expect(JSON.stringify(model.error)).toMatch(TOOL_WORDS);
    expect(JSON.stringify(shell.error)).not.toMatch(TOOL_WORDS);
  });

  it("a schema failure tells the shell to look at --help", async () => {
    const ws = await makeWorkspace({});
    const shell = await invokeTool("safe_patch", {}, { ...ws.ctx, reader: "shell" });
    expect(shell).toMatchObject({
      ok: false,
      error: { suggestions: ["Run the command again with the arguments its --help shows."] },
    });
  });
});
