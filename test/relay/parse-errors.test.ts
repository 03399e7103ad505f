// Wrap mode answers a well-framed message that is not JSON-RPC as JSON-RPC says
// (a parse error, -32700, or an invalid request, -32600, with id null unless it
// named one) and goes on serving; only a frame that cannot be read past (a body
// cut by a too-short Content-Length) ends lockstep, with why on stderr.
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RawEditor, killRawEditors } from "./raw-editor.js";

afterEach(killRawEditors);

const SCRIPTED = path.resolve("test/relay/fixtures/scripted-server.mjs");
const WRAP_SCRIPTED = ["--wrap", "--", SCRIPTED, "ok"];
const isError =
  (code: number, id: unknown = null) =>
  (m: Record<string, unknown>) =>
    m["id"] === id && (m["error"] as { code?: number } | undefined)?.code === code;

describe("wrap mode: a message that is not JSON-RPC", () => {
  it("is answered with a parse error or an invalid request, before and after initialize, and the relay goes on", async () => {
    const editor = await RawEditor.start({ "a.ts": "export const a = 1;\n" }, WRAP_SCRIPTED);
    editor.writeBody("{not json");
    const early = await editor.waitFor(isError(-32700), "a parse error for the body before initialize");
    expect((early["error"] as { message: string }).message).toMatch(
      /^Parse error: the message body is not JSON/,
    );
    expect(await editor.initialize()).toMatchObject({
      result: { serverInfo: { name: "lockstep + scripted" } },
    });

    const from = editor.messages.length;
    editor.writeBody("{not json");
    editor.writeBody("[1,2]");
    editor.writeBody('{"jsonrpc":"2.0","id":7}');
    editor.writeBody("");
    await editor.waitFor(isError(-32700), "a parse error", 20_000, from);
    await editor.waitFor(isError(-32600), "an invalid request for the array", 20_000, from);
    await editor.waitFor(isError(-32600, 7), "an invalid request naming id 7", 20_000, from);
    await editor.waitFor(
      (m) => isError(-32700)(m) && editor.messages.indexOf(m) > editor.messages.findIndex(isError(-32600, 7)),
      "a parse error for the empty body",
      20_000,
      from,
    );

    // Both servers still serve: the child's hover and lockstep's own command.
    editor.notify("textDocument/didOpen", {
      textDocument: {
        uri: editor.uri("a.ts"),
        languageId: "typescript",
        version: 1,
        text: "export const a = 1;\n",
      },
    });
    expect(
      await editor.request("textDocument/hover", {
        textDocument: { uri: editor.uri("a.ts") },
        position: { line: 0, character: 1 },
      }),
    ).toMatchObject({ result: { contents: "scripted" } });
    expect(
      await editor.request("workspace/executeCommand", {
        command: "lockstep.read_file",
        arguments: [{ file_path: "a.ts" }],
      }),
    ).toMatchObject({ result: { ok: true, data: { version: 1 } } });
  }, 30_000);

  it("ends lockstep, naming the broken body, when a too-short Content-Length cuts it: the stream cannot be read past", async () => {
    const editor = await RawEditor.start({ "a.ts": "x\n" }, WRAP_SCRIPTED);
    await editor.initialize();
    editor.writeRaw(
      'Content-Length: 5\r\n\r\n{"jsonrpc":"2.0","id":9,"method":"textDocument/hover","params":{}}',
    );
    expect(await editor.exited).toBe(1);
    expect(editor.stderr).toContain("broken body");
  }, 30_000);
});
