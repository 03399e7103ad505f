// One assembly of the agent for every door: the same project settings give the model the
// same tools whether the agent runs under `lockstep acp`, in the language server or through
// `lockstep ask` in a terminal. `patchTool: "apply_patch"` (a condition the settings decide)
// is the witness: each door's first model request must offer apply_patch. Each door is a
// spawned process; the model is the real `openai` package talking to a fake endpoint. The
// project's folder is trusted (in a temporary state directory), so its file applies in full.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { methods } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { closeAll, startEditor } from "../acp/scripted-editor.js";
import { askUntilDone } from "../support/ask-job.js";
import { startFakeOpenAi, type FakeOpenAi } from "../support/fake-openai.js";
import { addTrust } from "../../server/src/config/trust.js";
import { cleanup, createWorkspace, startServer } from "../support/lsp-client.js";

const BIN = path.resolve("bin/lockstep.js");
const run = promisify(execFile);

let fake: FakeOpenAi | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await closeAll();
  await cleanup();
  await fake?.close();
  fake = undefined;
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const A = "export const a = 1;\n";

/** The project's own settings file: the one place every door reads them from. */
const projectFiles = (url: string, patchTool: "apply_patch" | "none"): Record<string, string> => ({
  "a.ts": A,
  ".lockstep.json": JSON.stringify({
    provider: "openai",
    baseUrl: url,
    model: "fake-model",
    approval: "auto",
    patchTool,
  }),
});

/** The tool names the first model request offered. */
const firstOffer = (f: FakeOpenAi): string[] =>
  ((f.requests[0]?.["tools"] ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

type Door = (files: Record<string, string>) => Promise<void>;

const doors: [string, Door][] = [
  [
    "lockstep acp",
    async (files) => {
      const root = await mkdtemp(path.join(os.tmpdir(), "lockstep-assembly-"));
      const state = await mkdtemp(path.join(os.tmpdir(), "lockstep-assembly-state-"));
      dirs.push(root, state);
      addTrust(root, { XDG_STATE_HOME: state });
      const editor = await startEditor({ files, root, stateDir: state, env: { OPENAI_API_KEY: "test-key" } });
      const sessionId = await editor.newSession();
      const done = await editor.conn.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "look" }],
      });
      expect(done.stopReason).toBe("end_turn");
    },
  ],
  [
    "the language server",
    async (files) => {
      const root = await createWorkspace(files);
      addTrust(root);
      const client = await startServer({ root, style: "helix" });
      const job = await askUntilDone(client, "look");
      expect(job["status"]).toBe("done");
    },
  ],
  [
    "lockstep ask",
    async (files) => {
      const root = await mkdtemp(path.join(os.tmpdir(), "lockstep-assembly-"));
      const state = await mkdtemp(path.join(os.tmpdir(), "lockstep-assembly-state-"));
      dirs.push(root, state);
      for (const [name, text] of Object.entries(files)) await writeFile(path.join(root, name), text);
      const env = {
        ...process.env,
        OPENAI_API_KEY: "test-key",
        XDG_CONFIG_HOME: state,
        XDG_STATE_HOME: state,
      };
      addTrust(root, env);
      const pending = run(process.execPath, [BIN, "ask", "--root", root, "look"], { env });
      pending.child.stdin?.end();
      await pending;
    },
  ],
];

describe.each(doors)("the agent assembled for %s", (_name, door) => {
  it("offers apply_patch in its first model request when the project sets patchTool", async () => {
    fake = await startFakeOpenAi([{ text: "Nothing to change." }]);
    await door(projectFiles(fake.url, "apply_patch"));
    expect(firstOffer(fake)).toContain("apply_patch");
    expect(firstOffer(fake)).toContain("read_file");
  });

  it("does not offer it when the project leaves patchTool at none", async () => {
    fake = await startFakeOpenAi([{ text: "Nothing to change." }]);
    await door(projectFiles(fake.url, "none"));
    expect(firstOffer(fake)).not.toContain("apply_patch");
    expect(firstOffer(fake)).toContain("read_file");
  });
});
