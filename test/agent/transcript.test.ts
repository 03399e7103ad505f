// The markdown transcript: every event is in the file when `record` returns (nothing
// pending that an exit could lose), and a transcript that cannot be written is said
// once, not once per streamed piece, and tried again when the folder is back.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Transcript } from "../../server/src/agent/transcript.js";
import { tempDir } from "../support/workspace-fixture.js";

describe("Transcript", () => {
  it("has each event in the file as soon as it is recorded, in order", () => {
    const file = path.join(tempDir(), "deep", "er", "t.md");
    const t = new Transcript(file);
    const errors: string[] = [];
    t.record({ job_id: "j1", kind: "status", status: "running", prompt: "fix it" }, (m) => errors.push(m));
    t.record({ job_id: "j1", kind: "text", text: "Done: sorted " }, (m) => errors.push(m));
    expect(readFileSync(file, "utf8")).toBe("\n## You (job j1)\n\nfix it\n\n## lockstep\n\nDone: sorted ");
    t.record({ job_id: "j1", kind: "text", text: "a copy." }, (m) => errors.push(m));
    t.record({ job_id: "j1", kind: "done", status: "done", text: "" }, (m) => errors.push(m));
    expect(readFileSync(file, "utf8").endsWith("Done: sorted a copy.\n\n*(done)*\n")).toBe(true);
    expect(errors).toEqual([]);
  });

  it("says a failing write once, and writes again once it can", () => {
    const dir = tempDir();
    const folder = path.join(dir, "notes");
    // A file where the folder should be: neither the folder nor the transcript can be made.
    writeFileSync(folder, "in the way");
    const t = new Transcript(path.join(folder, "t.md"));
    const errors: string[] = [];
    for (const text of ["a", "b", "c"]) t.record({ job_id: "j", kind: "text", text }, (m) => errors.push(m));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`Could not write the transcript ${path.join(folder, "t.md")}`);
    rmSync(folder);
    mkdirSync(folder);
    t.record({ job_id: "j", kind: "text", text: "back" }, (m) => errors.push(m));
    expect(readFileSync(path.join(folder, "t.md"), "utf8")).toBe("back");
    expect(errors).toHaveLength(1);
  });
});
