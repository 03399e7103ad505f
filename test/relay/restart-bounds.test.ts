// A restarted child that never answers its initialize: the editor's requests held
// for it are bounded in number (past the bound, answered at once), and answered
// with an error once its deadline passes, so nothing waits on it for ever.
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_HELD_REQUESTS } from "../../server/src/relay/held-requests.js";
import { INITIALIZE_DEADLINE_MS } from "../../server/src/relay/child-life.js";
import { RawEditor, killRawEditors, type Json } from "./raw-editor.js";
import { pidIn } from "./wrap-support.js";

afterEach(killRawEditors);

const SCRIPTED = path.resolve("test/relay/fixtures/scripted-server.mjs");
const errorOf = (answer: Json): string => String((answer["error"] as Json | undefined)?.["message"] ?? "");

describe("wrap mode: a restarted child that never initializes", () => {
  it(
    "holds at most the bound of requests, answers the rest at once, and answers the held ones when its deadline passes",
    async () => {
      const editor = await RawEditor.start({ "a.ts": "x\n" }, [
        "--wrap",
        "--",
        SCRIPTED,
        "mute-again",
        "child.pid",
      ]);
      await editor.initialize();
      expect(
        await editor.request("textDocument/hover", {
          textDocument: { uri: editor.uri("a.ts") },
          position: { line: 0, character: 0 },
        }),
      ).toMatchObject({ result: { contents: "scripted" } });

      const killed = Date.now();
      process.kill(await pidIn(path.join(editor.root, "child.pid")), "SIGKILL");
      await editor.waitFor(
        (m) =>
          m["method"] === "window/showMessage" &&
          String((m["params"] as Json)["message"]).includes("Restarting it"),
        "the restart message",
      );
      const hover = (): Promise<Json> =>
        editor.request(
          "textDocument/hover",
          { textDocument: { uri: editor.uri("a.ts") }, position: { line: 0, character: 0 } },
          undefined,
          INITIALIZE_DEADLINE_MS + 20_000,
        );
      let heldAnswered = 0;
      const held = Array.from({ length: MAX_HELD_REQUESTS }, () => hover().finally(() => heldAnswered++));
      const over = await Promise.all(Array.from({ length: 50 }, hover));
      // Past the bound: answered at once, saying why, while the held ones still wait.
      expect(heldAnswered).toBe(0);
      for (const answer of over)
        expect(errorOf(answer)).toMatch(/is restarting and 1000 requests already wait for it/);
      expect(await editor.wrapped()).toMatchObject({ state: "restarting", restarts: 1 });

      // The held ones: answered with an error once the restarted child is given up on.
      const answers = await Promise.all(held);
      expect(Date.now() - killed).toBeGreaterThanOrEqual(INITIALIZE_DEADLINE_MS);
      for (const answer of answers) expect(errorOf(answer)).toMatch(/scripted-server\.mjs is not running/);
      await editor.waitFor(
        (m) =>
          m["method"] === "window/showMessage" &&
          String((m["params"] as Json)["message"]).includes(
            `did not initialize again within ${INITIALIZE_DEADLINE_MS / 1000} s`,
          ),
        "the message naming the deadline",
      );
    },
    INITIALIZE_DEADLINE_MS + 40_000,
  );
});
