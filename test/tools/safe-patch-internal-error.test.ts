// The last step of safe_patch hands the corrected diff to the `diff` package's
// strict applyPatch. Should that ever refuse a diff the locator placed, the tool
// must report an internal error and leave the file alone. vi.mock is hoisted,
// so this lives in its own file.
import { applyPatch } from "diff";
import type * as Diff from "diff";
import { describe, expect, it, vi } from "vitest";
import { latestState, lines, makeWorkspace, sha256Of } from "../support/workspace-fixture.js";

vi.mock("diff", async (importOriginal) => ({ ...(await importOriginal<typeof Diff>()), applyPatch: vi.fn(() => false) }));

const CONFIG = lines("[server]", "host = localhost", "port = 8080", "", "[log]", "level = info");

describe("safe_patch when applyPatch refuses the corrected diff", () => {
  it("reports internal_error with the protocol label and writes nothing", async () => {
    const ws = await makeWorkspace({ "app.ini": CONFIG });
    const result = await ws.call("safe_patch", {
      file_path: "app.ini",
      unified_diff: lines("@@ -1,3 +1,3 @@", " [server]", " host = localhost", "-port = 8080", "+port = 9090"),
      base_content_sha256: sha256Of(CONFIG),
    });

    expect(vi.mocked(applyPatch)).toHaveBeenCalled();
    expect(result).toMatchObject({ ok: false, error: { code: "internal_error", message: expect.stringMatching(/^Internal Error:/) as string } });
    expect(latestState(result)).toMatchObject({ file_path: "app.ini", sha256: sha256Of(CONFIG), content: CONFIG });
    expect((await ws.bytes("app.ini")).equals(Buffer.from(CONFIG))).toBe(true);
    expect(ws.approvals).toHaveLength(0);
  });
});
