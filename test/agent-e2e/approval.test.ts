// Approval of the model's changes (approval "ask") through a showMessageRequest prompt, and the
// failures the user is never asked about. "Always allow" is per tool and per server process.
// Without a prompt (Helix) the change is staged instead: approval-staged.test.ts.
import { afterEach, describe, expect, it } from "vitest";
import type { FakeTurn } from "../support/fake-gemini.js";
import {
  GEOMETRY_TS,
  lastResponses,
  patchCall,
  replaceLineDiff,
  sha256Hex,
  startAgent,
  turn,
  writeCall,
  type AgentRig,
} from "../support/agent-scripts.js";
import { stopAllServers, type TestClient } from "../support/lsp-client.js";
import { ASK, patchBuffer, prompter } from "./approval-scripts.js";

afterEach(stopAllServers);

const A = GEOMETRY_TS;

/** A write_file that replaces notes.md, built on what the editor (or the disk) holds now. */
function writeNotes(client: () => TestClient, content: string): FakeTurn {
  const before = client().buffer("notes.md")?.text ?? "notes\n";
  return turn({ calls: [writeCall("notes.md", content, sha256Hex(before))] });
}

describe("with window/showMessageRequest", () => {
  it("asks with the file and the +/− counts and three actions; Reject answers the model `rejected`", async () => {
    const user = prompter(() => "Reject");
    const rig = await startAgent({
      files: { "a.ts": A },
      initializationOptions: ASK,
      showMessageRequest: user.handler,
      script: [
        turn({
          calls: [
            patchCall("a.ts", replaceLineDiff("a.ts", A, "  return w * h;", "  return h * w;"), sha256Hex(A)),
          ],
        }),
        turn({ text: ["Understood."] }),
      ],
    });
    await rig.client.open("a.ts");
    const job = await rig.finished(await rig.ask("swap the factors"));
    expect(job.status).toBe("done");

    expect(user.prompts).toHaveLength(1);
    const prompt = user.prompts[0]!;
    expect(prompt.message).toContain("a.ts");
    expect(prompt.message).toContain("safe_patch");
    expect(prompt.message).toMatch(/\+1 [−-]1/);
    expect(prompt.actions?.map((a) => a.title)).toEqual([
      "Apply",
      "Always allow safe_patch this session",
      "Reject",
      "Stop the run",
    ]);

    const [answer] = lastResponses(rig.fake!.requests[1]);
    expect(answer?.response.ok).toBe(false);
    expect(answer?.response.error?.code).toBe("rejected");
    expect(answer?.response.data?.["latest_file_state"]).toMatchObject({ sha256: sha256Hex(A) });
    expect(rig.client.buffer("a.ts")?.text).toBe(A);
    expect(rig.client.applyEditRequests).toHaveLength(0);
    expect(job.files_changed).toEqual([]);
  });

  it("Apply lands the change", async () => {
    const user = prompter(() => "Apply");
    const rig = await startAgent({
      files: { "a.ts": A },
      initializationOptions: ASK,
      showMessageRequest: user.handler,
      script: [
        turn({
          calls: [
            patchCall("a.ts", replaceLineDiff("a.ts", A, "  return w * h;", "  return h * w;"), sha256Hex(A)),
          ],
        }),
        turn({ text: ["Swapped."] }),
      ],
    });
    await rig.client.open("a.ts");
    const job = await rig.finished(await rig.ask("swap the factors"));
    expect(job).toMatchObject({ status: "done", files_changed: ["a.ts"] });
    expect(user.prompts).toHaveLength(1);
    expect(lastResponses(rig.fake!.requests[1])[0]?.response).toMatchObject({
      ok: true,
      data: { applied: true },
    });
    expect(rig.client.buffer("a.ts")?.text).toBe(A.replace("w * h", "h * w"));
  });

  it("'Always allow safe_patch this session' stops the prompts for safe_patch only, until reset_session", async () => {
    const user = prompter((p) => (p.message.includes("safe_patch") ? "Always allow safe_patch" : "Apply"));
    const me = (): AgentRig => rig;
    const steps: (() => FakeTurn)[] = [
      // run 1: two patches, the first answered "always"
      () => patchBuffer(me, "  return w * h;", "  return h * w;"),
      () => patchBuffer(me, "  return 2 * (w + h);", "  return 2 * (h + w);"),
      () => turn({ text: ["Two patches."] }),
      // run 2: a patch (not asked), then write_file (asked: another tool)
      () => patchBuffer(me, "  return h * w;", "  return (h * w);"),
      () => writeNotes(() => me().client, "new notes\n"),
      () => turn({ text: ["Patched and wrote."] }),
      // run 3, after reset_session: asked again
      () => patchBuffer(me, "  return (h * w);", "  return w * h;"),
      () => turn({ text: ["Asked again."] }),
    ];
    const rig = await startAgent({
      files: { "a.ts": A, "notes.md": "notes\n" },
      initializationOptions: ASK,
      showMessageRequest: user.handler,
      script: (_request, index) => steps[index]?.() ?? turn({ text: ["(script ended)"] }),
    });
    await rig.client.open("a.ts");
    await rig.client.open("notes.md");

    expect((await rig.finished(await rig.ask("two changes"))).status).toBe("done");
    expect(user.prompts.map((p) => p.message)).toEqual([expect.stringContaining("safe_patch")]);
    expect(rig.client.buffer("a.ts")?.text).toBe(
      A.replace("w * h", "h * w").replace("2 * (w + h)", "2 * (h + w)"),
    );
    expect((await rig.client.command("session")).data).toMatchObject({ always_allowed: ["safe_patch"] });

    const second = await rig.finished(await rig.ask("more"));
    expect(second).toMatchObject({ status: "done", files_changed: ["a.ts", "notes.md"] });
    expect(user.prompts).toHaveLength(2);
    expect(user.prompts[1]?.message).toContain("write_file");
    expect(user.prompts[1]?.actions?.map((a) => a.title)).toContain("Always allow write_file this session");
    expect(rig.client.buffer("notes.md")?.text).toBe("new notes\n");

    expect((await rig.client.command("reset_session")).ok).toBe(true);
    expect((await rig.client.command("session")).data).toMatchObject({ always_allowed: [] });
    expect((await rig.finished(await rig.ask("once more"))).status).toBe("done");
    expect(user.prompts).toHaveLength(3);
    expect(user.prompts[2]?.message).toContain("safe_patch");
  });

  it("'Always allow write_file this session' stops the prompts for write_file, until reset_session", async () => {
    const user = prompter((p) => (p.message.includes("write_file") ? "Always allow write_file" : "Apply"));
    const me = (): TestClient => rig.client;
    const steps: (() => FakeTurn)[] = [
      () => writeNotes(me, "one\n"),
      () => writeNotes(me, "two\n"),
      () => turn({ text: ["Wrote twice."] }),
      () => writeNotes(me, "three\n"),
      () => turn({ text: ["Wrote again."] }),
    ];
    const rig = await startAgent({
      files: { "notes.md": "notes\n" },
      initializationOptions: ASK,
      showMessageRequest: user.handler,
      script: (_request, index) => steps[index]?.() ?? turn({ text: ["(script ended)"] }),
    });
    await rig.client.open("notes.md");
    expect((await rig.finished(await rig.ask("write twice"))).status).toBe("done");
    expect(user.prompts).toHaveLength(1);
    expect(rig.client.buffer("notes.md")?.text).toBe("two\n");

    await rig.client.command("reset_session");
    expect((await rig.finished(await rig.ask("write again"))).status).toBe("done");
    expect(user.prompts).toHaveLength(2);
    expect(rig.client.buffer("notes.md")?.text).toBe("three\n");
  });

  it("a new server process asks again for both tools: nothing was persisted", async () => {
    const first = prompter((p) =>
      p.message.includes("write_file") ? "Always allow write_file" : "Always allow safe_patch",
    );
    const one = await startAgent({
      files: { "a.ts": A, "notes.md": "notes\n" },
      initializationOptions: ASK,
      showMessageRequest: first.handler,
      script: (_request, index) =>
        [
          () =>
            turn({
              calls: [
                patchCall(
                  "a.ts",
                  replaceLineDiff("a.ts", A, "  return w * h;", "  return h * w;"),
                  sha256Hex(A),
                ),
                writeCall("notes.md", "one\n", sha256Hex("notes\n")),
              ],
            }),
          () => turn({ text: ["Both allowed for this session."] }),
        ][index]?.() ?? turn({ text: ["(script ended)"] }),
    });
    const job = await one.finished(await one.ask("change both"));
    expect(job.status).toBe("done");
    expect(first.prompts).toHaveLength(2);
    expect((await one.client.command("session")).data).toMatchObject({
      always_allowed: ["safe_patch", "write_file"],
    });
    expect(await one.client.shutdown()).toBe(0);

    // The edits went to the first editor's buffers; the disk still has the originals.
    const second = prompter(() => "Apply");
    const two = await startAgent({
      root: one.root,
      files: {},
      initializationOptions: ASK,
      showMessageRequest: second.handler,
      script: [
        turn({
          calls: [
            patchCall("a.ts", replaceLineDiff("a.ts", A, "  return w * h;", "  return h * w;"), sha256Hex(A)),
            writeCall("notes.md", "one\n", sha256Hex("notes\n")),
          ],
        }),
        turn({ text: ["Asked twice."] }),
      ],
    });
    await two.client.open("a.ts");
    await two.client.open("notes.md");
    expect((await two.client.command("session")).data).toMatchObject({ always_allowed: [] });
    expect((await two.finished(await two.ask("change both again"))).status).toBe("done");
    expect(second.prompts.map((p) => p.message)).toEqual([
      expect.stringContaining("safe_patch"),
      expect.stringContaining("write_file"),
    ]);
  });
});

