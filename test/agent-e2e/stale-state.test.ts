// The user types while the model thinks: the model's patch, built on the state it
// read, is refused with the current state attached, and its retry on that state
// lands beside the user's typing. Run against each editor's way of applying edits.
import type { CodeAction } from "vscode-languageserver-protocol";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeTurn, RecordedRequest } from "../support/fake-gemini.js";
import {
  GEOMETRY_TS,
  deferred,
  lastResponses,
  patchCall,
  readCall,
  replaceLineDiff,
  sha256Hex,
  startAgent,
  turn,
} from "../support/agent-scripts.js";
import { stopAllServers, type EditorStyle } from "../support/lsp-client.js";

afterEach(stopAllServers);

const A = `// Geometry helpers.\n${GEOMETRY_TS}`;

/** Turn 3: rebuild the same change on the state the mismatch carried. */
function retryOnLatest(request: RecordedRequest): FakeTurn {
  const [answer] = lastResponses(request);
  const latest = answer?.response.data?.["latest_file_state"] as
    | { sha256: string; content: string }
    | undefined;
  if (latest === undefined) return turn({ text: ["No latest_file_state came back."] });
  return turn({
    calls: [
      patchCall(
        "a.ts",
        replaceLineDiff("a.ts", latest.content, "  return 2 * (w + h);", "  return 2 * w + 2 * h;"),
        latest.sha256,
      ),
    ],
  });
}

describe.each<EditorStyle>(["helix", "neovim", "eglot"])("stale state with %s", (style) => {
  it("refuses the patch built on the old sha with the latest state, and the retry lands beside the user's typing", async () => {
    const typed = deferred();
    const rig = await startAgent({
      files: { "a.ts": A },
      style,
      initializationOptions: { approval: "auto" },
      gate: true,
      script: (request, index) =>
        [
          () => turn({ calls: [readCall("a.ts")] }),
          () =>
            turn({
              calls: [
                patchCall(
                  "a.ts",
                  replaceLineDiff("a.ts", A, "  return 2 * (w + h);", "  return 2 * w + 2 * h;"),
                  sha256Hex(A),
                ),
              ],
            }),
          () => retryOnLatest(request),
          () => turn({ text: ["Rewrote the perimeter."] }),
        ][index]?.() ?? turn({ text: ["(script ended)"] }),
    });
    rig.gate!.hold(1, typed.promise);
    await rig.client.open("a.ts");
    const id = await rig.ask("expand the perimeter formula");

    // Between turn 1 and turn 2 the user edits another line of the open buffer.
    await rig.gate!.arrived(1);
    await rig.client.type("a.ts", "// Geometry helpers.", "// Geometry helpers (cm).");
    await rig.client.flush();
    const userText = rig.client.buffer("a.ts")!.text;
    const seen = await rig.client.command("read_file", { file_path: "a.ts" });
    expect(seen.data?.["sha256"]).toBe(sha256Hex(userText));
    typed.resolve();

    const job = await rig.finished(id);
    expect(job.status).toBe("done");

    // Turn 3's request carries the mismatch and the state to retry from.
    const [mismatch] = lastResponses(rig.fake!.requests[2]);
    expect(mismatch?.response.ok).toBe(false);
    expect(mismatch?.response.error?.code).toBe("state_mismatch");
    expect(mismatch?.response.error?.message).toMatch(/^State Mismatch:/);
    expect(mismatch?.response.data?.["latest_file_state"]).toMatchObject({
      file_path: "a.ts",
      sha256: sha256Hex(userText),
      content: userText,
      version: 2,
    });
    const [landed] = lastResponses(rig.fake!.requests[3]);
    expect(landed?.response).toMatchObject({ ok: true, data: { applied: true } });

    const expected = userText.replace("  return 2 * (w + h);", "  return 2 * w + 2 * h;");
    expect(rig.client.buffer("a.ts")?.text).toBe(expected);
    expect(job.files_changed).toEqual(["a.ts"]);
    expect(job.tool_calls.map((c) => [c.name, c.ok])).toEqual([
      ["read_file", true],
      ["safe_patch", false],
      ["safe_patch", true],
    ]);
    // The server's view agrees with the editor's buffer (the hash decides).
    const after = await rig.client.command("read_file", { file_path: "a.ts" });
    expect(after.data?.["sha256"]).toBe(sha256Hex(expected));
    // Nothing touched the disk: the edit is the user's to save.
    expect(await rig.disk("a.ts")).toBe(A);
  });
});

describe.each(["a showMessageRequest prompt", "a staged change (Helix)"])(
  "the user types while %s waits for approval",
  (how) => {
    it("never lands the approved change on text it was not computed for", async () => {
      const prompted = how.startsWith("a showMessageRequest");
      const asked = deferred();
      const answer = deferred<{ title: string }>();
      const rig = await startAgent({
        files: { "a.ts": A },
        initializationOptions: { approval: "ask" },
        ...(prompted
          ? {
              showMessageRequest: () => {
                asked.resolve();
                return answer.promise;
              },
            }
          : {}),
        script: [
          turn({
            calls: [
              patchCall(
                "a.ts",
                replaceLineDiff("a.ts", A, "  return 2 * (w + h);", "  return 2 * w + 2 * h;"),
                sha256Hex(A),
              ),
            ],
          }),
          turn({ text: ["Done."] }),
        ],
      });
      await rig.client.open("a.ts");
      const id = await rig.ask("expand the perimeter formula");
      if (prompted) await asked.promise;
      else
        await rig.client.waitForNotification(
          "textDocument/publishDiagnostics",
          (p) => (p as { diagnostics: unknown[] }).diagnostics.length > 0,
        );

      // While the change waits, the user adds two lines at the top of the file.
      await rig.client.type(
        "a.ts",
        "// Geometry helpers.",
        "// Geometry helpers.\n// Units: cm.\n// Do not inline.",
      );
      const userText = rig.client.buffer("a.ts")!.text;
      expect((await rig.client.command("read_file", { file_path: "a.ts" })).data?.["sha256"]).toBe(
        sha256Hex(userText),
      );
      if (prompted) answer.resolve({ title: "Apply" });
      else {
        const actions = (await rig.client.codeActions("a.ts")) as CodeAction[];
        await rig.client.runCodeAction(
          actions.find((a) => a.title === "lockstep: Accept all proposed changes in a.ts")!,
        );
      }

      const job = await rig.finished(id);
      expect(job.status).toBe("done");
      // Either the change was rebased onto the user's text, or refused with the latest state.
      const [result] = lastResponses(rig.fake!.requests[1]);
      const buffer = rig.client.buffer("a.ts")?.text;
      if (result?.response.ok)
        expect(buffer).toBe(userText.replace("  return 2 * (w + h);", "  return 2 * w + 2 * h;"));
      else {
        expect(result?.response.error?.code).toBe("state_mismatch");
        expect(result?.response.data?.["latest_file_state"]).toMatchObject({ sha256: sha256Hex(userText) });
        expect(buffer).toBe(userText);
      }
    });
  },
);
