// How a run ends other than by finishing: the user cancels (mid-stream, or while a
// change waits for approval), the endpoint rate-limits, or the turn cap is hit.
import type { MessageActionItem, ShowMessageRequestParams } from "vscode-languageserver-protocol";
import { afterEach, describe, expect, it } from "vitest";
import {
  deferred,
  lastResponses,
  patchCall,
  readCall,
  replaceLineDiff,
  sha256Hex,
  startAgent,
  turn,
  type AgentRig,
} from "../support/agent-scripts.js";
import { stopAllServers, type Envelope } from "../support/lsp-client.js";
import { eventually } from "../support/poll.js";

afterEach(stopAllServers);

const A = ["export function area(w: number, h: number): number {", "  return w * h;", "}", ""].join("\n");
const SWAP = patchCall(
  "a.ts",
  replaceLineDiff("a.ts", A, "  return w * h;", "  return h * w;"),
  sha256Hex(A),
);

/** Cancels the job and returns how long it took (ms) until lockstep.job said "cancelled". */
async function cancelAndTime(rig: AgentRig, id: string): Promise<number> {
  const started = performance.now();
  const answer = await rig.client.command("cancel", { job_id: id });
  expect(answer.ok).toBe(true);
  const job = await rig.finished(id, 3000);
  expect(job.status).toBe("cancelled");
  return performance.now() - started;
}

/** Resolves with the result, or with "timed out" after `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | "timed out"> {
  return Promise.race([
    promise,
    new Promise<"timed out">((resolve) => setTimeout(() => resolve("timed out"), ms).unref()),
  ]);
}

/** A showMessageRequest handler the test answers by hand; `asked` resolves when a prompt arrives. */
function heldPrompt(): {
  asked: Promise<ShowMessageRequestParams>;
  answer: (title: string) => void;
  handler: (params: ShowMessageRequestParams) => Promise<MessageActionItem | null>;
} {
  const asked = deferred<ShowMessageRequestParams>();
  const answered = deferred<MessageActionItem | null>();
  return {
    asked: asked.promise,
    answer: (title) => answered.resolve({ title }),
    handler: (params) => {
      asked.resolve(params);
      return answered.promise;
    },
  };
}

/** A run of SWAP under approval "ask", stopped at its prompt: on screen, not yet answered. */
async function runHeldAtPrompt(): Promise<{
  rig: AgentRig;
  id: string;
  user: ReturnType<typeof heldPrompt>;
}> {
  const user = heldPrompt();
  const rig = await startAgent({
    files: { "a.ts": A },
    initializationOptions: { approval: "ask" },
    showMessageRequest: user.handler,
    script: [turn({ calls: [SWAP] }), turn({ text: ["never asked for"] })],
  });
  await rig.client.open("a.ts");
  const id = await rig.ask("swap");
  await user.asked;
  return { rig, id, user };
}

