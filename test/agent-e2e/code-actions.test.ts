// Starting the agent from the buffer: a `// lockstep: <instruction>` line offers a
// code action; running it starts a job; a successful run removes the line.
import { createTwoFilesPatch } from "diff";
import type { CodeAction } from "vscode-languageserver-protocol";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeTurn } from "../support/fake-gemini.js";
import {
  patchCall,
  promptText,
  sha256Hex,
  startAgent,
  turn,
  type AgentRig,
} from "../support/agent-scripts.js";
import { stopAllServers, type EditorStyle } from "../support/lsp-client.js";

afterEach(stopAllServers);

const INSTRUCTION = "// lockstep: rename x to count";
const COUNTER = [
  INSTRUCTION,
  "let x = 0;",
  "",
  "export function bump(): number {",
  "  x += 1;",
  "  return x;",
  "}",
  "",
].join("\n");
const renamed = (text: string): string =>
  text.replace(/\bx\b/g, "count").replace("rename count to count", "rename x to count");

/** The model's rename, as a diff on what the editor's buffer holds when the request comes. */
function renameTurn(rig: () => AgentRig): FakeTurn {
  const text = rig().client.buffer("counter.ts")?.text ?? "";
  const diff = createTwoFilesPatch("counter.ts", "counter.ts", text, renamed(text), "", "", { context: 10 });
  return turn({ calls: [patchCall("counter.ts", diff, sha256Hex(text))] });
}

async function instructionAction(rig: AgentRig): Promise<CodeAction> {
  const actions = (await rig.client.codeActions("counter.ts", {
    start: { line: 0, character: 3 },
    end: { line: 0, character: 3 },
  })) as CodeAction[];
  const action = actions.find((a) => a.title === "lockstep: rename x to count");
  if (!action) throw new Error(`no instruction action among ${JSON.stringify(actions.map((a) => a.title))}`);
  return action;
}

describe.each<EditorStyle>(["helix", "neovim", "eglot"])("the instruction line in %s", (style) => {
  it("offers 'lockstep: rename x to count'; running it starts a job; success removes the line", async () => {
    const me = (): AgentRig => rig;
    const steps = [() => renameTurn(me), () => turn({ text: ["Renamed x to count."] })];
    const rig = await startAgent({
      files: { "counter.ts": COUNTER },
      style,
      initializationOptions: { approval: "auto" },
      script: (_request, index) => steps[index]?.() ?? turn({ text: ["(script ended)"] }),
    });
    await rig.client.open("counter.ts");

    const action = await instructionAction(rig);
    expect(action.command?.command).toBe("lockstep.ask");
    const started = await rig.client.runCodeAction(action);
    expect(started?.ok).toBe(true);
    const id = String(started?.data?.["job_id"]);

    const job = await rig.finished(id);
    expect(job).toMatchObject({ status: "done", files_changed: ["counter.ts"] });
    // The model was told what to do and where, with the file's versioned state.
    const prompt = promptText(rig.fake!.requests[0]);
    expect(prompt).toContain("rename x to count");
    expect(prompt).toContain("counter.ts");
    expect(prompt).toContain(sha256Hex(COUNTER));

    const text = rig.client.buffer("counter.ts")?.text;
    expect(text).toBe(renamed(COUNTER).replace(INSTRUCTION + "\n", ""));
    expect(text).not.toContain("lockstep:");
  });
});

describe("a run that fails", () => {
  it("keeps the instruction line", async () => {
    const rig = await startAgent({
      files: { "counter.ts": COUNTER },
      initializationOptions: { approval: "auto" },
      script: [{ status: 400, message: "Request contains an invalid argument." }],
    });
    await rig.client.open("counter.ts");
    const started = await rig.client.runCodeAction(await instructionAction(rig));
    const job = await rig.finished(String(started?.data?.["job_id"]));
    expect(job.status).toBe("failed");
    expect(rig.client.buffer("counter.ts")?.text).toBe(COUNTER);
  });
});
