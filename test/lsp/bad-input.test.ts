// Bad commands get an envelope that names the problem, and the server goes on
// serving after each.
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cleanup, launch, sha256, type TestClient } from "../support/lsp-client.js";

const FILES = {
  "src/app.ts": "export const app = 1;\n",
  "logo.png": new Uint8Array([
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52,
  ]),
};

async function stillServing(client: TestClient): Promise<void> {
  expect(await client.command("read_file", { file_path: "src/app.ts" })).toMatchObject({
    ok: true,
    data: { content: FILES["src/app.ts"] },
  });
}

describe("bad input, one after another to the same server", () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await launch(FILES, { style: "helix" });
  });
  afterAll(cleanup);

  it.each<[name: string, command: string, arg: unknown, code: string, message: RegExp]>([
    ["an unknown lockstep command", "lockstep.frobnicate", {}, "invalid_argument", /frobnicate/],
    [
      "a command outside lockstep's namespace",
      "editor.action.format",
      {},
      "invalid_argument",
      /editor\.action\.format/,
    ],
    ["a missing argument", "lockstep.read_file", {}, "invalid_argument", /`file_path` is required/],
    ["no argument object at all", "lockstep.read_file", undefined, "invalid_argument", /`file_path`/],
    ["a mistyped argument", "lockstep.read_file", { file_path: 42 }, "invalid_argument", /`file_path`/],
    [
      "a list where a list is due, of the wrong things",
      "lockstep.read_many_files",
      { file_paths: "src/app.ts" },
      "invalid_argument",
      /`file_paths`/,
    ],
    [
      "a sha256 that is not one",
      "lockstep.safe_patch",
      { file_path: "src/app.ts", unified_diff: "@@ @@\n-a\n+b\n", base_content_sha256: "abc" },
      "invalid_argument",
      /`base_content_sha256`/,
    ],
    [
      "a dry_run that is not a boolean",
      "lockstep.edit",
      { file_path: "src/app.ts", old_string: "1", new_string: "2", dry_run: "yes" },
      "invalid_argument",
      /`dry_run`/,
    ],
    [
      "an unknown field",
      "lockstep.read_file",
      { file_path: "src/app.ts", encoding: "latin1" },
      "invalid_argument",
      /`encoding`/,
    ],
    [
      "a relative path outside the workspace",
      "lockstep.read_file",
      { file_path: "../outside.txt" },
      "permission_denied",
      /outside|workspace/i,
    ],
    [
      "an absolute path outside the workspace",
      "lockstep.read_file",
      { file_path: "/etc/passwd" },
      "permission_denied",
      /outside|workspace/i,
    ],
    [
      "a file:// URI outside the workspace",
      "lockstep.read_file",
      { file_path: "file:///etc/hostname" },
      "permission_denied",
      /outside|workspace/i,
    ],
    [
      "a missing file, with a suggestion",
      "lockstep.read_file",
      { file_path: "src/ap.ts" },
      "not_found",
      /src\/app\.ts/,
    ],
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

  it("answers a request without a command with invalid_argument, then serves the next one", async () => {
    expect(await client.request("workspace/executeCommand", { arguments: [{}] })).toMatchObject({
      ok: false,
      error: { code: "invalid_argument" },
    });
    await stillServing(client);
  });
});

