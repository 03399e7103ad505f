// The apply_patch tool in a conversation and as the model sees it: bases are the
// files as the model last received them, approvals come before any write, and
// the tool is offered to OpenAI models only when the settings ask.
import { writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { patchToolCondition } from "../../server/src/tools/apply-patch-tool.js";
import { functionDeclarations } from "../../server/src/tools/registry.js";
import { makeWorkspace } from "../support/workspace-fixture.js";

const ENVELOPE = [
  "*** Begin Patch",
  "*** Update File: a.txt",
  "@@",
  "-a",
  "+A",
  "*** Update File: b.txt",
  "@@",
  "-b",
  "+B",
  "*** End Patch",
  "",
].join("\n");

describe("apply_patch in a conversation", () => {
  it("refuses a file the model never read, attaching it, and applies once it has", async () => {
    const ws = await makeWorkspace({ "a.txt": "a\n", "b.txt": "b\n" }, { conversation: [] });
    ws.ctx.conversation = { filesInContext: new Set(), seenSha256: new Map() };
    await ws.call("read_file", { file_path: "a.txt" });
    const first = await ws.call("apply_patch", { input: ENVELOPE });
    expect(first.ok).toBe(false);
    expect(!first.ok && first.error.message).toContain("b.txt was not in this conversation");
    expect((first.data?.["latest_file_states"] as { file_path: string }[]).map((s) => s.file_path)).toEqual([
      "a.txt",
      "b.txt",
    ]);
    expect([await ws.text("a.txt"), await ws.text("b.txt")]).toEqual(["a\n", "b\n"]);
    const second = await ws.call("apply_patch", { input: ENVELOPE });
    expect(second.ok).toBe(true);
    expect([await ws.text("a.txt"), await ws.text("b.txt")]).toEqual(["A\n", "B\n"]);
  });

  it("is a state mismatch for the whole change when one file changed since the model read it", async () => {
    const ws = await makeWorkspace({ "a.txt": "a\n", "b.txt": "b\nmore\n" });
    ws.ctx.conversation = { filesInContext: new Set(), seenSha256: new Map() };
    await ws.call("read_file", { file_path: "a.txt" });
    await ws.call("read_file", { file_path: "b.txt" });
    await ws.call("edit", { file_path: "b.txt", old_string: "more", new_string: "else" });
    // The edit's answer gave the model b.txt's new state: still current.
    expect((await ws.call("apply_patch", { input: ENVELOPE, dry_run: true })).ok).toBe(true);
    // The user changes a.txt outside the conversation: the model's a.txt is stale.
    await writeFile(ws.abs("a.txt"), "a\nx\n");
    const out = await ws.call("apply_patch", { input: ENVELOPE });
    expect(!out.ok && out.error.code).toBe("state_mismatch");
    expect(!out.ok && out.error.message).toContain("a.txt changed since you last read it");
    expect(await ws.text("b.txt")).toBe("b\nelse\n");
  });

  it("asks about every file before writing any, and a rejection leaves all as they were", async () => {
    const ws = await makeWorkspace({ "a.txt": "a\n", "b.txt": "b\n" }, { approve: "reject" });
    const out = await ws.call("apply_patch", { input: ENVELOPE });
    expect(!out.ok && out.error.code).toBe("rejected");
    expect(ws.approvals.map((a) => a.file_path)).toEqual(["a.txt"]);
    expect([await ws.text("a.txt"), await ws.text("b.txt")]).toEqual(["a\n", "b\n"]);
  });

  it("safe_patch refuses a diff that also changes another file, naming it", async () => {
    const ws = await makeWorkspace({ "a.txt": "a\n", "b.txt": "b\n" });
    const sha = (await ws.call("read_file", { file_path: "a.txt" })).data!["sha256"];
    const out = await ws.call("safe_patch", {
      file_path: "a.txt",
      base_content_sha256: sha,
      unified_diff:
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n",
    });
    expect(!out.ok && out.error.message).toContain("`b.txt`");
    expect(await ws.text("a.txt")).toBe("a\n");
  });
});

describe("apply_patch as the model sees it", () => {
  it("is offered only to the openai provider with patchTool apply_patch, with one text argument", () => {
    expect(functionDeclarations({}).map((d) => d.name)).not.toContain("apply_patch");
    expect(patchToolCondition({ provider: "gemini", patchTool: "apply_patch" })).toEqual({});
    const offered = functionDeclarations(
      patchToolCondition({ provider: "openai", patchTool: "apply_patch" }),
    ).find((d) => d.name === "apply_patch");
    expect(offered?.parametersJsonSchema).toMatchObject({
      type: "object",
      required: ["input"],
      properties: { input: { type: "string" } },
    });
  });
});
