// Approval without window/showMessageRequest (Helix): the model's change is staged as information
// diagnostics on the changed lines and decided through code actions (apply, reject, always), for
// an open file and for one that is not open yet.
import type { CodeAction, Diagnostic } from "vscode-languageserver-protocol";
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
  type AgentRig,
} from "../support/agent-scripts.js";
import { stopAllServers } from "../support/lsp-client.js";
import { ASK, patchBuffer } from "./approval-scripts.js";

afterEach(stopAllServers);

const A = GEOMETRY_TS;

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
