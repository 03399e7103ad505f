// lockstep.cancel reaches a large engine job that a run started: the worker
// thread computing a 13,000-hunk patch is ended, the run ends cancelled, and
// the file is as it was (the patch's own $/cancelRequest path is in
// test/lsp/large-input.test.ts).
import { afterEach, describe, expect, it } from "vitest";
import { patchCall, sha256Hex, startAgent, turn } from "../support/agent-scripts.js";
import { BIG_TEXT as TEXT, bigDiff } from "../support/large-patch.js";
import { stopAllServers } from "../support/lsp-client.js";

afterEach(stopAllServers);

describe("lockstep.cancel during a large engine job", () => {
  it("ends the run cancelled while the patch is computed, and nothing is applied", async () => {
    const rig = await startAgent({
      files: { "big.ts": TEXT },
      initializationOptions: { approval: "auto" },
      script: [
        turn({ calls: [patchCall("big.ts", bigDiff(13_000, 3).diff, sha256Hex(TEXT))] }),
        turn({ text: ["never reached"] }),
      ],
    });
    const id = await rig.ask("change every third line");
    await rig.waitForEvent(id, (e) => e.kind === "tool_call" && e.tool === "safe_patch");
    const answer = await rig.client.command("cancel", { job_id: id });
    expect(answer.ok).toBe(true);
    const job = await rig.finished(id, 3000);
    expect(job.status).toBe("cancelled");
    expect(rig.client.applyEditRequests).toHaveLength(0);
    expect(await rig.client.command("read_file", { file_path: "big.ts" })).toMatchObject({
      ok: true,
      data: { sha256: sha256Hex(TEXT) },
    });
  }, 60_000);
});
