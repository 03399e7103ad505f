// run_command while it runs, through the spawned server and the real openai package against a
// fake endpoint: $/progress names the running command (not only the tool), the server answers
// other requests at once while a command floods its output, and credential-shaped text a command
// prints is redacted in what is streamed and in what the model is sent.
import { writeFileSync } from "node:fs";
import type { ShowMessageRequestParams } from "vscode-languageserver-protocol";
import { afterEach, describe, expect, it } from "vitest";
import { pick } from "../support/agent-scripts.js";
import { startFakeOpenAi, type FakeAnswer, type FakeOpenAi } from "../support/fake-openai.js";
import { cleanup, launch, type TestClient } from "../support/lsp-client.js";

let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await cleanup();
  await fake?.close();
  fake = undefined;
});

/** Prints 10 MB at a time until the file `stop` appears in the root. */
const FLOOD =
  "#!/bin/sh\nwhile [ ! -e stop ]; do head -c 10000000 /dev/zero | tr '\\0' y; echo; done\necho stopped\n";
const TOKEN = `sk-proj-${"Q7w".repeat(20)}`;

const run = (command: string): FakeAnswer => ({ calls: [{ name: "run_command", args: { command } }] });

async function agent(script: FakeAnswer[], files: Record<string, string> = {}): Promise<TestClient> {
  fake = await startFakeOpenAi(script);
  return launch(
    { "bin/flood": FLOOD, ...files },
    {
      style: "neovim",
      env: { OPENAI_API_KEY: "sk-e2e-live-0123456789" },
      initializationOptions: { provider: "openai", baseUrl: fake.url, model: "m", sandbox: "off" },
      showMessageRequest: (p: ShowMessageRequestParams) => Promise.resolve(pick(p, "Run once")),
    },
  );
}

async function ask(client: TestClient, prompt: string): Promise<string> {
  const started = await client.command("ask", { prompt });
  return String(started.data?.["job_id"]);
}

const streamed = (client: TestClient, kind: string): Record<string, unknown>[] =>
  client.notifications
    .filter((n) => n.method === "lockstep/stream")
    .map((n) => n.params as Record<string, unknown>)
    .filter((p) => p["kind"] === kind);

describe("run_command while it runs", () => {
  it("answers lockstep.session within a generous bound while a command floods, and $/progress names the command", async () => {
    const client = await agent([run("sh bin/flood"), { text: "done" }]);
    const job = await ask(client, "flood");
    await client.waitForNotification("lockstep/stream", (p) => (p as { kind?: string }).kind === "output");
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      const session = await client.command("session", {});
      times.push(performance.now() - t);
      expect(session.ok).toBe(true);
    }
    // Still printing after the last answer: the command had not ended while they were measured.
    const still = await client.command("job", { job_id: job });
    expect(still.data?.["status"]).toBe("running");
    writeFileSync(client.path("stop"), "");
    await client.waitForNotification("lockstep/stream", (p) => (p as { kind?: string }).kind === "done");
    const order = [...times];
    times.sort((a, b) => a - b);
    console.log(
      `lockstep.session during a flood (${order.map((t) => t.toFixed(0)).join(",")}): median ${times[10]!.toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms`,
    );
    // The aim is < 100 ms (measured here: median 1-10 ms, the first answer 70-160 ms, sent behind the
    // first 256 KB of live output); the bounds leave room for a loaded 2-core machine.
    expect(times[10]!).toBeLessThan(250);
    expect(times.at(-1)!).toBeLessThan(5_000);

    const progress = client.notifications
      .filter((n) => n.method === "$/progress")
      .map((n) => (n.params as { value?: { message?: string } }).value?.message);
    expect(progress).toContain("running `sh bin/flood`");
    expect(streamed(client, "status").map((s) => s["message"])).toContain("running `sh bin/flood`");
  }, 120_000);

  it("redacts a credential-shaped token the command prints, live and in the result the model reads", async () => {
    const print = `printf 'start\\n'; cat token.txt; printf 'end\\n'`;
    const client = await agent([run(print), { text: "done" }], { "token.txt": `token=${TOKEN}\n` });
    await ask(client, "print it");
    await client.waitForNotification("lockstep/stream", (p) => (p as { kind?: string }).kind === "done");
    const live = streamed(client, "output")
      .map((p) => String(p["text"]))
      .join("");
    expect(live).toBe("start\ntoken=[redacted]\nend\n");
    const sent = JSON.stringify(fake!.requests.at(-1));
    expect(sent).toContain("token=[redacted]");
    expect(sent).not.toContain("Q7wQ7w");
  });
});
