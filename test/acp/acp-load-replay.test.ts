// session/load replays a session's tool calls as they were first sent: the diff of each change
// that landed (a large one cut as live), each call's final status, title and words. A change
// that did not land (rejected) is replayed with its diff, then its outcome (acp-load-replay-rejected).
import { describe, expect, it } from "vitest";
import { cleanUpAfterEach, editThreeFiles, replay } from "./replay-rig.js";

cleanUpAfterEach();

describe("session/load replays edits as first sent", () => {
  it("the same diffs, statuses, titles and outcomes as the live turn", async () => {
    const turn = await editThreeFiles((request) =>
      request.toolCall.title === "edit b.ts" ? "reject_once" : "allow_once",
    );
    const { live } = turn;
    const replayed = await replay(turn);

    expect(replayed).toHaveLength(4);
    // The read, the landed edits (a.ts whole, big.ts cut to its changed lines): exactly as live.
    expect(replayed[0]!.slice(1)).toEqual(live[0]!.slice(1));
    expect(replayed[1]!.slice(1)).toEqual(live[1]!.slice(1));
    expect(replayed[3]!.slice(1)).toEqual(live[3]!.slice(1));
    expect(JSON.stringify(replayed[3])).toContain("v700 = 7000;");
    expect(JSON.stringify(replayed[3]).length).toBeLessThan(4_000);
    // The rejected edit: its diff, then its outcome in its place, as live.
    expect(replayed[2]!.slice(1)).toEqual(live[2]!.slice(1));
    expect(JSON.stringify(replayed[2]!.at(-1))).toContain("Rejected, not applied");
  });
});
