// lockstep.revert undoes a job's changes by content: later typing elsewhere
// stays, a file whose changed lines were edited since is left and reported, a
// file the job created goes only where the editor can delete it. And a "no" in
// the editor's own prompt reaches the model as `rejected`.
import { existsSync } from "node:fs";
import path from "node:path";
import { ResponseError } from "vscode-jsonrpc";
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
const PROPOSED = BEFORE.replace("const v3 = 3;", "const v3 = 300;").replace(
  "const v16 = 16;",
  "const v16 = 1600;",
);
const AUTO = { approval: "auto" } as const;

/** A run that writes a.ts (and creates new.ts), with approval auto; returns the rig and the job id, finished. */
async function ranJob(style: EditorStyle): Promise<{ rig: AgentRig; id: string }> {
  const rig = await startAgent({
    files: { "a.ts": BEFORE },
    style,
    initializationOptions: AUTO,
    script: (_r, i) =>
      i === 0
        ? turn({
            calls: [
              writeCall("a.ts", PROPOSED, sha256Hex(BEFORE)),
              writeCall("new.ts", "export const fresh = true;\n"),
            ],
          })
        : turn({ text: ["Done."] }),
  });
  await rig.client.open("a.ts");
  const id = await rig.ask("change a.ts and add new.ts");
  expect((await rig.finished(id)).status).toBe("done");
  await rig.client.settled();
  expect(rig.client.buffer("a.ts")?.text).toBe(PROPOSED);
  return { rig, id };
}

interface Reverted {
  file_path: string;
  status: string;
  message: string;
}
const filesOf = (answer: { ok: boolean; data?: Record<string, unknown> }): Reverted[] =>
  (answer.data?.["files"] ?? []) as Reverted[];

