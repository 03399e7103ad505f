// The pure parts of the ACP door: a tool call's ACP kind and the words for an
// envelope's outcome, config options, and a prompt's blocks as prompt text.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { applyConfigOption, configOptions } from "../../server/src/acp/config-options.js";
import { promptText } from "../../server/src/acp/prompt.js";
import { kindOf, outcomeText } from "../../server/src/acp/updates.js";
import { DEFAULT_SETTINGS } from "../../server/src/config/settings.js";
import { errorEnvelope, okEnvelope } from "../../server/src/tools/envelope.js";
import { Sandbox } from "../../server/src/workspace/sandbox.js";

describe("kindOf", () => {
  const cases: [string, Parameters<typeof kindOf>[0], string][] = [
    ["a change", { kind: "modify", call: { name: "edit", args: { file_path: "a" } } }, "edit"],
    ["a read", { kind: "read", call: { name: "read_file", args: { file_path: "a" } } }, "read"],
    [
      "a read given a pattern",
      { kind: "read", call: { name: "search_files", args: { pattern: "x" } } },
      "search",
    ],
    ["an MCP server's tool", { kind: "external", call: { name: "mcp__s__t", args: {} } }, "other"],
  ];
  it.each(cases)("%s", (_, event, kind) => expect(kindOf(event)).toBe(kind));
});

describe("outcomeText", () => {
  it.each([
    [
      okEnvelope({ message: "Patch applied successfully.", applied: true }),
      false,
      "Patch applied successfully.",
    ],
    [
      okEnvelope({ message: "Patch applied successfully.", applied: true }),
      true,
      "Applied on the current state, after a stale attempt was refused: Patch applied successfully.",
    ],
    [
      errorEnvelope("state_mismatch", "State Mismatch: x."),
      false,
      "Stale, not applied: State Mismatch: x. The agent retries from the current state.",
    ],
    [errorEnvelope("rejected", "Rejected: no."), false, "Rejected, not applied: Rejected: no."],
    [errorEnvelope("invalid_diff", "Invalid Diff: y."), false, "Refused (invalid_diff): Invalid Diff: y."],
  ])("%j (retried %s)", (envelope, retried, text) => expect(outcomeText(envelope, retried)).toBe(text));
});

describe("config options", () => {
  it("offers approval, provider and model, and refuses values they do not list", () => {
    expect(configOptions(DEFAULT_SETTINGS).map((o) => o.id)).toEqual(["approval", "provider", "model"]);
    expect(applyConfigOption(DEFAULT_SETTINGS, "approval", "auto")).toMatchObject({
      ok: true,
      settings: { approval: "auto" },
    });
    expect(applyConfigOption(DEFAULT_SETTINGS, "approval", "review")).toMatchObject({
      ok: false,
      message: "approval takes ask, auto; not review.",
    });
    expect(applyConfigOption(DEFAULT_SETTINGS, "colour", "red")).toMatchObject({ ok: false });
    // Another provider forgets the model named for the first.
    const openai = applyConfigOption({ ...DEFAULT_SETTINGS, model: "gemini-2.5-pro" }, "provider", "openai");
    expect(openai).toMatchObject({ ok: true, settings: { provider: "openai", model: undefined } });
  });
});

describe("promptText", () => {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-acp-prompt-")));
  const outside = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-acp-prompt-out-")));
  writeFileSync(path.join(root, "a.ts"), "x\n");
  writeFileSync(path.join(root, "my file.ts"), "x\n");
  writeFileSync(path.join(outside, "b.ts"), "x\n");
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it("turns links to files inside the root into mentions and quotes other resources", async () => {
    const sandbox = await Sandbox.create([root]);
    const text = await promptText(
      [
        { type: "text", text: "fix" },
        { type: "resource_link", uri: pathToFileURL(path.join(root, "a.ts")).href, name: "a.ts" },
        { type: "resource_link", uri: pathToFileURL(path.join(root, "my file.ts")).href, name: "my file.ts" },
        { type: "resource", resource: { uri: "untitled:notes", text: "remember this" } },
      ],
      sandbox,
    );
    expect(text).toEqual({
      ok: true,
      text: 'fix @a.ts the file "my file.ts" (read it with read_file) Context from <untitled:notes>:\n```\nremember this\n```',
    });
  });

  it("refuses files outside the root, images and empty prompts", async () => {
    const sandbox = await Sandbox.create([root]);
    expect(
      await promptText(
        [{ type: "resource_link", uri: pathToFileURL(path.join(outside, "b.ts")).href, name: "b.ts" }],
        sandbox,
      ),
    ).toMatchObject({ ok: false, message: expect.stringContaining("inside the session's cwd") });
    expect(
      await promptText(
        [{ type: "resource", resource: { uri: pathToFileURL(path.join(outside, "b.ts")).href, text: "x" } }],
        sandbox,
      ),
    ).toMatchObject({ ok: false });
    expect(await promptText([{ type: "image", data: "", mimeType: "image/png" }], sandbox)).toMatchObject({
      ok: false,
      message: expect.stringContaining("image"),
    });
    expect(await promptText([{ type: "text", text: "  " }], sandbox)).toMatchObject({
      ok: false,
      message: expect.stringContaining("empty"),
    });
  });
});
