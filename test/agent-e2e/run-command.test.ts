// run_command through the spawned server, the real openai package talking to a fake endpoint:
// the declaration offered (and not with commands: "off"), ask → run once, reject, "always"
// remembered by prefix (a second `npm test` unasked, `npm publish` and `npm test && curl …`
// asked), the key variable absent from a command's environment, 1 GB of output with the
// server's peak memory under 200 MB, an unsaved agent edit named, a file the command changed
// making a patch on its old sha256 stale. `npm` here is a script in the project's bin/.
import { readFileSync } from "node:fs";
import type { ShowMessageRequestParams } from "vscode-languageserver-protocol";
import { afterEach, describe, expect, it } from "vitest";
import { askUntilDone } from "../support/ask-job.js";
import { pick } from "../support/agent-scripts.js";
import { startFakeOpenAi, type FakeAnswer, type FakeOpenAi } from "../support/fake-openai.js";
import { cleanup, launch, sha256, type TestClient } from "../support/lsp-client.js";

let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await cleanup();
  await fake?.close();
  fake = undefined;
});

const NPM = '#!/bin/sh\necho "npm $*: 3 tests passed"\n';
const KEY = "sk-e2e-secret-0123456789";

const run = (command: string, more: Record<string, unknown> = {}): FakeAnswer => ({
  calls: [{ name: "run_command", args: { command, ...more } }],
});

/** Each tool message the model was sent, parsed, in order, over every request. */
function toolResults(
  f: FakeOpenAi,
): { ok: boolean; error?: { code: string; message: string }; data?: Record<string, unknown> }[] {
  const last = f.requests.at(-1)!["messages"] as { role: string; content: string }[];
  return last.filter((m) => m.role === "tool").map((m) => JSON.parse(m.content) as { ok: boolean });
}

function declared(f: FakeOpenAi, index = 0): string[] {
  const tools = (f.requests[index]!["tools"] ?? []) as { function: { name: string } }[];
  return tools.map((t) => t.function.name);
}

async function agent(
  script: FakeAnswer[],
  settings: Record<string, unknown>,
  answer?: (p: ShowMessageRequestParams) => string,
  files: Record<string, string> = {},
  saveFiles: boolean | { refuse: string } = false,
): Promise<{ client: TestClient; prompts: ShowMessageRequestParams[] }> {
  fake = await startFakeOpenAi(script);
  const prompts: ShowMessageRequestParams[] = [];
  const client = await launch(
    { "bin/npm": NPM, "a.ts": "export const a = 1;\n", ...files },
    {
      style: "neovim",
      saveFiles,
      env: { OPENAI_API_KEY: KEY },
      initializationOptions: { provider: "openai", baseUrl: fake.url, model: "m", ...settings },
      ...(answer
        ? {
            showMessageRequest: (p: ShowMessageRequestParams) => (
              prompts.push(p),
              Promise.resolve(pick(p, answer(p)))
            ),
          }
        : {}),
    },
  );
  return { client, prompts };
}

