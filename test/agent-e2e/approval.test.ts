// Approval of the model's changes (approval "ask"): a showMessageRequest prompt
// where the client has one, else a staged change shown as diagnostics and decided
// through code actions. "Always allow" is per tool and per server process.
import type {
  CodeAction,
  Diagnostic,
  MessageActionItem,
  ShowMessageRequestParams,
} from "vscode-languageserver-protocol";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeTurn } from "../support/fake-gemini.js";
import {
  GEOMETRY_TS,
  lastResponses,
  patchCall,
  pick,
  replaceLineDiff,
  sha256Hex,
  startAgent,
  turn,
  writeCall,
  type AgentRig,
} from "../support/agent-scripts.js";
import { stopAllServers, type TestClient } from "../support/lsp-client.js";

afterEach(stopAllServers);

const A = GEOMETRY_TS;

const ASK = { approval: "ask" } as const;

/** A prompt handler that records every prompt and answers with the action starting with `answer()`. */
function prompter(answer: (params: ShowMessageRequestParams) => string): {
  prompts: ShowMessageRequestParams[];
  handler: (params: ShowMessageRequestParams) => Promise<MessageActionItem | null>;
} {
  const prompts: ShowMessageRequestParams[] = [];
  return {
    prompts,
    handler: (params) => {
      prompts.push(params);
      return Promise.resolve(pick(params, answer(params)));
    },
  };
}

/** A safe_patch built, when the request comes, on what the editor's buffer holds now. */
function patchBuffer(rig: () => AgentRig, oldLine: string, newLine: string): FakeTurn {
  const text = rig().client.buffer("a.ts")?.text;
  if (text === undefined) return turn({ text: ["a.ts is not open"] });
  return turn({
    calls: [patchCall("a.ts", replaceLineDiff("a.ts", text, oldLine, newLine), sha256Hex(text))],
  });
}

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