describe("lockstep.revert", () => {
  it("undoes the last job and keeps what the user typed since elsewhere in the file; the created file is deleted", async () => {
    const { rig, id } = await ranJob("helix");
    await rig.client.type("a.ts", "const v10 = 10;", "const v10 = 10; // mine");
    const answer = await rig.client.command("revert", {});
    expect(answer).toMatchObject({ ok: true, data: { job_id: id } });
    expect(filesOf(answer).map((f) => [f.file_path, f.status])).toEqual([
      ["a.ts", "reverted"],
      ["new.ts", "reverted"],
    ]);
    expect(rig.client.buffer("a.ts")?.text).toBe(
      BEFORE.replace("const v10 = 10;", "const v10 = 10; // mine"),
    );
    expect(existsSync(path.join(rig.root, "new.ts"))).toBe(false);
    // Reverted once: there is nothing left of that job to undo.
    expect(await rig.client.command("revert", { job_id: id })).toMatchObject({
      ok: false,
      error: { code: "not_found" },
    });
  });

  it("leaves a file whose changed lines the user edited since, and reports the part that would be undone", async () => {
    const { rig, id } = await ranJob("neovim");
    await rig.client.type("a.ts", "const v16 = 1600;", "const v16 = 1601;");
    await rig.client.settled();
    const answer = await rig.client.command("revert", { job_id: id });
    const a = filesOf(answer).find((f) => f.file_path === "a.ts")!;
    expect(a.status).toBe("conflict");
    expect(a.message).toContain("-const v16 = 1600;");
    expect(a.message).toContain("+const v16 = 16;");
    await rig.client.settled();
    expect(rig.client.buffer("a.ts")?.text).toBe(PROPOSED.replace("const v16 = 1600;", "const v16 = 1601;"));
  });

  it("in an editor that cannot delete files (eglot 1.9), the created file stays and is reported with what to do", async () => {
    const { rig } = await ranJob("eglot");
    await rig.client.flush();
    const answer = await rig.client.command("revert", {});
    await rig.client.flush();
    const files = filesOf(answer);
    expect(files.find((f) => f.file_path === "a.ts")?.status).toBe("reverted");
    expect(files.find((f) => f.file_path === "new.ts")).toMatchObject({
      status: "conflict",
      message: expect.stringMatching(/cannot delete files.*Delete new\.ts yourself/) as string,
    });
    expect(rig.client.buffer("a.ts")?.text).toBe(BEFORE);
  });

  it("answers at once for a file whose next change waits for review: left as it is, with what to do", async () => {
    const second = PROPOSED.replace("const v1 = 1;", "const v1 = 100;");
    const rig = await startAgent({
      files: { "a.ts": BEFORE },
      style: "helix",
      initializationOptions: { approval: "review" },
      script: (_r, i) =>
        i === 0
          ? turn({ calls: [writeCall("a.ts", PROPOSED, sha256Hex(BEFORE))] })
          : i === 2
            ? turn({ calls: [writeCall("a.ts", second, sha256Hex(PROPOSED))] })
            : turn({ text: ["Done."] }),
    });
    await rig.client.open("a.ts");
    const first = await rig.ask("bump");
    await rig.client.waitForNotification(
      "textDocument/publishDiagnostics",
      (p) => (p as { diagnostics: unknown[] }).diagnostics.length > 0,
    );
    expect((await rig.client.command("decide", { file_path: "a.ts", decision: "apply" })).ok).toBe(true);
    expect((await rig.finished(first)).status).toBe("done");
    const next = await rig.ask("bump again");
    const from = rig.client.notifications.length;
    await rig.client.waitForNotification(
      "textDocument/publishDiagnostics",
      (p) => (p as { diagnostics: unknown[] }).diagnostics.length > 0,
      5000,
      from,
    );
    const answer = await rig.client.command("revert", { job_id: first });
    expect(filesOf(answer)).toEqual([
      {
        file_path: "a.ts",
        status: "conflict",
        message: expect.stringMatching(/waits for your review/) as string,
      },
    ]);
    expect((await rig.job(next)).status).toBe("running");
    expect(rig.client.buffer("a.ts")?.text).toBe(PROPOSED);
  });

  it("refuses what it cannot do: no job yet, a job id that changed nothing, a bad argument", async () => {
    const rig = await startAgent({
      files: { "a.ts": BEFORE },
      initializationOptions: AUTO,
      script: () => turn({ text: ["nothing"] }),
    });
    expect(await rig.client.command("revert", {})).toMatchObject({
      ok: false,
      error: { code: "not_found", message: expect.stringMatching(/no job has changed a file/) as string },
    });
    expect(await rig.client.command("revert", { job_id: "job-404" })).toMatchObject({
      ok: false,
      error: { code: "not_found" },
    });
    expect(await rig.client.command("revert", { job: 1 })).toMatchObject({
      ok: false,
      error: { code: "invalid_argument" },
    });
  });
});

describe("the editor's own prompt", () => {
  it("a user who answers no to eglot's Proceed? is a rejection: the model hears rejected, not state_mismatch", async () => {
    const rig = await startAgent({
      files: { "a.ts": BEFORE },
      style: "eglot",
      initializationOptions: AUTO,
      beforeApplyEdit: () => {
        throw new ResponseError(-32603, "User cancelled server edit");
      },
      script: (_r, i) =>
        i === 0 ? turn({ calls: [writeCall("a.ts", PROPOSED, sha256Hex(BEFORE))] }) : turn({ text: ["ok"] }),
    });
    await rig.client.open("a.ts");
    const id = await rig.ask("bump");
    expect((await rig.finished(id)).status).toBe("done");
    const answer = lastResponses(rig.fake!.requests[1])[0]!.response;
    expect(answer.error).toMatchObject({
      code: "rejected",
      message: expect.stringMatching(/declined the edit to a\.ts in the editor's own prompt/) as string,
    });
    expect(rig.client.buffer("a.ts")?.text).toBe(BEFORE);
  });
});
