// Bad commands get an envelope that names the problem, and the server goes on
// serving after each.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cleanup, launch, sha256, type TestClient } from "../support/lsp-client.js";


const FILES = { "src/app.ts": "export const app = 1;\n", "logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]) };

async function stillServing(client: TestClient): Promise<void> {
  expect(await client.command("read_file", { file_path: "src/app.ts" })).toMatchObject({ ok: true, data: { content: FILES["src/app.ts"] } });
}

describe("bad input, one after another to the same server", () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await launch(FILES, { style: "helix" });
  });
  afterAll(cleanup);

  it.each<[name: string, command: string, arg: unknown, code: string, message: RegExp]>([
    ["an unknown lockstep command", "lockstep.frobnicate", {}, "invalid_argument", /frobnicate/],
    ["a command outside lockstep's namespace", "editor.action.format", {}, "invalid_argument", /editor\.action\.format/],
    ["a missing argument", "lockstep.read_file", {}, "invalid_argument", /`file_path` is required/],
    ["no argument object at all", "lockstep.read_file", undefined, "invalid_argument", /`file_path`/],
    ["a mistyped argument", "lockstep.read_file", { file_path: 42 }, "invalid_argument", /`file_path`/],
    ["a list where a list is due, of the wrong things", "lockstep.read_many_files", { file_paths: "src/app.ts" }, "invalid_argument", /`file_paths`/],
    ["a sha256 that is not one", "lockstep.safe_patch", { file_path: "src/app.ts", unified_diff: "@@ @@\n-a\n+b\n", base_content_sha256: "abc" }, "invalid_argument", /`base_content_sha256`/],
    ["a dry_run that is not a boolean", "lockstep.edit", { file_path: "src/app.ts", old_string: "1", new_string: "2", dry_run: "yes" }, "invalid_argument", /`dry_run`/],
    ["an unknown field", "lockstep.read_file", { file_path: "src/app.ts", encoding: "latin1" }, "invalid_argument", /`encoding`/],
    ["a relative path outside the workspace", "lockstep.read_file", { file_path: "../outside.txt" }, "permission_denied", /outside|workspace/i],
    ["an absolute path outside the workspace", "lockstep.read_file", { file_path: "/etc/passwd" }, "permission_denied", /outside|workspace/i],
    ["a file:// URI outside the workspace", "lockstep.read_file", { file_path: "file:///etc/hostname" }, "permission_denied", /outside|workspace/i],
    ["a missing file, with a suggestion", "lockstep.read_file", { file_path: "src/ap.ts" }, "not_found", /src\/app\.ts/],
    ["a binary file", "lockstep.read_file", { file_path: "logo.png" }, "binary_file", /binary/],
  ])("%s", async (_name, command, arg, code, message) => {
    const result = await client.command(command, arg);
    expect(result).toMatchObject({ ok: false, error: { code } });
    if (!result.ok) {
      expect(result.error.message).toMatch(message);
      expect(Array.isArray(result.error.suggestions)).toBe(true);
    }
    await stillServing(client);
  });

  it("answers a malformed request with a JSON-RPC error, then serves the next one", async () => {
    await expect(client.request("workspace/executeCommand", { arguments: [{}] })).rejects.toThrow();
    await stillServing(client);
  });
});

describe("bad writes", () => {
  afterEach(cleanup);

  it("refuses to patch a binary file and keeps serving", async () => {
    const client = await launch(FILES, { style: "neovim" });
    const result = await client.command("safe_patch", { file_path: "logo.png", unified_diff: "@@ @@\n-PNG\n+GIF\n", base_content_sha256: sha256("") });
    expect(result).toMatchObject({ ok: false, error: { code: "binary_file" } });
    expect(client.applyEditRequests).toHaveLength(0);
    await stillServing(client);
  });

  it("refuses to write outside the workspace and keeps serving", async () => {
    const client = await launch(FILES, { style: "eglot" });
    const result = await client.command("write_file", { file_path: "../escape.txt", content: "x\n" });
    expect(result).toMatchObject({ ok: false, error: { code: "permission_denied" } });
    expect(client.applyEditRequests).toHaveLength(0);
    await stillServing(client);
  });
});
