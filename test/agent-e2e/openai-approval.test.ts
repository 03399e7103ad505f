// Approval and stale-state recovery are the turn loop's, whichever provider serves
// the model: here the same checks as on the Gemini fake, with the real openai
// package in the spawned server talking to a fake OpenAI-compatible endpoint.
import type { ShowMessageRequestParams } from "vscode-languageserver-protocol";
import { afterEach, describe, expect, it } from "vitest";
import { askUntilDone } from "../support/ask-job.js";
import { startFakeOpenAi, type FakeAnswer, type FakeOpenAi } from "../support/fake-openai.js";
import { cleanup } from "../support/lsp-client.js";
import { A, launchOnA, safePatchArgs } from "../support/provider-approval.js";

let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await cleanup();
  await fake?.close();
  fake = undefined;
});

const patch = (text: string, from: string, to: string): FakeAnswer => ({
  calls: [{ name: "safe_patch", args: safePatchArgs(text, from, to) }],
});

/** The tool messages of the newest request: what the model was told its calls did. */
function toolResults(f: FakeOpenAi): {
  ok: boolean;
  error?: { code: string };
  data?: { latest_file_state?: { content: string; sha256: string } };
}[] {
  const messages = f.requests.at(-1)!["messages"] as { role: string; content: string }[];
  return messages.filter((m) => m.role === "tool").map((m) => JSON.parse(m.content) as { ok: boolean });
}

async function agent(
  script: FakeAnswer[] | ((i: number) => FakeAnswer),
  approval: "ask" | "auto",
  answer?: (p: ShowMessageRequestParams) => string,
): ReturnType<typeof launchOnA> {
  fake = await startFakeOpenAi(script);
  return launchOnA({ provider: "openai", baseUrl: fake.url, model: "m", approval }, answer);
}

describe("the openai provider, approval and stale state", () => {
  it("Reject reaches the model as rejected, and the buffer is untouched", async () => {
    const { client, prompts } = await agent(
      [patch(A, "a = 1", "a = 10"), { text: "Understood." }],
      "ask",
      () => "Reject",
    );
    const job = await askUntilDone(client, "change a");
    expect(job["status"]).toBe("done");
    expect(prompts).toHaveLength(1);
    expect(toolResults(fake!)[0]).toMatchObject({ ok: false, error: { code: "rejected" } });
    expect(client.buffer("a.ts")!.text).toBe(A);
  });

  it("Always allow asks once per tool for the session, and both changes land", async () => {
    const one = A.replace("a = 1", "a = 10");
    const { client, prompts } = await agent(
      [patch(A, "a = 1", "a = 10"), patch(one, "b = 2", "b = 20"), { text: "Done." }],
      "ask",
      () => "Always",
    );
    const job = await askUntilDone(client, "change a and b");
    expect(job["status"]).toBe("done");
    expect(prompts).toHaveLength(1);
    expect(client.buffer("a.ts")!.text).toBe(one.replace("b = 2", "b = 20"));
  });

  it("a patch on a stale state is refused with the latest state, and the retry built on it lands without another read", async () => {
    // Turn 1: the model patches from the text it saw before the user typed; turn 2: from the state the refusal carries.
    const { client } = await agent((i) => {
      if (i === 0) return patch(A, "c = 3", "c = 30");
      if (i === 1) {
        const latest = toolResults(fake!)[0]!.data!.latest_file_state!;
        return patch(latest.content, "c = 3", "c = 30");
      }
      return { text: "Done." };
    }, "auto");
    await client.type("a.ts", "a = 1", "a = 1 /* typed */");
    const job = await askUntilDone(client, "change c");
    expect(job["status"]).toBe("done");
    expect(fake!.requests).toHaveLength(3);
    const tools = (job["tool_calls"] as { name: string; ok: boolean }[]).map((t) => [t.name, t.ok]);
    expect(tools).toEqual([
      ["safe_patch", false],
      ["safe_patch", true],
    ]);
    expect(client.buffer("a.ts")!.text).toBe(
      A.replace("a = 1", "a = 1 /* typed */").replace("c = 3", "c = 30"),
    );
  });
});
