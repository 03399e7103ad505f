// The project file .lockstep.json serves the editors too: it is the base the editor's own
// settings (initializationOptions, workspace/configuration) go over, so an editor that passes
// none gets the same model as `lockstep ask`; a malformed file is named with its line. The
// folders here are trusted (in the tests' own state directory): what an untrusted folder's file
// may set is folder-trust.test.ts.
import { afterEach, describe, expect, it } from "vitest";
import { addTrust } from "../../server/src/config/trust.js";
import { cleanup, createWorkspace, startServer, type StartOptions } from "../support/lsp-client.js";

/** A trusted workspace holding `files`, and a server started on it. */
async function launch(files: Record<string, string>, options: Omit<StartOptions, "root">) {
  const root = await createWorkspace(files);
  addTrust(root);
  return startServer({ ...options, root });
}

afterEach(cleanup);

const PROJECT = JSON.stringify(
  { provider: "openai", baseUrl: "http://127.0.0.1:11434/v1", model: "qwen2.5-coder:7b", approval: "review" },
  null,
  2,
);

async function session(client: Awaited<ReturnType<typeof launch>>): Promise<Record<string, unknown>> {
  const result = await client.command("session", {});
  expect(result.ok).toBe(true);
  return result.data ?? {};
}

describe("the project's .lockstep.json in an editor", () => {
  it("gives the settings when the editor passes none", async () => {
    const client = await launch({ ".lockstep.json": PROJECT, "a.txt": "a\n" }, { style: "helix" });
    expect(await session(client)).toMatchObject({
      provider: "openai",
      model: "qwen2.5-coder:7b",
      baseUrl: "http://127.0.0.1:11434/v1",
      approval: "review",
    });
  });

  it("is the base the editor's own settings go over, key by key", async () => {
    const client = await launch(
      { ".lockstep.json": PROJECT, "a.txt": "a\n" },
      { style: "helix", initializationOptions: { approval: "auto" } },
    );
    expect(await session(client)).toMatchObject({
      provider: "openai",
      model: "qwen2.5-coder:7b",
      approval: "auto",
    });
  });

  it("a malformed file is named with its line, and the editor's settings still apply", async () => {
    const client = await launch(
      {
        ".lockstep.json": '{\n  "provider": "openai",\n  "model": "m"\n  "approval": "auto"\n}\n',
        "a.txt": "a\n",
      },
      { style: "helix", initializationOptions: { approval: "review" } },
    );
    const warning = await client.waitForNotification("window/showMessage", (p) =>
      (p as { message: string }).message.includes(".lockstep.json:4:"),
    );
    expect((warning.params as { message: string }).message).toContain("not valid JSON");
    expect(await session(client)).toMatchObject({ provider: "gemini", approval: "review" });
  });
});
