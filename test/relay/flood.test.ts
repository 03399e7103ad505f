// Bounded buffers in wrap mode: a child that floods window/logMessage while the
// editor reads nothing does not grow lockstep (its peak RSS from /proc stays
// under a bound); the child's chatter past the bound is dropped and counted, no
// response is; once the editor reads again every request it sent is answered
// and lockstep says how many messages it dropped. The other way, a child that
// reads nothing pauses the editor's input, and is restarted as stuck after 20 s.
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { RawEditor, killRawEditors, type Json } from "./raw-editor.js";

afterEach(killRawEditors);

const SCRIPTED = path.resolve("test/relay/fixtures/scripted-server.mjs");
/** lockstep starts near 60 MB; the unbounded relay passed 380 MB within the 10 s pause of the bench. */
const PEAK_MB = 160;
const PAUSE_MS = 5000;

describe("wrap mode: a flooding child and an editor that does not read", () => {
  it("keeps lockstep under the bound, drops only the child's log messages, and answers every request", async () => {
    const editor = await RawEditor.start({ "a.ts": "x\n" }, ["--wrap", "--", SCRIPTED, "flood"]);
    await editor.initialize();
    editor.notify("textDocument/didOpen", {
      textDocument: { uri: editor.uri("a.ts"), languageId: "typescript", version: 1, text: "x\n" },
    });
    await editor.waitFor(() => editor.logMessages > 100, "the flood to begin");

    editor.pause();
    const hovers = Array.from({ length: 20 }, () =>
      editor.request(
        "textDocument/hover",
        { textDocument: { uri: editor.uri("a.ts") }, position: { line: 0, character: 0 } },
        undefined,
        60_000,
      ),
    );
    const own = editor.request(
      "workspace/executeCommand",
      { command: "lockstep.read_file", arguments: [{ file_path: "a.ts" }] },
      undefined,
      60_000,
    );
    let peak = 0;
    for (let waited = 0; waited < PAUSE_MS; waited += 250) {
      await sleep(250);
      peak = Math.max(peak, editor.memory().peak);
    }
    expect(peak).toBeLessThan(PEAK_MB);

    editor.resume();
    for (const answer of await Promise.all(hovers))
      expect(answer).toMatchObject({ result: { contents: "scripted" } });
    expect(await own).toMatchObject({ result: { ok: true, data: { version: 1 } } });
    const wrapped = await editor.wrapped();
    expect(wrapped).toMatchObject({ state: "running", restarts: 0 });
    expect(wrapped["dropped"]).toBeGreaterThan(0);
    const told = await editor.waitFor(
      (m) => m["method"] === "window/logMessage",
      "lockstep's line on what it dropped",
    );
    expect((told["params"] as Json)["message"]).toMatch(
      /^lockstep: the editor read nothing for a while, so \d+ of scripted-server\.mjs's log and progress messages were dropped \(\d+ since the start\)\.$/,
    );
  }, 60_000);

  it("pauses the editor's input while the child reads nothing, instead of holding what the editor sends", async () => {
    const editor = await RawEditor.start({ "a.ts": "x\n" }, ["--wrap", "--", SCRIPTED, "stuck", "child.pid"]);
    await editor.initialize();
    const uri = editor.uri("a.ts");
    editor.notify("textDocument/didOpen", {
      textDocument: { uri, languageId: "typescript", version: 1, text: "x\n" },
    });
    // 200 whole texts of 1 MB: the child takes none of them.
    const text = "y".repeat(1024 * 1024);
    for (let version = 2; version < 202; version++)
      editor.notify("textDocument/didChange", { textDocument: { uri, version }, contentChanges: [{ text }] });
    let peak = 0;
    for (let waited = 0; waited < 3000; waited += 250) {
      await sleep(250);
      peak = Math.max(peak, editor.memory().peak);
    }
    expect(peak).toBeLessThan(PEAK_MB);
    // lockstep waits for the child: it is alive and its input is what is held up.
    expect(editor.process.exitCode).toBeNull();
    expect(editor.process.stdin.writableLength).toBeGreaterThan(100 * 1024 * 1024);
    // Not for ever: a child that reads nothing for 20 s is stuck, and restarted; the editor is read again.
    const shown = await editor.waitFor(
      (m) => m["method"] === "window/showMessage",
      "the stuck child's restart",
      40_000,
    );
    expect((shown["params"] as Json)["message"]).toContain(
      "stopped: it stopped reading: more than 16 MB sent to it waited 20 s. Restarting it.",
    );
    expect(
      await editor.request(
        "workspace/executeCommand",
        { command: "lockstep.read_file", arguments: [{ file_path: "a.ts" }] },
        undefined,
        40_000,
      ),
    ).toMatchObject({ result: { ok: true, data: { version: 201 } } });
    expect(await editor.wrapped()).toMatchObject({
      restarts: 1,
      reason: "restarted after it stopped reading: more than 16 MB sent to it waited 20 s",
    });
  }, 90_000);
});