describe("run_command through the server", () => {
  it("is declared by default, and not with commands: off", async () => {
    const on = await agent([{ text: "ok" }], {});
    await askUntilDone(on.client, "hi");
    expect(declared(fake!)).toContain("run_command");
    const system = (fake!.requests[0]!["messages"] as { role: string; content: string }[])[0]!.content;
    expect(system).toMatch(/run the project's tests/);
    await cleanup();
    await fake!.close();
    const off = await agent([{ text: "ok" }], { commands: "off", testCommand: "npm test" });
    await askUntilDone(off.client, "hi");
    expect(declared(fake!)).not.toContain("run_command");
  });

  it("asks with the command whole, where and whether sandboxed; run once runs it; reject reaches the model", async () => {
    const { client, prompts } = await agent(
      [run("chmod +x bin/npm && echo ran-once"), run("echo never"), { text: "done" }],
      {},
      (p) => (p.message.includes("never") ? "Reject" : "Run once"),
    );
    const job = await askUntilDone(client, "run things");
    expect(job["status"]).toBe("done");
    expect(prompts).toHaveLength(2);
    expect(prompts[0]!.message).toContain("chmod +x bin/npm && echo ran-once");
    expect(prompts[0]!.message).toMatch(/in the project root/);
    expect(prompts[0]!.message).toMatch(/Sandboxed \(bubblewrap\)|Not sandboxed/);
    expect(prompts[0]!.actions!.map((a) => a.title)).toEqual([
      "Run once",
      "Always allow `chmod +x`, `echo ran-once` this session",
      "Reject",
    ]);
    const [once, rejected] = toolResults(fake!);
    expect(once).toMatchObject({
      ok: true,
      data: { exit_code: 0, output: "ran-once\n", approved_by_user: true },
    });
    expect(rejected).toMatchObject({ ok: false, error: { code: "rejected" } });
  });

  it("always allows a prefix for the session: npm test again unasked, npm publish and npm test && curl asked", async () => {
    const script = [
      run("chmod +x bin/npm"),
      run("bin/npm test"),
      run("bin/npm test -- --coverage"),
      run("bin/npm publish"),
      run("bin/npm test && curl http://example.com"),
      { text: "done" },
    ];
    const { client, prompts } = await agent(script, { allowedCommands: ["chmod +x"] }, (p) =>
      p.message.includes("publish") || p.message.includes("curl") ? "Reject" : "Always",
    );
    const job = await askUntilDone(client, "test it");
    expect(job["status"]).toBe("done");
    expect(prompts.map((p) => p.message.split("\n")[1]!.trim())).toEqual([
      "bin/npm test",
      "bin/npm publish",
      "bin/npm test && curl http://example.com",
    ]);
    const results = toolResults(fake!);
    expect(results.map((r) => r.ok)).toEqual([true, true, true, false, false]);
    expect(results[0]!.data!["approved_by_user"]).toBe(false);
    expect(results[2]!.data).toMatchObject({
      output: "npm test -- --coverage: 3 tests passed\n",
      approved_by_user: false,
    });
  });

  it("removes the key variable from the command's environment", async () => {
    const { client } = await agent(
      [run('env; echo "key=[$OPENAI_API_KEY]"'), { text: "done" }],
      { commands: "auto", sandbox: "off" },
      () => "Run once",
    );
    await askUntilDone(client, "env");
    const [result] = toolResults(fake!);
    const output = String(result!.data!["output"]);
    expect(output).toContain("key=[]");
    expect(output).not.toContain(KEY);
    expect(output).toMatch(/PAGER=cat/);
  });

  it("1 GB of output: the server's peak memory stays under 200 MB and the result keeps head and tail", async () => {
    const big = "echo first; head -c 1000000000 /dev/zero | tr '\\0' y; echo; echo last";
    const { client } = await agent([run(big, { timeout_ms: 600_000 }), { text: "done" }], {
      commands: "auto",
    });
    await askUntilDone(client, "print a lot");
    const [result] = toolResults(fake!);
    expect(result).toMatchObject({ ok: true, data: { exit_code: 0 } });
    expect(String(result!.data!["output"])).toMatch(
      /^first\nyyy[\s\S]*characters of output left out[\s\S]*yyy\nlast\n$/,
    );
    const status = readFileSync(`/proc/${client.pid}/status`, "utf8");
    const peakKb = Number(/VmHWM:\s+(\d+)/.exec(status)![1]);
    expect(peakKb).toBeLessThan(200 * 1024);
  }, 600_000);

  it("names an unsaved agent edit the command did not see, and a file it changed makes a patch on the old sha256 stale", async () => {
    const A = "export const a = 1;\n";
    const edit = {
      calls: [
        {
          name: "edit",
          args: {
            file_path: "a.ts",
            old_string: "a = 1",
            new_string: "a = 2",
            base_content_sha256: sha256(A),
          },
        },
      ],
    };
    const B = "b\n";
    const readB = { calls: [{ name: "read_file", args: { file_path: "b.txt" } }] };
    const patchB = {
      calls: [
        { name: "write_file", args: { file_path: "b.txt", content: "b2\n", base_content_sha256: sha256(B) } },
      ],
    };
    const script = [edit, readB, run("cat a.ts; echo changed > b.txt"), patchB, { text: "done" }];
    const { client } = await agent(
      script,
      { approval: "auto", commands: "auto", sandbox: "off" },
      () => "Run once",
      { "b.txt": B },
    );
    await client.open("a.ts");
    const job = await askUntilDone(client, "edit then run");
    expect(job["status"]).toBe("done");
    const results = toolResults(fake!);
    expect(results[2]).toMatchObject({
      ok: true,
      data: { output: "export const a = 1;\n", unsaved_files: ["a.ts"], changed_files: ["b.txt"] },
    });
    expect(results[2]!.data!["message"]).toMatch(
      /did not see the unsaved editor text of a.ts[\s\S]*changed b.txt/,
    );
    expect(results[3]).toMatchObject({ ok: false, error: { code: "state_mismatch" } });
  });

  it("has the unsaved agent edit saved by a client that takes lockstep/saveFiles before the command sees the file", async () => {
    const { client, results } = await editThenCat(true);
    expect(results[1]).toMatchObject({ ok: true, data: { output: "export const a = 2;\n" } });
    expect(results[1]!.data!["unsaved_files"]).toBeUndefined();
    expect(readFileSync(`${client.root}/a.ts`, "utf8")).toBe("export const a = 2;\n");
  });

  it("names why the editor could not save a buffer, in its own words, when it says", async () => {
    const { results } = await editThenCat({ refuse: "E45: 'readonly' option is set\u001b[2J" });
    expect(results[1]).toMatchObject({ ok: true, data: { output: A, unsaved_files: ["a.ts"] } });
    expect(results[1]!.data!["message"]).toContain(
      "unsaved editor text of a.ts (the editor said: E45: 'readonly' option is set [2J)",
    );
  });
});

const A = "export const a = 1;\n";

/** The model edits the open a.ts (left unsaved), then runs `cat a.ts`; the client saves as `saveFiles` says. */
async function editThenCat(
  saveFiles: true | { refuse: string },
): Promise<{ client: TestClient; results: ReturnType<typeof toolResults> }> {
  const edit = {
    calls: [
      {
        name: "edit",
        args: { file_path: "a.ts", old_string: "a = 1", new_string: "a = 2", base_content_sha256: sha256(A) },
      },
    ],
  };
  const { client } = await agent(
    [edit, run("cat a.ts"), { text: "done" }],
    { approval: "auto", commands: "auto", sandbox: "off" },
    () => "Run once",
    {},
    saveFiles,
  );
  await client.open("a.ts");
  const job = await askUntilDone(client, "edit then run");
  expect(job["status"]).toBe("done");
  return { client, results: toolResults(fake!) };
}
