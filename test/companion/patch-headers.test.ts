// safe_patch as an agent in a terminal calls it, over the companion endpoint (real
// MCP SDK client, spawned server): the header paths are hints here too; only a
// header naming another file that is there (open in the editor, never saved) refuses.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { AgentClient, companionFacts, readDiscovery, serverCaughtUp } from "../support/companion-client.js";
import { UTIL, UTIL_FIXED, utilDiff } from "../support/header-cases.js";
import { cleanup, launch, sha256 } from "../support/lsp-client.js";

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-companion-")));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(cleanup);

describe("safe_patch over the companion endpoint", () => {
  it("applies a diff headed original / modified, and refuses one headed for a buffer that is open but not on disk", async () => {
    const client = await launch(
      { "f.txt": UTIL },
      {
        style: "helix",
        env: { TMPDIR: tmp },
        showMessageRequest: async (params) => params.actions?.find((a) => a.title === "Apply") ?? null,
      },
    );
    await client.open("f.txt");
    await client.open("draft.py", UTIL);
    await serverCaughtUp(client);
    const port = Number((await companionFacts(client))["port"]);
    const { info } = await readDiscovery(tmp, process.pid, port);
    const agent = await AgentClient.connect(port, info.authToken);
    try {
      const other = await agent.envelope("safe_patch", {
        file_path: client.path("f.txt"),
        unified_diff: utilDiff("a/draft.py", "b/draft.py"),
        base_content_sha256: sha256(UTIL),
      });
      expect(other).toMatchObject({
        ok: false,
        error: {
          code: "invalid_diff",
          message: expect.stringContaining("the diff is for `draft.py`") as string,
        },
      });
      const hint = await agent.envelope("safe_patch", {
        file_path: client.path("f.txt"),
        unified_diff: utilDiff("original", "modified"),
        base_content_sha256: sha256(UTIL),
      });
      expect(hint).toMatchObject({ ok: true, data: { applied: true } });
      await client.settled();
      expect(client.buffer("f.txt")?.text).toBe(UTIL_FIXED);
      expect(client.buffer("draft.py")?.text).toBe(UTIL);
    } finally {
      await agent.close();
    }
  });
});
