// The model's three settings set in different places (the editor's `model` over a project file's
// `provider`) are said by lockstep.session, never shown as fine; set in one place, or left to
// their defaults, they are not. lsp/live-settings.ts knows where each came from.
import { afterEach, describe, expect, it } from "vitest";
import { addTrust } from "../../server/src/config/trust.js";
import { cleanup, createWorkspace, startServer, type StartOptions } from "../support/lsp-client.js";

afterEach(cleanup);

async function session(files: Record<string, string>, options: Omit<StartOptions, "root">) {
  const root = await createWorkspace(files);
  addTrust(root);
  const client = await startServer({ ...options, root });
  const result = await client.command("session", {});
  expect(result.ok).toBe(true);
  return result.data ?? {};
}

const PROJECT = JSON.stringify({ provider: "openai", baseUrl: "http://user:pw@127.0.0.1:18080/v1" });

describe("where the model's settings came from, in lockstep.session", () => {
  it("warns when the editor's model goes over the project file's provider and baseUrl", async () => {
    const data = await session(
      { ".lockstep.json": PROJECT },
      { style: "neovim", initializationOptions: { model: "gemini-2.5-pro" } },
    );
    expect(data).toMatchObject({
      provider: "openai",
      model: "gemini-2.5-pro",
      model_sources: { provider: "project", baseUrl: "project", model: "editor" },
    });
    const warning = String(data["model_warning"]);
    expect(warning).toContain("provider openai (.lockstep.json)");
    expect(warning).toContain("model gemini-2.5-pro (the editor's settings)");
    expect(warning).toContain("http://127.0.0.1:18080/v1");
    // A URL's credentials are never shown.
    expect(warning).not.toContain("pw");
  });

  it("says nothing when all three come from one place", async () => {
    const one = await session(
      {
        ".lockstep.json": JSON.stringify({
          provider: "openai",
          baseUrl: "http://127.0.0.1:1/v1",
          model: "m",
        }),
      },
      { style: "neovim" },
    );
    expect(one["model_warning"]).toBeNull();
    const editor = await session(
      { ".lockstep.json": JSON.stringify({ approval: "review" }) },
      { style: "neovim", initializationOptions: { provider: "ollama", model: "qwen2.5-coder:7b" } },
    );
    expect(editor).toMatchObject({
      model_sources: { provider: "editor", model: "editor" },
      model_warning: null,
    });
  });

  it("a default is no place: the editor's model alone is one choice", async () => {
    const data = await session({}, { style: "neovim", initializationOptions: { model: "gemini-2.5-pro" } });
    expect(data).toMatchObject({ model_sources: { model: "editor" }, model_warning: null });
  });
});