describe("bad writes", () => {
  afterEach(cleanup);

  it("refuses to patch a binary file and keeps serving", async () => {
    const client = await launch(FILES, { style: "neovim" });
    const result = await client.command("safe_patch", {
      file_path: "logo.png",
      unified_diff: "@@ @@\n-PNG\n+GIF\n",
      base_content_sha256: sha256(""),
    });
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

describe("malformed executeCommand params", () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await launch(FILES, { style: "helix" });
  });
  afterAll(cleanup);

  it.each<[string, unknown]>([
    ["a command that is a number", { command: 42, arguments: [{}] }],
    [
      "arguments that are not a list",
      { command: "lockstep.read_file", arguments: { file_path: "src/app.ts" } },
    ],
  ])(
    "%s: a clear invalid_argument, no JavaScript internals, and the server goes on",
    async (_name, params) => {
      const result = (await client.request("workspace/executeCommand", params)) as {
        ok: boolean;
        error?: { code: string; message: string };
      };
      expect(result).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
      expect(result.error?.message).not.toMatch(/Cannot read|undefined|TypeError/);
      await stillServing(client);
    },
  );
});

describe("raw bytes on stdin", () => {
  const BIN = fileURLToPath(new URL("../../bin/lockstep.js", import.meta.url));
  const frame = (body: string, length = Buffer.byteLength(body)): string =>
    `Content-Length: ${length}\r\n\r\n${body}`;
  const request = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "shutdown" });

  /** Runs the server, writes raw bytes, and waits for it to end (or gives up). */
  function feed(chunks: string[]): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, "--stdio"], { stdio: ["pipe", "pipe", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`the server was still running, silent, after broken input; stderr: ${stderr}`));
      }, 15_000); // a cold start on a loaded machine takes seconds; a server that never stops still fails
      child.on("exit", (code) => {
        clearTimeout(timer);
        resolve({ code, stderr });
      });
      for (const c of chunks) child.stdin.write(c);
    });
  }

  it("params null (sent raw: a client library would not): a clear invalid_argument, and the server goes on", async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "lockstep-raw-"));
    const child = spawn(process.execPath, [BIN, "--stdio"], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    const answers = new Map<number, unknown>();
    child.stdout.on("data", (b: Buffer) => {
      out += b.toString();
      for (
        let m = /Content-Length: (\d+)\r\n\r\n/.exec(out);
        m && out.length >= m.index + m[0].length + Number(m[1]);
        m = /Content-Length: (\d+)\r\n\r\n/.exec(out)
      ) {
        const body = out.slice(m.index + m[0].length, m.index + m[0].length + Number(m[1]));
        out = out.slice(m.index + m[0].length + Number(m[1]));
        const msg = JSON.parse(body) as { id?: number; result?: unknown };
        if (typeof msg.id === "number" && "result" in msg) answers.set(msg.id, msg.result);
      }
    });
    const send = (msg: object): void =>
      void child.stdin.write(frame(JSON.stringify({ jsonrpc: "2.0", ...msg })));
    const answer = async (id: number): Promise<unknown> => {
      // Up to 15 s: the first answer waits for a cold start, seconds on a loaded machine.
      for (let i = 0; i < 600 && !answers.has(id); i++) await new Promise((r) => setTimeout(r, 25));
      return answers.get(id);
    };
    try {
      send({
        id: 1,
        method: "initialize",
        params: { processId: null, rootUri: pathToFileURL(root).href, capabilities: {} },
      });
      await answer(1);
      send({ method: "initialized", params: {} });
      send({ id: 2, method: "workspace/executeCommand", params: null });
      expect(await answer(2)).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
      send({
        id: 3,
        method: "workspace/executeCommand",
        params: { command: "lockstep.list_files", arguments: [{ path: "." }] },
      });
      expect(await answer(3)).toMatchObject({ ok: true });
    } finally {
      child.kill();
    }
  });

  it.each<[string, string[]]>([
    ["a Content-Length that is not a number", ["Content-Length: abc\r\n\r\n{}"]],
    ["a header without Content-Length", ["Content-Type: application/json\r\n\r\n{}"]],
    ["a Content-Length too short, then the next message", [frame(request, 5), frame(request)]],
    ["a Content-Length too short, and nothing after it", [frame(request, 5)]],
  ])("%s: the server says so on stderr and stops", async (_name, chunks) => {
    const { code, stderr } = await feed(chunks);
    expect(code).toBe(1);
    expect(stderr).toMatch(/broken (header|body)/);
  });
});
