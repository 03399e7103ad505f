// A body's size is capped both ways (64 MB). A child that announces a 3 GB
// frame is a broken child: it is killed at the header, nothing of the body is
// held, it is restarted, and lockstep.session says why. An editor's oversized
// frame is read past without being held and answered with an error.
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RawEditor, killRawEditors, type Json } from "./raw-editor.js";

afterEach(killRawEditors);

const SCRIPTED = path.resolve("test/relay/fixtures/scripted-server.mjs");
/** lockstep's peak resident memory may not pass this (it starts near 100 MB; the old reader held 500 MB more). */
const PEAK_MB = 300;

describe("wrap mode: the cap on a frame's body", () => {
  it("restarts a child that announces 3,000,000,000 bytes, holding none of them, and says so in lockstep.session", async () => {
    const editor = await RawEditor.start({ "a.ts": "x\n" }, ["--wrap", "--", SCRIPTED, "huge-frame"]);
    await editor.initialize();
    editor.notify("textDocument/didOpen", {
      textDocument: { uri: editor.uri("a.ts"), languageId: "typescript", version: 1, text: "x\n" },
    });
    // The request the huge frame was to answer is answered with an error, not left waiting.
    const answer = await editor.request("scripted/huge", {});
    expect((answer["error"] as Json)["message"]).toMatch(/scripted-server\.mjs is not running/);
    const shown = await editor.waitFor(
      (m) => m["method"] === "window/showMessage",
      "the message naming the frame",
    );
    expect((shown["params"] as Json)["message"]).toMatch(
      /stopped: it sent what lockstep cannot read past: a body of 3000000000 bytes, over lockstep's cap of 64 MB\. Restarting it\./,
    );
    // The restarted child serves (the hover waits for it), and the session says what happened.
    expect(
      await editor.request("textDocument/hover", {
        textDocument: { uri: editor.uri("a.ts") },
        position: { line: 0, character: 0 },
      }),
    ).toMatchObject({ result: { contents: "scripted" } });
    expect(await editor.wrapped()).toEqual({
      server: "scripted-server.mjs",
      state: "running",
      restarts: 1,
      reason:
        "restarted after it sent what lockstep cannot read past: a body of 3000000000 bytes, over lockstep's cap of 64 MB",
    });
    expect(editor.memory().peak).toBeLessThan(PEAK_MB);
  }, 60_000);

  it("reads past an editor's frame over the cap without holding it, answers an error, and goes on", async () => {
    const editor = await RawEditor.start({ "a.ts": "x\n" }, ["--wrap", "--", SCRIPTED, "ok"]);
    await editor.initialize();
    const size = 80 * 1024 * 1024;
    editor.writeRaw(`Content-Length: ${size}\r\n\r\n`);
    const chunk = Buffer.alloc(1024 * 1024, "x");
    for (let sent = 0; sent < size; sent += chunk.length) {
      if (!editor.process.stdin.write(chunk))
        await new Promise((resolve) => editor.process.stdin.once("drain", resolve));
    }
    const refused = await editor.waitFor(
      (m) => m["id"] === null && (m["error"] as Json | undefined)?.["code"] === -32600,
      "the error for the oversized frame",
    );
    expect((refused["error"] as Json)["message"]).toContain(
      `a body of ${size} bytes, over lockstep's cap of 64 MB; it was read past and dropped`,
    );
    editor.notify("textDocument/didOpen", {
      textDocument: { uri: editor.uri("a.ts"), languageId: "typescript", version: 1, text: "x\n" },
    });
    expect(
      await editor.request("textDocument/hover", {
        textDocument: { uri: editor.uri("a.ts") },
        position: { line: 0, character: 0 },
      }),
    ).toMatchObject({ result: { contents: "scripted" } });
    expect(await editor.wrapped()).toMatchObject({ state: "running", restarts: 0 });
    expect(editor.memory().peak).toBeLessThan(PEAK_MB);
  }, 60_000);
});
