// approval "review": the model's change is staged hunk by hunk in the editor
// (information diagnostics, code actions, lockstep.review / lockstep.decide);
// accepting a hunk applies it alone, placed on the buffer as it is now; the
// model hears which hunks landed. Real server over stdio, the editor-like test client.
import type { CodeAction, Diagnostic } from "vscode-languageserver-protocol";
import { afterEach, describe, expect, it } from "vitest";
import {
  lastResponses,
  sha256Hex,
  startAgent,
  turn,
  writeCall,
  type AgentRig,
} from "../support/agent-scripts.js";
import { stopAllServers, type EditorStyle } from "../support/lsp-client.js";

afterEach(stopAllServers);

const BEFORE = Array.from({ length: 20 }, (_, i) => `const v${i + 1} = ${i + 1};`).join("\n") + "\n";
/** Two hunks: line 3 and line 16. */
const PROPOSED = BEFORE.replace("const v3 = 3;", "const v3 = 300;").replace(
  "const v16 = 16;",
  "const v16 = 1600;",
);
const REVIEW = { approval: "review" } as const;

interface Hunk {
  hunk_id: string;
  line: number;
  end_line: number;
  diff: string;
  summary: string;
  conflict?: string;
}
interface Pending {
  change_id: string;
  job_id: string | null;
  tool: string;
  file_path: string;
  hunks: Hunk[];
}

async function rigFor(
  style: EditorStyle,
  files: Record<string, string>,
  calls: () => ReturnType<typeof turn>,
): Promise<AgentRig> {
  return startAgent({
    files,
    style,
    initializationOptions: REVIEW,
    script: (_r, i) => (i === 0 ? calls() : turn({ text: ["Done."] })),
  });
}