describe("without window/showMessageRequest (Helix)", () => {
  const isStaged =
    (uri: string) =>
    (params: unknown): boolean => {
      const p = params as { uri: string; diagnostics: Diagnostic[] };
      return p.uri === uri && p.diagnostics.length > 0;
    };
  const isCleared =
    (uri: string) =>
    (params: unknown): boolean => {
      const p = params as { uri: string; diagnostics: Diagnostic[] };
      return p.uri === uri && p.diagnostics.length === 0;
    };

  function stagedRig(files: Record<string, string>, steps: (() => FakeTurn)[]): Promise<AgentRig> {
    return startAgent({
      files,
      style: "helix",
      initializationOptions: ASK,
      script: (_request, index) => steps[index]?.() ?? turn({ text: ["(script ended)"] }),
    });
  }

  it("stages the change as information diagnostics on the changed lines; the apply action lands it and clears them", async () => {
    const rig = await stagedRig({ "a.ts": A }, [
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
      () => turn({ text: ["Expanded."] }),
    ]);
    await rig.client.open("a.ts");
    const uri = rig.client.uri("a.ts");
    const id = await rig.ask("expand the perimeter");

    const staged = await rig.client.waitForNotification("textDocument/publishDiagnostics", isStaged(uri));
    const diagnostics = (staged.params as { diagnostics: Diagnostic[] }).diagnostics;
    expect(diagnostics.every((d) => d.severity === 3 && d.source === "lockstep")).toBe(true);
    expect(diagnostics.map((d) => d.range.start.line)).toEqual([5]);
    expect(diagnostics[0]?.message).toBe("proposed change +1 −1: return 2 * w + 2 * h;");
    expect(rig.client.requests.filter((r) => r.method === "window/showMessageRequest")).toHaveLength(0);
    expect((await rig.job(id)).status).toBe("running");

    const actions = (await rig.client.codeActions("a.ts", {
      start: { line: 5, character: 0 },
      end: { line: 5, character: 0 },
    })) as CodeAction[];
    const titles = actions.map((a) => a.title);
    expect(titles).toEqual(
      expect.arrayContaining([
        "lockstep: Accept this change",
        "lockstep: Reject this change",
        "lockstep: Accept all proposed changes in a.ts",
        expect.stringMatching(/always allow safe_patch/i),
        "lockstep: Show proposed diff",
      ]),
    );
    const apply = actions.find((a) => a.title === "lockstep: Accept this change")!;
    expect(apply.command?.command).toBe("lockstep.decide");
    const from = rig.client.notifications.length;
    expect((await rig.client.runCodeAction(apply))?.ok).toBe(true);

    await rig.client.waitForNotification("textDocument/publishDiagnostics", isCleared(uri), 5000, from);
    const job = await rig.finished(id);
    expect(job).toMatchObject({ status: "done", files_changed: ["a.ts"] });
    expect(rig.client.buffer("a.ts")?.text).toBe(
      A.replace("  return 2 * (w + h);", "  return 2 * w + 2 * h;"),
    );
    expect(await rig.client.codeActions("a.ts")).not.toEqual(
      expect.arrayContaining([expect.objectContaining({ title: apply.title })]),
    );
  });

  it("the reject action answers the model `rejected`; the always action stops the staging for that tool", async () => {
    const me = (): AgentRig => rig;
    const rig = await stagedRig({ "a.ts": A }, [
      () => patchBuffer(me, "  return w * h;", "  return h * w;"),
      () => patchBuffer(me, "  return w * h;", "  return (w * h);"),
      () => patchBuffer(me, "  return 2 * (w + h);", "  return 2 * (h + w);"),
      () => turn({ text: ["Done."] }),
    ]);
    await rig.client.open("a.ts");
    const uri = rig.client.uri("a.ts");
    const id = await rig.ask("change things");

    // First change: rejected.
    await rig.client.waitForNotification("textDocument/publishDiagnostics", isStaged(uri));
    let actions = (await rig.client.codeActions("a.ts")) as CodeAction[];
    expect(
      (await rig.client.runCodeAction(actions.find((a) => a.title === "lockstep: Reject this change")!))?.ok,
    ).toBe(true);

    // Second change: "always allow safe_patch".
    const from = rig.client.notifications.length;
    await rig.client.waitForNotification("textDocument/publishDiagnostics", isStaged(uri), 5000, from);
    actions = (await rig.client.codeActions("a.ts")) as CodeAction[];
    expect((await rig.client.runCodeAction(actions.find((a) => /always/i.test(a.title))!))?.ok).toBe(true);

    // Third change lands without being staged.
    const job = await rig.finished(id);
    expect(job.status).toBe("done");
    const answers = rig.fake!.requests.slice(1).map((r) => lastResponses(r)[0]?.response);
    expect(answers.map((r) => (r?.ok ? "ok" : r?.error?.code))).toEqual(["rejected", "ok", "ok"]);
    // Two changes were staged (whatever number of times their hunks were published as the buffer changed), not three.
    const staged = new Set(
      rig.client.notifications
        .filter((n) => n.method === "textDocument/publishDiagnostics" && isStaged(uri)(n.params))
        .flatMap((n) =>
          (n.params as { diagnostics: Diagnostic[] }).diagnostics.map(
            (d) => String((d.data as { hunk?: string } | undefined)?.hunk).split(".")[0],
          ),
        ),
    );
    expect(staged.size).toBe(2);
    expect(rig.client.buffer("a.ts")?.text).toBe(
      A.replace("  return w * h;", "  return (w * h);").replace("2 * (w + h)", "2 * (h + w)"),
    );
  });

  it("stages a change to a file that is not open; opening it offers the actions", async () => {
    const rig = await stagedRig({ "a.ts": A }, [
      () =>
        turn({
          calls: [
            patchCall("a.ts", replaceLineDiff("a.ts", A, "  return w * h;", "  return h * w;"), sha256Hex(A)),
          ],
        }),
      () => turn({ text: ["Swapped."] }),
    ]);
    const uri = rig.client.uri("a.ts");
    const id = await rig.ask("swap");
    await rig.client.waitForNotification("textDocument/publishDiagnostics", isStaged(uri));
    await rig.client.open("a.ts");
    const actions = (await rig.client.codeActions("a.ts")) as CodeAction[];
    const apply = actions.find((a) => a.title === "lockstep: Accept all proposed changes in a.ts");
    expect(apply).toBeDefined();
    expect((await rig.client.runCodeAction(apply!))?.ok).toBe(true);
    expect((await rig.finished(id)).status).toBe("done");
    expect(rig.client.buffer("a.ts")?.text).toBe(A.replace("w * h", "h * w"));
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
