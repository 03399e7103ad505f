// The last step of safe_patch applies the corrected diff strictly, checking every
// old line against the file. Should that ever refuse a diff the locator placed,
// the tool must report an internal error and leave the file alone. vi.mock is
// hoisted, so this lives in its own file.
import { describe, expect, it, vi } from "vitest";
import { applyStrictly } from "../../server/src/edit/patch/apply-strict.js";
import { latestState, lines, makeWorkspace, sha256Of } from "../support/workspace-fixture.js";

vi.mock("../../server/src/edit/patch/apply-strict.js", () => ({ applyStrictly: vi.fn(() => undefined) }));

const CONFIG = lines("[server]", "host = localhost", "port = 8080", "", "[log]", "level = info");

describe("safe_patch when the strict application refuses the corrected diff", () => {
  it("reports internal_error with the protocol label and writes nothing", async () => {
    const ws = await makeWorkspace({ "app.ini": CONFIG });
    const result = await ws.call("safe_patch", {
      file_path: "app.ini",
      unified_diff: lines(
        "@@ -1,3 +1,3 @@",
        " [server]",
        " host = localhost",
        "-port = 8080",
        "+port = 9090",
      ),
      base_content_sha256: sha256Of(CONFIG),
    });

    expect(vi.mocked(applyStrictly)).toHaveBeenCalled();
    expect(result).toMatchObject({
      ok: false,
      error: { code: "internal_error", message: expect.stringMatching(/^Internal Error:/) as string },
    });
    expect(latestState(result)).toMatchObject({
      file_path: "app.ini",
      sha256: sha256Of(CONFIG),
      content: CONFIG,
    });
    expect((await ws.bytes("app.ini")).equals(Buffer.from(CONFIG))).toBe(true);
    expect(ws.approvals).toHaveLength(0);
  });
});
