// session/load replays a change that never landed as it was first sent: the update that showed
// its diff (a large one cut as live) and the final update whose words replaced it. The store
// keeps the diff shown before the decision, since the file and the journal never held it.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cleanUpAfterEach, editThreeFiles, replay } from "./replay-rig.js";

cleanUpAfterEach();

/** Every file under a folder, recursively (the store's session files). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

describe("session/load replays a change that did not land", () => {
  it("its diff, then the words that replaced it, as live (a large one cut as live)", async () => {
    // a.ts allowed, b.ts rejected, big.ts left undecided (the client answers the request with an error).
    const turn = await editThreeFiles((request) =>
      request.toolCall.title === "edit a.ts"
        ? "allow_once"
        : request.toolCall.title === "edit b.ts"
          ? "reject_once"
          : "error",
    );
    const { root, stateDir, live } = turn;

    // Live showed each diff before asking; only a.ts landed.
    expect(JSON.stringify(live[2]!.slice(1))).toContain("m = 2");
    expect(JSON.stringify(live[3]!.slice(1))).toContain("v700 = 7000;");
    expect(readFileSync(path.join(root, "b.ts"), "utf8")).toBe("export const m = 1;\n");

    const replayed = await replay(turn);

    expect(replayed).toHaveLength(4);
    // The diff update and the final one, for the landed change and each that did not land: exactly as live.
    expect(replayed[1]!.slice(1)).toEqual(live[1]!.slice(1));
    expect(replayed[2]!.slice(1)).toEqual(live[2]!.slice(1));
    expect(replayed[3]!.slice(1)).toEqual(live[3]!.slice(1));
    expect(JSON.stringify(replayed[2]!.at(-1))).toContain("Rejected, not applied");
    expect(JSON.stringify(replayed[3]!.slice(1)).length).toBeLessThan(4_000);

    // The store holds the diff as it was sized, not the large file twice.
    const stored = filesUnder(stateDir).filter((f) => f.endsWith(".jsonl"));
    expect(stored.length).toBeGreaterThan(0);
    const shownLines = stored
      .flatMap((f) => readFileSync(f, "utf8").split("\n"))
      .filter((l) => l.startsWith('{"t":"shown"'));
    expect(shownLines).toHaveLength(3);
    for (const line of shownLines) expect(line.length).toBeLessThan(4_000);
  });
});
