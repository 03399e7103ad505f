// The question with the change in it (lockstep/approve, for lockstep's own clients): each
// file's diff arrives with the question; "no" with a reason reaches the model in the
// rejection; "stop" ends the run at once, with no further model request and the file as it was.
import { afterEach, describe, expect, it } from "vitest";
import {
  GEOMETRY_TS,
  lastResponses,
  patchCall,
  replaceLineDiff,
  sha256Hex,
  startAgent,
  turn,
} from "../support/agent-scripts.js";
import { stopAllServers } from "../support/lsp-client.js";

afterEach(stopAllServers);

const A = GEOMETRY_TS;
const ASK = { approval: "ask" } as const;

interface Question {
  message: string;
  tool: string;
  job_id?: string;
  files: { file_path: string; op: string; diff: string; added: number; removed: number }[];
  decisions: string[];
}

function asker(answer: unknown): { questions: Question[]; approve: (params: unknown) => Promise<unknown> } {
  const questions: Question[] = [];
  return { questions, approve: (params) => (questions.push(params as Question), Promise.resolve(answer)) };
}

const swap = (): ReturnType<typeof turn> =>
  turn({
    calls: [
      patchCall("a.ts", replaceLineDiff("a.ts", A, "  return w * h;", "  return h * w;"), sha256Hex(A)),
    ],
  });

describe("lockstep/approve", () => {
  it("carries the file's diff and the decisions it takes; apply lands the change", async () => {
    const user = asker({ decision: "apply" });
    const rig = await startAgent({
      files: { "a.ts": A },
      initializationOptions: ASK,
      approve: user.approve,
      showMessageRequest: () => Promise.reject(new Error("the question should come as lockstep/approve")),
      script: [swap(), turn({ text: ["Swapped."] })],
    });
    await rig.client.open("a.ts");
    const job = await rig.finished(await rig.ask("swap the factors"));
    expect(job).toMatchObject({ status: "done", files_changed: ["a.ts"] });
    expect(user.questions).toHaveLength(1);
    const q = user.questions[0]!;
    expect(q).toMatchObject({
      tool: "safe_patch",
      decisions: ["apply", "always", "reject", "stop"],
      files: [{ file_path: "a.ts", op: "update", added: 1, removed: 1 }],
    });
    expect(q.message).toContain("a.ts");
    expect(q.files[0]!.diff).toContain("-  return w * h;");
    expect(q.files[0]!.diff).toContain("+  return h * w;");
  });

  it("a no with a reason tells the model the reason in the rejection", async () => {
    const user = asker({ decision: "reject", reason: "keep w first; rename h to height instead" });
    const rig = await startAgent({
      files: { "a.ts": A },
      initializationOptions: ASK,
      approve: user.approve,
      script: [swap(), turn({ text: ["Understood."] })],
    });
    await rig.client.open("a.ts");
    const job = await rig.finished(await rig.ask("swap the factors"));
    expect(job.status).toBe("done");
    const [answer] = lastResponses(rig.fake!.requests[1]);
    expect(answer?.response).toMatchObject({ ok: false, error: { code: "rejected" } });
    expect(answer?.response.error?.message).toContain("keep w first; rename h to height instead");
    expect(rig.client.buffer("a.ts")?.text).toBe(A);
  });

  it("stop ends the run: no further model request, the file unchanged, the job says why", async () => {
    const user = asker({ decision: "stop" });
    const rig = await startAgent({
      files: { "a.ts": A },
      initializationOptions: ASK,
      approve: user.approve,
      script: [swap(), turn({ text: ["should not be asked"] })],
    });
    await rig.client.open("a.ts");
    const job = await rig.finished(await rig.ask("swap the factors"));
    expect(job.status).toBe("cancelled");
    expect(JSON.stringify(job)).toContain("Stopped");
    expect(rig.fake!.requests).toHaveLength(1);
    expect(rig.client.buffer("a.ts")?.text).toBe(A);
    expect(rig.client.applyEditRequests).toHaveLength(0);
  });

  it("an answer that is not one of the decisions stages the change for review instead", async () => {
    const user = asker({ decision: "maybe" });
    const rig = await startAgent({
      files: { "a.ts": A },
      initializationOptions: ASK,
      approve: user.approve,
      script: [swap(), turn({ text: ["ok"] })],
    });
    await rig.client.open("a.ts");
    const id = await rig.ask("swap the factors");
    await expect
      .poll(
        () =>
          rig.client.notifications.some(
            (m) =>
              m.method === "textDocument/publishDiagnostics" && JSON.stringify(m.params).includes("lockstep"),
          ),
        { timeout: 20_000 },
      )
      .toBe(true);
    await rig.client.command("cancel", { job_id: id });
    expect(rig.client.buffer("a.ts")?.text).toBe(A);
  });
});