describe("failures the user is never asked about", () => {
  const bogusDiff =
    "--- a/a.ts\n+++ b/a.ts\n@@ -1,3 +1,3 @@\n export function volume(w: number) {\n-  return w * w * w;\n+  return w ** 3;\n }\n";
  const failing = (): FakeTurn =>
    turn({
      calls: [
        patchCall("a.ts", replaceLineDiff("a.ts", A, "  return w * h;", "  return h * w;"), "0".repeat(64)),
        patchCall("a.ts", bogusDiff, sha256Hex(A)),
        writeCall("a.ts", "replaced\n", "f".repeat(64)),
      ],
    });

  const check = (rig: AgentRig): void => {
    const answers = lastResponses(rig.fake!.requests[1]).map((r) => r.response);
    expect(answers.map((r) => r.error?.code)).toEqual(["state_mismatch", "invalid_diff", "state_mismatch"]);
    expect(answers[1]?.error?.message).toMatch(/^Invalid Diff:/);
    for (const r of answers)
      expect(r.data?.["latest_file_state"]).toMatchObject({ file_path: "a.ts", sha256: sha256Hex(A) });
    expect(rig.client.buffer("a.ts")?.text).toBe(A);
  };

  it("answers a bad hash and a diff that does not fit at once, without a prompt", async () => {
    const user = prompter(() => "Apply");
    const rig = await startAgent({
      files: { "a.ts": A },
      initializationOptions: ASK,
      showMessageRequest: user.handler,
      script: [failing(), turn({ text: ["I will read first."] })],
    });
    await rig.client.open("a.ts");
    expect((await rig.finished(await rig.ask("change a.ts"))).status).toBe("done");
    expect(user.prompts).toHaveLength(0);
    check(rig);
  });

  it("answers them at once without staging anything (no diagnostics) in Helix", async () => {
    const rig = await startAgent({
      files: { "a.ts": A },
      style: "helix",
      initializationOptions: ASK,
      script: [failing(), turn({ text: ["I will read first."] })],
    });
    await rig.client.open("a.ts");
    expect((await rig.finished(await rig.ask("change a.ts"))).status).toBe("done");
    expect(
      rig.client.notifications.filter(
        (n) =>
          n.method === "textDocument/publishDiagnostics" &&
          (n.params as { diagnostics: unknown[] }).diagnostics.length > 0,
      ),
    ).toHaveLength(0);
    check(rig);
  });
});
