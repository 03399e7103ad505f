// Settings come from initializationOptions and from workspace/configuration
// (section lockstep); a bad value is named in a warning and the rest apply.
import { promises as fs } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, launch, sha256, type StartOptions, type TestClient } from "../support/lsp-client.js";

afterEach(cleanup);

const FILE = "notes.txt";
const TEXT = "first\nsecond\n";

/** A server whose settings are in place: the configuration request (if any) has been answered. */
async function configured(options: Omit<StartOptions, "root">): Promise<TestClient> {
  const client = await launch({ [FILE]: TEXT }, options);
  if (options.configuration) await client.waitForRequest("workspace/configuration");
  return client;
}

async function session(client: TestClient): Promise<Record<string, unknown>> {
  const result = await client.command("session", {});
  expect(result.ok).toBe(true);
  return result.data ?? {};
}

function warningNaming(name: string) {
  return (p: unknown): boolean =>
    (p as { type: number }).type === 2 && (p as { message: string }).message.includes(name);
}

async function patchClosedFile(client: TestClient): Promise<void> {
  const result = await client.command("safe_patch", {
    file_path: FILE,
    unified_diff: "@@ @@\n first\n-second\n+2nd\n",
    base_content_sha256: sha256(TEXT),
  });
  expect(result).toMatchObject({ ok: true });
}

describe("settings", () => {
  it("come from initializationOptions", async () => {
    const client = await configured({
      style: "helix",
      initializationOptions: { model: "gemini-init", approval: "auto" },
    });
    // Not in wrap mode: no wrapped server to speak of.
    expect(await session(client)).toMatchObject({ model: "gemini-init", approval: "auto", wrapped: null });
  });

  it("come from workspace/configuration, section lockstep", async () => {
    const client = await configured({
      style: "eglot",
      configuration: { lockstep: { model: "gemini-config", approval: "auto" }, other: { model: "not this" } },
    });
    const asked = client.requests.find((r) => r.method === "workspace/configuration")!;
    expect(asked.params).toEqual({ items: [expect.objectContaining({ section: "lockstep" })] });
    expect(await session(client)).toMatchObject({ model: "gemini-config", approval: "auto" });
  });

  it("from both sources apply together", async () => {
    const client = await configured({
      style: "neovim",
      initializationOptions: { model: "gemini-init" },
      configuration: { lockstep: { approval: "auto" } },
    });
    expect(await session(client)).toMatchObject({ model: "gemini-init", approval: "auto" });
  });

  it("closedFileEdits from initializationOptions sends closed files to disk", async () => {
    const client = await configured({ style: "helix", initializationOptions: { closedFileEdits: "disk" } });
    await patchClosedFile(client);
    expect(client.applyEditRequests).toHaveLength(0);
    expect(await fs.readFile(client.path(FILE), "utf8")).toBe("first\n2nd\n");
  });

  it("closedFileEdits from workspace/configuration sends closed files to disk", async () => {
    const client = await configured({
      style: "helix",
      configuration: { lockstep: { closedFileEdits: "disk" } },
    });
    await patchClosedFile(client);
    expect(client.applyEditRequests).toHaveLength(0);
    expect(await fs.readFile(client.path(FILE), "utf8")).toBe("first\n2nd\n");
  });

  it("follow workspace/didChangeConfiguration", async () => {
    const client = await configured({ style: "helix", configuration: { lockstep: { model: "gemini-one" } } });
    expect(await session(client)).toMatchObject({ model: "gemini-one" });
    client.configuration = { lockstep: { model: "gemini-two" } };
    client.notify("workspace/didChangeConfiguration", { settings: client.configuration });
    expect(await session(client)).toMatchObject({ model: "gemini-two" });
  });

  it("a bad value in initializationOptions is named in a warning; the other settings apply", async () => {
    const client = await configured({
      style: "helix",
      initializationOptions: { maxTurns: -1, model: "gemini-good", approval: "auto" },
    });
    const shown = await client.waitForNotification("window/showMessage", warningNaming("maxTurns"));
    expect((shown.params as { message: string }).message).not.toContain("model");
    expect(await session(client)).toMatchObject({ model: "gemini-good", approval: "auto" });
  });

  it("a bad value in workspace/configuration is named in a warning; the other settings apply", async () => {
    const client = await configured({
      style: "eglot",
      configuration: { lockstep: { closedFileEdits: "cloud", approval: "sometimes", model: "gemini-good" } },
    });
    await client.waitForNotification("window/showMessage", warningNaming("closedFileEdits"));
    await client.waitForNotification("window/showMessage", warningNaming("approval"));
    expect(await session(client)).toMatchObject({ model: "gemini-good", approval: "ask" });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["provider openai without a model", { provider: "openai", baseUrl: "http://127.0.0.1:9/v1" }, "model"],
    ["a baseUrl with provider gemini", { baseUrl: "http://127.0.0.1:9/v1" }, "baseUrl"],
  ])("a bad combination is named in a warning: %s", async (_name, initializationOptions, named) => {
    const client = await configured({ style: "helix", initializationOptions });
    await client.waitForNotification("window/showMessage", warningNaming(named));
  });

  it("an unknown setting is named in a warning", async () => {
    const client = await configured({ style: "neovim", initializationOptions: { modle: "gemini-typo" } });
    await client.waitForNotification("window/showMessage", warningNaming("modle"));
  });
});
