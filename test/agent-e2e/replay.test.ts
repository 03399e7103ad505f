// The replay model: a recorded session drives a whole task offline — no key, no
// endpoint — through the same tools, approval and delivery as a live model.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { replaceLineDiff, startAgent } from "../support/agent-scripts.js";
import { stopAllServers } from "../support/lsp-client.js";

afterEach(stopAllServers);

const A = ["export function area(w: number, h: number): number {", "  return w * h;", "}", ""].join("\n");

describe("replay", () => {
  it("reads, patches with {{sha256:path}} and answers, without any endpoint", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "lockstep-replay-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const script = path.join(dir, "session.json");
    await writeFile(
      script,
      JSON.stringify({
        turns: [
          { text: ["Reading ", "a.ts."], calls: [{ name: "read_file", args: { file_path: "a.ts" } }] },
          {
            calls: [
              {
                name: "safe_patch",
                args: {
                  file_path: "a.ts",
                  unified_diff: replaceLineDiff("a.ts", A, "  return w * h;", "  return h * w;"),
                  base_content_sha256: "{{sha256:a.ts}}",
                },
              },
            ],
          },
          { text: ["Swapped ", "the factors."] },
        ],
      }),
    );
    // No key and no base URL: any attempt to reach Gemini would fail the job.
    const rig = await startAgent({
      files: { "a.ts": A },
      noKey: true,
      initializationOptions: { replay: script, approval: "auto" },
    });
    await rig.client.open("a.ts");
    const id = await rig.ask("swap the factors");
    const job = await rig.finished(id);

    expect(job).toMatchObject({
      status: "done",
      text: "Reading a.ts.\n\nSwapped the factors.",
      files_changed: ["a.ts"],
    });
    expect(job.tool_calls.map((c) => [c.name, c.ok])).toEqual([
      ["read_file", true],
      ["safe_patch", true],
    ]);
    expect(rig.client.buffer("a.ts")?.text).toBe(A.replace("w * h", "h * w"));
    expect(rig.events(id).filter((e) => e.kind === "text")).toHaveLength(4);
    expect((await rig.client.command("session")).data).toMatchObject({ history_messages: 6 });
  });
});
