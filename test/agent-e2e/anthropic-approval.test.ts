// Approval and stale-state recovery are the turn loop's, whichever provider serves the model:
// the same checks as on the other providers, with the real @anthropic-ai/sdk in the spawned
// language server talking to a fake Messages endpoint. A refusal reaches Claude as a
// tool_result with is_error; the retry is built on the state that refusal carried.
import type { ShowMessageRequestParams } from "vscode-languageserver-protocol";
import { afterEach, describe, expect, it } from "vitest";
import { askUntilDone } from "../support/ask-job.js";
import { startFakeAnthropic, type AnthropicAnswer, type FakeAnthropic } from "../support/fake-anthropic.js";
import { cleanup } from "../support/lsp-client.js";
import { A, launchOnA, safePatchArgs } from "../support/provider-approval.js";

let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await cleanup();
  await fake?.close();
  fake = undefined;
});

const patch = (text: string, from: string, to: string): AnthropicAnswer => ({
  thinking: [{ text: `Change ${from}.`, signature: `sig-${from}` }],
  calls: [{ name: "safe_patch", args: safePatchArgs(text, from, to) }],
});

interface ToolResult {
  is_error?: boolean;
  body: { ok: boolean; error?: { code: string }; data?: { latest_file_state?: { content: string } } };
}

/** The tool results of the newest request: what Claude was told its calls did. */
function toolResults(f: FakeAnthropic): ToolResult[] {
  const messages = f.requests.at(-1)!["messages"] as { role: string; content: Record<string, unknown>[] }[];
  const last = messages.at(-1)!.content.filter((b) => b["type"] === "tool_result");
  return last.map((b) => ({
    ...(b["is_error"] === true ? { is_error: true } : {}),
    body: JSON.parse(b["content"] as string) as ToolResult["body"],
  }));
}

async function agent(
  script: AnthropicAnswer[] | ((i: number) => AnthropicAnswer),
  approval: "ask" | "auto",
  answer?: (p: ShowMessageRequestParams) => string,
): ReturnType<typeof launchOnA> {
  fake = await startFakeAnthropic(script);
  return launchOnA({ provider: "anthropic", baseUrl: fake.url, approval, sessions: false }, answer, {
    ANTHROPIC_API_KEY: "sk-ant-approval-test-key",
    ANTHROPIC_BASE_URL: "",
  });
}

describe("the anthropic provider, approval and stale state", () => {
  it("Reject reaches Claude as a tool_result with is_error, and the buffer is untouched", async () => {
    const { client, prompts } = await agent(
      [patch(A, "a = 1", "a = 10"), { text: "Understood." }],
      "ask",
      () => "Reject",
    );
    const job = await askUntilDone(client, "change a");
    expect(job["status"]).toBe("done");
    expect(prompts).toHaveLength(1);
    expect(toolResults(fake!)[0]).toMatchObject({
      is_error: true,
      body: { ok: false, error: { code: "rejected" } },
    });
    expect(client.buffer("a.ts")!.text).toBe(A);
  }, 60_000);

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
  }, 60_000);

  it("a patch on a stale state is refused with the latest state, and the retry built on it lands", async () => {
    const { client } = await agent((i) => {
      if (i === 0) return patch(A, "c = 3", "c = 30");
      if (i === 1)
        return patch(toolResults(fake!)[0]!.body.data!.latest_file_state!.content, "c = 3", "c = 30");
      return { text: "Done." };
    }, "auto");
    await client.type("a.ts", "a = 1", "a = 1 /* typed */");
    const job = await askUntilDone(client, "change c");
    expect(job["status"]).toBe("done");
    expect(fake!.requests).toHaveLength(3);
    expect((job["tool_calls"] as { name: string; ok: boolean }[]).map((t) => [t.name, t.ok])).toEqual([
      ["safe_patch", false],
      ["safe_patch", true],
    ]);
    expect(client.buffer("a.ts")!.text).toBe(
      A.replace("a = 1", "a = 1 /* typed */").replace("c = 3", "c = 30"),
    );
  }, 60_000);
});
