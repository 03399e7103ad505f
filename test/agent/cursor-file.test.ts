// The file the user is in goes into the prompt as a versioned state: whole when it
// is short, around the selection when it is long (read_file's 2,000-line default
// would otherwise leave the selection out).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AgentService } from "../../server/src/agent/agent-service.js";
import type { GenerateRequest, Model } from "../../server/src/agent/model.js";
import { Conversation } from "../../server/src/agent/conversation.js";
import { Sandbox } from "../../server/src/workspace/sandbox.js";
import { Workspace } from "../../server/src/workspace/workspace.js";

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

async function promptFor(lines: number, selection: number): Promise<string> {
  const root = mkdtempSync(path.join(tmpdir(), "lockstep-cursor-"));
  writeFileSync(path.join(root, "f.txt"), numbered(lines));
  const ws = new Workspace(await Sandbox.create([root]));
  const seen: GenerateRequest[] = [];
  const model: Model = {
    name: "recorder",
    async *stream(request) {
      seen.push(request);
      yield { type: "text", text: "ok" };
    },
    generateJson: async () => ({}),
  };
  const agent = new AgentService({
    workspace: () => ws,
    conversation: new Conversation(),
    model: async () => model,
    approve: async () => "apply",
    emit: () => undefined,
    limits: () => ({ maxTurns: 2, maxToolCalls: 2 }),
  });
  const started = agent.ask({
    prompt: "fix it",
    file_path: "f.txt",
    range: { start: { line: selection - 1, character: 0 }, end: { line: selection - 1, character: 0 } },
  });
  if (!started.ok) throw new Error(started.error.message);
  await agent.settled(String(started.data["job_id"]));
  const first = seen[0]?.history[0]?.parts[0];
  return first && "text" in first ? first.text : "";
}

describe("the file the user is in", () => {
  it("goes in whole when it is short", async () => {
    const text = await promptFor(700, 650);
    expect(text).toContain('"content":"line 1\\nline 2\\n');
    expect(text).not.toContain('"truncated":true');
  });

  it("goes in around the selection when the selection lies past the first 2,000 lines", async () => {
    const text = await promptFor(5000, 4200);
    expect(text).toContain('"start_line":3700');
    expect(text).toContain("line 4200\\n");
    expect(text).toContain("Their selection is lines 4200-4200.");
  });
});
