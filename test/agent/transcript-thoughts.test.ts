// Claude's thinking in the markdown transcript: the streamed pieces of a thought quoted line by
// line under one "thinking" label, and the answer after it in a paragraph of its own.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Transcript } from "../../server/src/agent/transcript.js";
import { tempDir } from "../support/workspace-fixture.js";

describe("the transcript", () => {
  it("quotes a thought streamed in pieces, then writes the answer apart from it", () => {
    const file = path.join(tempDir("lockstep-transcript-"), "t.md");
    const t = new Transcript(file);
    const fail = (m: string): never => {
      throw new Error(m);
    };
    t.record({ job_id: "1", kind: "thought", text: "Read a" }, fail);
    t.record({ job_id: "1", kind: "thought", text: ",\nthen b." }, fail);
    t.record({ job_id: "1", kind: "text", text: "Both read." }, fail);
    // Appends are synchronous: the file holds every event once record returns.
    expect(readFileSync(file, "utf8")).toBe("\n> *thinking:* Read a,\n> then b.\n\nBoth read.");
  });
});
