import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AgentService } from "../../server/src/agent/agent-service.js";
import type { StreamEvent } from "../../server/src/agent/events.js";
import { createReplayModel } from "../../server/src/agent/providers/replay.js";
import { Conversation } from "../../server/src/agent/conversation.js";
import { Sandbox } from "../../server/src/workspace/sandbox.js";
import { Workspace } from "../../server/src/workspace/workspace.js";

async function workspace(): Promise<Workspace> {
  const root = mkdtempSync(path.join(tmpdir(), "lockstep-jobs-"));
  writeFileSync(path.join(root, "a.txt"), "one\ntwo\n");
  return new Workspace(await Sandbox.create([root]));
}

function service(ws: () => Workspace, events: StreamEvent[] = []): AgentService {
  const model = createReplayModel({
    turns: [
      { text: ["Reading."], calls: [{ name: "read_file", args: { file_path: "a.txt" } }] },
      { text: ["Done."] },
    ],
  });
  return new AgentService({
    workspace: ws,
    conversation: new Conversation(),
    model: async () => model,
    approve: async () => "apply",
    emit: (e) => events.push(e),
    limits: () => ({ maxTurns: 5, maxToolCalls: 5 }),
  });
}

describe("AgentService", () => {
  it("runs a job to the end and reports what it did", async () => {
    const ws = await workspace();
    const events: StreamEvent[] = [];
    const agent = service(() => ws, events);
    const started = agent.ask({ prompt: "read a.txt" });
    if (!started.ok) throw new Error(started.error.message);
    const job = await agent.settled(String(started.data["job_id"]));
    expect(job?.status).toBe("done");
    expect(job?.tool_calls.map((c) => [c.name, c.ok])).toEqual([["read_file", true]]);
    expect(events.at(-1)).toMatchObject({ kind: "done", status: "done" });
  });

  it("fails a job whose run throws, and still serves the next one", async () => {
    const ws = await workspace();
    let broken = true;
    const agent = service(() => {
      if (broken) {
        broken = false;
        throw new Error("no workspace yet");
      }
      return ws;
    });
    const first = agent.ask({ prompt: "one" });
    const second = agent.ask({ prompt: "two" });
    if (!first.ok || !second.ok) throw new Error("ask refused");
    const failed = await agent.settled(String(first.data["job_id"]));
    expect(failed?.status).toBe("failed");
    expect(failed?.error?.message).toContain("no workspace yet");
    expect((await agent.settled(String(second.data["job_id"])))?.status).toBe("done");
  });

  it.each([
    [{}, "`prompt` is required"],
    [{ prompt: "  " }, "`prompt` must say what to do"],
    [{ prompt: "x", extra: 1 }, "unknown field `extra`"],
  ])("refuses %j with a message naming the field", async (args, message) => {
    const agent = service(() => {
      throw new Error("unused");
    });
    const result = agent.ask(args);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain(message);
  });

  it("a run cancelled by a session reset does not write its history back", async () => {
    const ws = await workspace();
    const conversation = new Conversation();
    conversation.history = [
      { role: "user", parts: [{ text: "an old prompt" }] },
      { role: "assistant", parts: [{ text: "an old answer" }] },
    ];
    const hanging = createReplayModel({ turns: [{ text: ["thinking"] }] });
    // Cancelled once the model's first words were taken, not after a fixed time a loaded machine may not meet.
    let thinking!: () => void;
    const thought = new Promise<void>((resolve) => (thinking = resolve));
    const model = {
      ...hanging,
      stream: async function* (_request: unknown, signal: AbortSignal) {
        yield { type: "text" as const, text: "thinking" };
        thinking();
        await new Promise((resolve) => signal.addEventListener("abort", resolve));
      },
    };
    const agent = new AgentService({
      workspace: () => ws,
      conversation,
      model: async () => model,
      approve: async () => "apply",
      emit: () => undefined,
      limits: () => ({ maxTurns: 5, maxToolCalls: 5 }),
    });
    const started = agent.ask({ prompt: "a new prompt" });
    if (!started.ok) throw new Error(started.error.message);
    await thought;
    agent.cancelAll();
    conversation.reset();
    const job = await agent.settled(String(started.data["job_id"]));
    expect(job?.status).toBe("cancelled");
    expect(conversation.history).toEqual([]);
  });

  it("a cancelled run leaves the history ending on a model message, so turns keep alternating", async () => {
    const ws = await workspace();
    const conversation = new Conversation();
    let thinking!: () => void;
    const thought = new Promise<void>((resolve) => (thinking = resolve));
    const model = {
      name: "hang",
      generateJson: async () => ({}),
      stream: async function* (_request: unknown, signal: AbortSignal) {
        yield { type: "text" as const, text: "thinking" };
        thinking();
        await new Promise((resolve) => signal.addEventListener("abort", resolve));
      },
    };
    const agent = new AgentService({
      workspace: () => ws,
      conversation,
      model: async () => model,
      approve: async () => "apply",
      emit: () => undefined,
      limits: () => ({ maxTurns: 5, maxToolCalls: 5 }),
    });
    const started = agent.ask({ prompt: "a prompt" });
    if (!started.ok) throw new Error(started.error.message);
    await thought;
    agent.cancel({ job_id: started.data["job_id"] });
    await agent.settled(String(started.data["job_id"]));
    expect(conversation.history.at(-1)?.role).toBe("assistant");
  });

  it("answers an unknown job id with not_found", () => {
    const agent = service(() => {
      throw new Error("unused");
    });
    const result = agent.job({ job_id: "nope" });
    expect(!result.ok && result.error.code).toBe("not_found");
  });
});
