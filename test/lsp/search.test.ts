// search_files, find_files and ranged reads over LSP, against the spawned
// server: unsaved buffers are searched as the editor holds them, a catastrophic
// pattern ends in a timeout while other commands answer, and $/cancelRequest
// stops a search. (How fast is measured in `npm run bench`, not asserted here.)
import { CancellationTokenSource } from "vscode-jsonrpc/node.js";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, launch, sha256 } from "../support/lsp-client.js";

afterEach(cleanup);

const FILES = {
  ".gitignore": "build/\n",
  "src/app.ts": "export const greeting = 'hello';\n",
  "src/util.ts": "export function helper() {}\n",
  "build/out.js": "const greeting = 'hello';\n",
  "blob.bin": Buffer.from([0, 1, 2, ...Buffer.from("greeting")]),
};

describe("search_files over LSP", () => {
  it("searches an open buffer by its unsaved text, and read_file agrees with what it found", async () => {
    const client = await launch(FILES, { style: "neovim" });
    await client.open("src/util.ts");
    await client.type("src/util.ts", "helper() {}", "helper() { return greeting; }");
    const result = await client.command("search_files", { pattern: "greeting" });
    expect(result).toEqual({
      ok: true,
      data: {
        matches: [
          { file_path: "src/app.ts", line: 1, text: "export const greeting = 'hello';" },
          { file_path: "src/util.ts", line: 1, text: "export function helper() { return greeting; }" },
        ],
        // .gitignore, the two sources and blob.bin (binary: looked at, nothing reported from it).
        files_searched: 4,
        truncated: false,
      },
    });
    const read = await client.command("read_file", { file_path: "src/util.ts" });
    expect(read).toMatchObject({
      ok: true,
      data: {
        content: "export function helper() { return greeting; }\n",
        sha256: sha256("export function helper() { return greeting; }\n"),
      },
    });
  });

  it("refuses a bad regular expression with invalid_argument, and a path outside with permission_denied", async () => {
    const client = await launch(FILES, { style: "helix" });
    expect(await client.command("search_files", { pattern: "([a-z]" })).toMatchObject({
      ok: false,
      error: {
        code: "invalid_argument",
        message: expect.stringContaining("Invalid regular expression") as string,
      },
    });
    expect(await client.command("search_files", { pattern: "x", path: "../" })).toMatchObject({
      ok: false,
      error: { code: "permission_denied" },
    });
    expect(await client.command("search_files", { pattern: "x", max_results: 0 })).toMatchObject({
      ok: false,
      error: { code: "invalid_argument", message: expect.stringContaining("`max_results`") as string },
    });
  });

  it("ends a catastrophic pattern with a timeout naming the file, answering other commands meanwhile", async () => {
    const client = await launch({ ...FILES, "evil.txt": "a".repeat(48) + "!\n" }, { style: "helix" });
    const search = client.command("search_files", { pattern: "^(a+)+$" });
    let searchDone = false;
    void search.then(() => (searchDone = true));
    const read = await client.command("read_file", { file_path: "src/app.ts" });
    expect(read).toMatchObject({ ok: true });
    expect(searchDone).toBe(false);
    expect(await search).toMatchObject({
      ok: false,
      error: { code: "timeout", message: expect.stringContaining("evil.txt") as string },
    });
    // The next search runs on a fresh thread.
    expect(await client.command("search_files", { pattern: "helper" })).toMatchObject({
      ok: true,
      data: { matches: [{ file_path: "src/util.ts" }] },
    });
  }, 30_000);

  it("$/cancelRequest stops a running search", async () => {
    const client = await launch({ "evil.txt": "a".repeat(48) + "!\n" }, { style: "helix" });
    const source = new CancellationTokenSource();
    const pending = client.connection.sendRequest(
      "workspace/executeCommand",
      { command: "lockstep.search_files", arguments: [{ pattern: "^(a+)+$" }] },
      source.token,
    );
    setTimeout(() => source.cancel(), 100);
    const answer = (await pending.catch((e: unknown) => ({ cancelledByClient: String(e) }))) as Record<
      string,
      unknown
    >;
    if (!("cancelledByClient" in answer))
      expect(answer).toMatchObject({ ok: false, error: { code: "cancelled" } });
    expect(await client.command("find_files", { pattern: "*.txt" })).toEqual({
      ok: true,
      data: { files: ["evil.txt"], truncated: false },
    });
  }, 30_000);
});

describe("find_files and ranged reads over LSP", () => {
  it("finds files by glob with the ignore rules, and reads part of one", async () => {
    const client = await launch(
      { ...FILES, "src/long.ts": Array.from({ length: 30 }, (_, i) => `// ${i + 1}\n`).join("") },
      { style: "eglot" },
    );
    expect(await client.command("find_files", { pattern: "**/*.{ts,js}" })).toEqual({
      ok: true,
      data: { files: ["src/app.ts", "src/long.ts", "src/util.ts"], truncated: false },
    });
    expect(await client.command("find_files", { pattern: "..{,}/**" })).toMatchObject({
      ok: false,
      error: { code: "permission_denied" },
    });
    const part = await client.command("read_file", { file_path: "src/long.ts", offset: 10, limit: 2 });
    expect(part).toMatchObject({
      ok: true,
      data: { content: "// 10\n// 11\n", start_line: 10, end_line: 11, total_lines: 30, truncated: true },
    });
  });
});