describe("cancel", () => {
  it("stops a run whose model turn hangs within 1 s and releases the connection", async () => {
    const rig = await startAgent({
      files: { "a.ts": A },
      script: [turn({ text: ["Thinking about it"], hang: true })],
    });
    const id = await rig.ask("take your time");
    await rig.waitForEvent(id, (e) => e.kind === "text");
    expect((await rig.job(id)).status).toBe("running");

    expect(await cancelAndTime(rig, id)).toBeLessThan(1000);
    const done = await rig.waitForEvent(id, (e) => e.kind === "done");
    expect(done).toMatchObject({ status: "cancelled" });
    // The server hung up on the endpoint instead of leaving the stream open.
    await eventually(
      () => rig.fake!.requests[0]!.closedByClient === true,
      "the server to close the endpoint's stream",
    );
    // The server is still serving.
    expect((await rig.client.command("read_file", { file_path: "a.ts" })).ok).toBe(true);
  });

  it("stops a run waiting on an approval prompt within 1 s; a late 'Apply' lands nothing", async () => {
    const { rig, id, user } = await runHeldAtPrompt();

    expect(await cancelAndTime(rig, id)).toBeLessThan(1000);
    user.answer("Apply");
    // The answer reaches the server; the change still must not land.
    expect((await rig.client.command("read_file", { file_path: "a.ts" })).data?.["sha256"]).toBe(
      sha256Hex(A),
    );
    await rig.client.waitForRequest("window/showMessageRequest");
    expect((await rig.client.command("read_file", { file_path: "a.ts" })).data?.["sha256"]).toBe(
      sha256Hex(A),
    );
    expect(rig.client.applyEditRequests).toHaveLength(0);
    expect(rig.client.buffer("a.ts")?.text).toBe(A);
    expect(rig.fake!.requests).toHaveLength(1);
  });

  it("a cancelled job stays as it ended: no stream events after `done`, and lockstep.job does not change", async () => {
    const { rig, id, user } = await runHeldAtPrompt();
    await cancelAndTime(rig, id);
    const ended = await rig.job(id);

    // The user dismisses the stale prompt later; the server hears the answer.
    user.answer("Reject");
    await rig.client.waitForRequest("window/showMessageRequest");
    await rig.client.command("read_file", { file_path: "a.ts" });

    const events = rig.events(id);
    const done = events.findIndex((e) => e.kind === "done");
    expect(events.slice(done + 1)).toEqual([]);
    expect(await rig.job(id)).toEqual(ended);
  });

  it("after cancelling a run whose prompt is still on screen, the user's own edit of that file is not blocked", async () => {
    const { rig, id, user } = await runHeldAtPrompt();
    await cancelAndTime(rig, id);

    // The prompt of the cancelled run is still open in the editor (the user has not
    // looked at it). The user's own patch of the same file must not wait on it.
    const own = rig.client.command("safe_patch", {
      file_path: "a.ts",
      unified_diff: replaceLineDiff("a.ts", A, "  return w * h;", "  return w * h; // mine"),
      base_content_sha256: sha256Hex(A),
    });
    // Blocked, it would wait for the prompt's answer, given only after this: room for a loaded machine costs nothing.
    const result = await within(own, 10_000);
    user.answer("Reject");
    expect(
      result === "timed out" ? "timed out: the cancelled run still holds the file" : (result as Envelope).ok,
    ).toBe(true);
    expect(rig.client.buffer("a.ts")?.text).toBe(A.replace("w * h;", "w * h; // mine"));
  });

  it("stops a run whose change is staged (Helix) within 1 s and withdraws the diagnostics and actions", async () => {
    const rig = await startAgent({
      files: { "a.ts": A },
      style: "helix",
      initializationOptions: { approval: "ask" },
      script: [turn({ calls: [SWAP] }), turn({ text: ["never asked for"] })],
    });
    await rig.client.open("a.ts");
    const uri = rig.client.uri("a.ts");
    const id = await rig.ask("swap");
    await rig.client.waitForNotification(
      "textDocument/publishDiagnostics",
      (p) =>
        (p as { uri: string; diagnostics: unknown[] }).uri === uri &&
        (p as { diagnostics: unknown[] }).diagnostics.length > 0,
    );
    const from = rig.client.notifications.length;

    expect(await cancelAndTime(rig, id)).toBeLessThan(1000);
    await rig.client.waitForNotification(
      "textDocument/publishDiagnostics",
      (p) => (p as { uri: string }).uri === uri && (p as { diagnostics: unknown[] }).diagnostics.length === 0,
      10_000,
      from,
    );
    const actions = await rig.client.codeActions("a.ts");
    expect(actions.map((a) => a.title).filter((t) => /apply|reject|always/i.test(t))).toEqual([]);
    expect(rig.client.buffer("a.ts")?.text).toBe(A);
  });
});

describe("rate limit", () => {
  it("retries after a 429 and completes the job", async () => {
    const rig = await startAgent({
      files: { "a.ts": A },
      script: [
        { status: 429, message: "Resource has been exhausted (e.g. check quota).", retryDelay: "0.05s" },
        turn({ text: ["Made it."] }),
      ],
    });
    const job = await rig.finished(await rig.ask("hello"), 15_000);
    expect(job).toMatchObject({ status: "done", text: "Made it." });
    expect(rig.fake!.requests).toHaveLength(2);
    // The retry is the same request again.
    expect(rig.fake!.requests[1]!.body.contents).toEqual(rig.fake!.requests[0]!.body.contents);
  });
});

describe("turn cap", () => {
  it("stops a model that reads forever after maxTurns with a clear message", async () => {
    const rig = await startAgent({
      files: { "a.ts": A },
      initializationOptions: { maxTurns: 3 },
      script: () => turn({ calls: [readCall("a.ts")] }),
    });
    const id = await rig.ask("read a.ts until you are sure");
    const job = await rig.finished(id);
    expect(job.status).toBe("failed");
    expect(job.error?.code).toMatch(/limit/);
    expect(job.error?.message).toMatch(/3 model turns/);
    expect(rig.fake!.requests).toHaveLength(3);
    expect(job.tool_calls).toHaveLength(3);
    const done = rig.events(id).find((e) => e.kind === "done");
    expect(done).toMatchObject({ status: "failed", message: expect.stringMatching(/3 model turns/) });
    // The history stays a valid conversation: the next run continues from it.
    expect(lastResponses(rig.fake!.requests[2])[0]?.response.ok).toBe(true);
  });
});