async function pendingOf(rig: AgentRig, count = 1): Promise<Pending[]> {
  // Up to 15 s and more (each round asks the server): room for a loaded machine.
  for (let i = 0; i < 750; i++) {
    const answer = await rig.client.command("review", {});
    const pending = (answer.ok ? answer.data["pending"] : []) as Pending[];
    if (pending.length >= count) return pending;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("nothing staged for review");
}

const hunkStatuses = (rig: AgentRig): unknown =>
  lastResponses(rig.fake!.requests[1]).map((r) => ({
    ok: r.response.ok,
    code: r.response.error?.code,
    hunks: r.response.data?.["hunks"],
  }));

describe("approval review", () => {
  it("two hunks: the user accepts one by code action and rejects the other; the model hears exactly that", async () => {
    const rig = await rigFor("helix", { "a.ts": BEFORE }, () =>
      turn({ calls: [writeCall("a.ts", PROPOSED, sha256Hex(BEFORE))] }),
    );
    await rig.client.open("a.ts");
    const id = await rig.ask("bump two values");
    const [change] = await pendingOf(rig);
    expect(change).toMatchObject({ job_id: id, tool: "write_file", file_path: "a.ts" });
    expect(change!.hunks.map((h) => [h.line, h.end_line])).toEqual([
      [3, 3],
      [16, 16],
    ]);
    expect(change!.hunks[0]!.diff).toContain("-const v3 = 3;\n+const v3 = 300;");
    expect(change!.hunks.map((h) => h.summary)).toEqual([
      "+1 −1: const v3 = 300;",
      "+1 −1: const v16 = 1600;",
    ]);

    const uri = rig.client.uri("a.ts");
    const shown = await rig.client.waitForNotification(
      "textDocument/publishDiagnostics",
      (p) =>
        (p as { uri: string; diagnostics: Diagnostic[] }).uri === uri &&
        (p as { diagnostics: Diagnostic[] }).diagnostics.length === 2,
    );
    const diagnostics = (shown.params as { diagnostics: Diagnostic[] }).diagnostics;
    expect(diagnostics.map((d) => [d.range.start.line, d.severity, d.source, d.message])).toEqual([
      [2, 3, "lockstep", "proposed change +1 −1: const v3 = 300;"],
      [15, 3, "lockstep", "proposed change +1 −1: const v16 = 1600;"],
    ]);
    await rig.waitForEvent(id, (e) => e.kind === "status" && e.message === "waiting for review of a.ts");

    const at = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 0 } });
    const accept = ((await rig.client.codeActions("a.ts", at(2))) as CodeAction[]).find(
      (a) => a.title === "lockstep: Accept this change",
    )!;
    expect(accept.command?.arguments).toEqual([{ id: change!.hunks[0]!.hunk_id, decision: "apply" }]);
    expect((await rig.client.runCodeAction(accept))?.ok).toBe(true);
    expect(rig.client.buffer("a.ts")?.text).toBe(BEFORE.replace("const v3 = 3;", "const v3 = 300;"));
    expect((await rig.job(id)).status).toBe("running");
    const reject = ((await rig.client.codeActions("a.ts", at(15))) as CodeAction[]).find(
      (a) => a.title === "lockstep: Reject this change",
    )!;
    expect((await rig.client.runCodeAction(reject))?.ok).toBe(true);

    expect((await rig.finished(id)).status).toBe("done");
    expect(hunkStatuses(rig)).toEqual([
      {
        ok: true,
        code: undefined,
        hunks: [
          { hunk_id: change!.hunks[0]!.hunk_id, status: "applied" },
          { hunk_id: change!.hunks[1]!.hunk_id, status: "rejected" },
        ],
      },
    ]);
    const answer = lastResponses(rig.fake!.requests[1])[0]!.response;
    expect(answer.data?.["message"]).toMatch(/^Partly applied: the user took 1 of 2 hunks/);
    expect(answer.data?.["latest_file_state"]).toMatchObject({
      content: BEFORE.replace("const v3 = 3;", "const v3 = 300;"),
    });
    await rig.client.waitForNotification(
      "textDocument/publishDiagnostics",
      (p) => (p as { uri: string }).uri === uri && (p as { diagnostics: unknown[] }).diagnostics.length === 0,
    );
  });

  it("accepts a hunk after the user typed elsewhere in the file: the typing stays", async () => {
    const rig = await rigFor("neovim", { "a.ts": BEFORE }, () =>
      turn({ calls: [writeCall("a.ts", PROPOSED, sha256Hex(BEFORE))] }),
    );
    await rig.client.open("a.ts");
    const id = await rig.ask("bump");
    const [change] = await pendingOf(rig);
    await rig.client.type("a.ts", "const v10 = 10;", "const v10 = 10; // typed meanwhile");
    await rig.client.settled();
    expect(await rig.client.command("decide", { id: change!.change_id, decision: "apply" })).toMatchObject({
      ok: true,
      data: { hunks: [{ status: "applied" }, { status: "applied" }] },
    });
    expect((await rig.finished(id)).status).toBe("done");
    await rig.client.settled();
    expect(rig.client.buffer("a.ts")?.text).toBe(
      PROPOSED.replace("const v10 = 10;", "const v10 = 10; // typed meanwhile"),
    );
    expect(lastResponses(rig.fake!.requests[1])[0]!.response.data?.["message"]).toMatch(
      /accepted all 2 hunks/,
    );
  });

  it("refuses a hunk whose own lines the user changed meanwhile: conflict, never forced; the other lands", async () => {
    const rig = await rigFor("eglot", { "a.ts": BEFORE }, () =>
      turn({ calls: [writeCall("a.ts", PROPOSED, sha256Hex(BEFORE))] }),
    );
    await rig.client.open("a.ts");
    const id = await rig.ask("bump");
    const [change] = await pendingOf(rig);
    await rig.client.type("a.ts", "const v16 = 16;", "const v16 = 16 * 1;");
    await rig.client.flush();
    // lockstep.review says so before anything is decided, and only of that hunk.
    const [listed] = (await rig.client.command("review", {})).data!["pending"] as Pending[];
    expect(listed!.hunks.map((h) => h.conflict)).toEqual([
      undefined,
      expect.stringMatching(/^Conflict: the lines it changes \(lines 16–16\)/),
    ]);
    const decided = await rig.client.command("decide", { file_path: "a.ts", decision: "apply" });
    expect(decided).toMatchObject({
      ok: true,
      data: {
        hunks: [
          { hunk_id: change!.hunks[0]!.hunk_id, status: "applied" },
          { hunk_id: change!.hunks[1]!.hunk_id, status: "conflict" },
        ],
      },
    });
    await rig.client.flush();
    expect((await rig.finished(id)).status).toBe("done");
    expect(rig.client.buffer("a.ts")?.text).toBe(
      BEFORE.replace("const v3 = 3;", "const v3 = 300;").replace("const v16 = 16;", "const v16 = 16 * 1;"),
    );
    const hunks = (lastResponses(rig.fake!.requests[1])[0]!.response.data?.["hunks"] ?? []) as {
      status: string;
      message?: string;
    }[];
    expect(hunks.map((h) => h.status)).toEqual(["applied", "conflict"]);
    expect(hunks[1]!.message).toMatch(/^Conflict: the lines it changes \(lines 16–16\) were edited/);
  });

  it("reviews changes to two files: lockstep.review lists both, each decided on its own", async () => {
    const other = "export const name = 'old';\n";
    const rig = await rigFor("helix", { "a.ts": BEFORE, "b.ts": other }, () =>
      turn({
        calls: [
          writeCall("a.ts", PROPOSED, sha256Hex(BEFORE)),
          writeCall("b.ts", "export const name = 'new';\n", sha256Hex(other)),
        ],
      }),
    );
    const id = await rig.ask("both");
    // The model's calls run in order: b.ts is staged once a.ts is decided.
    const [first] = await pendingOf(rig);
    expect(first!.file_path).toBe("a.ts");
    expect((await rig.client.command("decide", { id: first!.change_id, decision: "reject" })).ok).toBe(true);
    const [second] = await pendingOf(rig);
    expect(second!.file_path).toBe("b.ts");
    expect(await rig.client.command("review", { file_path: "a.ts" })).toMatchObject({
      ok: true,
      data: { pending: [] },
    });
    expect(
      (await rig.client.command("decide", { id: second!.hunks[0]!.hunk_id, decision: "apply" })).ok,
    ).toBe(true);
    expect((await rig.finished(id)).status).toBe("done");
    expect(hunkStatuses(rig)).toEqual([
      {
        ok: false,
        code: "rejected",
        hunks: [
          expect.objectContaining({ status: "rejected" }),
          expect.objectContaining({ status: "rejected" }),
        ],
      },
      { ok: true, code: undefined, hunks: [expect.objectContaining({ status: "applied" })] },
    ]);
    expect(await rig.disk("a.ts")).toBe(BEFORE);
  });

  it("a cancelled run withdraws what waits for review: nothing more lands, the diagnostics go", async () => {
    const rig = await rigFor("helix", { "a.ts": BEFORE }, () =>
      turn({ calls: [writeCall("a.ts", PROPOSED, sha256Hex(BEFORE))] }),
    );
    await rig.client.open("a.ts");
    const id = await rig.ask("bump");
    await pendingOf(rig);
    const uri = rig.client.uri("a.ts");
    const from = rig.client.notifications.length;
    expect((await rig.client.command("cancel", { job_id: id })).ok).toBe(true);
    expect((await rig.finished(id)).status).toBe("cancelled");
    await rig.client.waitForNotification(
      "textDocument/publishDiagnostics",
      (p) => (p as { uri: string }).uri === uri && (p as { diagnostics: unknown[] }).diagnostics.length === 0,
      5000,
      from,
    );
    expect(await rig.client.command("review", {})).toMatchObject({ ok: true, data: { pending: [] } });
    expect(rig.client.buffer("a.ts")?.text).toBe(BEFORE);
  });

  it("a prompt closed without a choice leaves the change staged for review, not rejected", async () => {
    const rig = await startAgent({
      files: { "a.ts": BEFORE },
      style: "neovim",
      initializationOptions: { approval: "ask" },
      showMessageRequest: async () => null,
      script: (_r, i) =>
        i === 0
          ? turn({ calls: [writeCall("a.ts", PROPOSED, sha256Hex(BEFORE))] })
          : turn({ text: ["Done."] }),
    });
    await rig.client.open("a.ts");
    const id = await rig.ask("bump");
    const [change] = await pendingOf(rig);
    expect(rig.client.requests.filter((r) => r.method === "window/showMessageRequest")).toHaveLength(1);
    expect((await rig.client.command("decide", { id: change!.change_id, decision: "apply" })).ok).toBe(true);
    expect((await rig.finished(id)).status).toBe("done");
    expect(hunkStatuses(rig)).toEqual([
      {
        ok: true,
        code: undefined,
        hunks: [
          expect.objectContaining({ status: "applied" }),
          expect.objectContaining({ status: "applied" }),
        ],
      },
    ]);
  });

  it("decide refuses what it cannot do: an unknown id, always for one hunk, a bad decision", async () => {
    const rig = await rigFor("helix", { "a.ts": BEFORE }, () =>
      turn({ calls: [writeCall("a.ts", PROPOSED, sha256Hex(BEFORE))] }),
    );
    const id = await rig.ask("bump");
    const [change] = await pendingOf(rig);
    expect(await rig.client.command("decide", { id: "c999", decision: "apply" })).toMatchObject({
      ok: false,
      error: { code: "not_found" },
    });
    expect(
      await rig.client.command("decide", { id: change!.hunks[0]!.hunk_id, decision: "always" }),
    ).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
    expect(await rig.client.command("decide", { id: change!.change_id, decision: "maybe" })).toMatchObject({
      ok: false,
      error: { code: "invalid_argument" },
    });
    expect(await rig.client.command("decide", { file_path: "nope.ts", decision: "apply" })).toMatchObject({
      ok: false,
      error: { code: "not_found" },
    });
    expect((await rig.client.command("decide", { id: change!.change_id, decision: "always" })).ok).toBe(true);
    expect((await rig.finished(id)).status).toBe("done");
    // Helix loads a file that is not open into a buffer of its own: the change is there, unsaved.
    expect(rig.client.buffer("a.ts")?.text).toBe(PROPOSED);
    expect((await rig.client.command("session", {})).data?.["always_allowed"]).toEqual(["write_file"]);
  });
});
