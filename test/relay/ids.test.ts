// The relay's own requests to the child never take an editor's answer: an
// editor may use any id, the relay's own (lockstep-relay/N) included, before,
// during and after a restart of the child.
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RawEditor, killRawEditors } from "./raw-editor.js";
import { alive, eventually, pidIn, pidsIn } from "./wrap-support.js";

afterEach(killRawEditors);

const SCRIPTED = path.resolve("test/relay/fixtures/scripted-server.mjs");

describe("wrap mode: request ids", () => {
  it("answers editor requests whose ids look like the relay's own, with the child up, while it restarts, and after", async () => {
    const editor = await RawEditor.start({ "a.ts": "x\n" }, ["--wrap", "--", SCRIPTED, "ok", "child.pid"]);
    await editor.initialize();
    const echo = (id: string | number) => editor.request("scripted/echo", { id }, id);
    for (const id of ["lockstep-relay/1", "lockstep-relay/2", 1])
      expect(await echo(id)).toEqual({ jsonrpc: "2.0", id, result: { id, params: { id } } });

    // Killed, the child is restarted with the relay's own initialize; the editor's requests meanwhile wait for it.
    const pidFile = path.join(editor.root, "child.pid");
    const first = await pidIn(pidFile);
    process.kill(first, "SIGKILL");
    await editor.waitFor(
      (m) =>
        m["method"] === "window/showMessage" &&
        String((m["params"] as { message: string }).message).includes("Restarting it"),
      "the restart message",
    );
    const during = await Promise.all(["lockstep-relay/1", "lockstep-relay/2", "lockstep-relay/3"].map(echo));
    expect(during.map((m) => m["result"])).toEqual(
      ["lockstep-relay/1", "lockstep-relay/2", "lockstep-relay/3"].map((id) => ({ id, params: { id } })),
    );
    await eventually(
      () => [pidsIn(pidFile)[0]].some((p) => p !== undefined && p !== first && alive(p)),
      "the restarted child",
    );
    for (const id of ["lockstep-relay/1", "lockstep-relay/2"])
      expect(await echo(id)).toMatchObject({ id, result: { id } });
  }, 30_000);
});
