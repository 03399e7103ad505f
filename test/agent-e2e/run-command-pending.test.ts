// run_command with an editor that cannot show a prompt (Helix 25.07 has no showMessageRequest):
// through the spawned server and the real openai package against a fake endpoint, the command
// waits as code actions on the open document, like a staged change. "run" runs it, "always
// allow" runs it and its prefix unasked afterwards, "reject" tells the model `rejected`.
import type { CodeAction } from "vscode-languageserver-protocol";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAi, type FakeAnswer, type FakeOpenAi } from "../support/fake-openai.js";
import { cleanup, launch, type TestClient } from "../support/lsp-client.js";

let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await cleanup();
  await fake?.close();
  fake = undefined;
});

const run = (command: string): FakeAnswer => ({ calls: [{ name: "run_command", args: { command } }] });

function toolResults(
  f: FakeOpenAi,
): { ok: boolean; error?: { code: string }; data?: Record<string, unknown> }[] {
  const last = f.requests.at(-1)!["messages"] as { role: string; content: string }[];
  return last.filter((m) => m.role === "tool").map((m) => JSON.parse(m.content) as { ok: boolean });
}

/** The job's status once it says a command waits, counted from `from` notifications on. */
async function waiting(client: TestClient, command: string, from: number): Promise<number> {
  await client.waitForNotification(
    "lockstep/stream",
    (p) => String((p as { message?: string }).message).includes(`waiting for you: run \`${command}\``),
    15_000,
    from,
  );
  return client.notifications.length;
}

async function pickAction(client: TestClient, title: RegExp): Promise<void> {
  const actions = (await client.codeActions("a.ts")) as CodeAction[];
  const action = actions.find((a) => title.test(a.title));
  expect(action, actions.map((a) => a.title).join(" | ")).toBeDefined();
  const decided = await client.runCodeAction(action!);
  expect(decided?.ok).toBe(true);
}

describe("run_command in an editor without a prompt", () => {
  it("waits as code actions: run, always allow its prefix, reject", async () => {
    fake = await startFakeOpenAi([
      run("echo first"),
      run("echo again"),
      run("echo again and again"),
      run("ls -a"),
      { text: "done" },
    ]);
    const client = await launch(
      { "a.ts": "export const a = 1;\n" },
      {
        style: "helix",
        env: { OPENAI_API_KEY: "sk-e2e-pending-0123456789" },
        initializationOptions: { provider: "openai", baseUrl: fake.url, model: "m", sandbox: "off" },
      },
    );
    await client.open("a.ts");
    const started = await client.command("ask", { prompt: "run things" });
    const job = String(started.data?.["job_id"]);
    let seen = await waiting(client, "echo first", 0);
    // Three actions for the one command waiting, named with where it runs.
    const titles = ((await client.codeActions("a.ts")) as CodeAction[]).map((a) => a.title);
    expect(titles.filter((t) => t.includes("`echo first`"))).toEqual([
      "lockstep: run `echo first`, not sandboxed",
      "lockstep: always allow `echo first` this session",
      "lockstep: reject `echo first`",
    ]);
    await pickAction(client, /^lockstep: run `echo first`/);
    seen = await waiting(client, "echo again", seen);
    await pickAction(client, /^lockstep: always allow `echo again`/);
    // `echo again and again` has the prefix allowed: it runs unasked; `ls -a` waits, and is rejected.
    await waiting(client, "ls -a", seen);
    await pickAction(client, /^lockstep: reject `ls -a`/);
    for (;;) {
      const state = await client.command("job", { job_id: job });
      if (state.data?.["status"] !== "running") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const results = toolResults(fake);
    expect(results.map((r) => r.ok)).toEqual([true, true, true, false]);
    expect(results[0]!.data).toMatchObject({ output: "first\n", approved_by_user: true });
    expect(results[2]!.data).toMatchObject({ output: "again and again\n", approved_by_user: false });
    expect(results[3]).toMatchObject({ ok: false, error: { code: "rejected" } });
    // Nothing waits any more.
    const left = ((await client.codeActions("a.ts")) as CodeAction[]).filter((a) =>
      a.title.startsWith("lockstep: run"),
    );
    expect(left).toEqual([]);
  }, 60_000);

  it("a cancel while the command waits withdraws its code actions and ends the job", async () => {
    fake = await startFakeOpenAi([run("echo never"), { text: "done" }]);
    const client = await launch(
      { "a.ts": "export const a = 1;\n" },
      {
        style: "helix",
        env: { OPENAI_API_KEY: "sk-e2e-pending-0123456789" },
        initializationOptions: { provider: "openai", baseUrl: fake.url, model: "m", sandbox: "off" },
      },
    );
    await client.open("a.ts");
    const started = await client.command("ask", { prompt: "run it" });
    const job = String(started.data?.["job_id"]);
    await waiting(client, "echo never", 0);
    expect((await client.command("cancel", { job_id: job })).ok).toBe(true);
    await client.waitForNotification("lockstep/stream", (p) => (p as { kind?: string }).kind === "done");
    expect((await client.command("job", { job_id: job })).data?.["status"]).toBe("cancelled");
    const left = ((await client.codeActions("a.ts")) as CodeAction[]).filter((a) =>
      a.title.includes("echo never"),
    );
    expect(left).toEqual([]);
  });
});
