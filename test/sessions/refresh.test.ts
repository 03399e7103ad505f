import { describe, expect, it } from "vitest";
import type { Message } from "../../server/src/agent/model.js";
import { changedFilesNote, lastShownStates } from "../../server/src/sessions/index.js";

const state = (file_path: string, sha256: string, content = "text\n") => ({
  file_path,
  uri: `file:///p/${file_path}`,
  version: null,
  sha256,
  content,
  open: false,
});

const history: Message[] = [
  { role: "user", parts: [{ text: `Look at this:\n${JSON.stringify(state("mentioned.ts", "m1"))}` }] },
  { role: "assistant", parts: [{ functionCall: { name: "read_many_files", args: {} } }] },
  {
    role: "tool",
    parts: [
      {
        functionResponse: {
          name: "read_many_files",
          response: {
            ok: true,
            data: { files: [state("a.ts", "a1"), state("gone.ts", "g1"), state("same.ts", "s1")] },
          },
        },
      },
    ],
  },
  { role: "assistant", parts: [{ functionCall: { name: "safe_patch", args: {} } }] },
  {
    role: "tool",
    parts: [
      {
        functionResponse: {
          name: "safe_patch",
          response: { ok: true, data: { latest_file_state: state("a.ts", "a2") } },
        },
      },
    ],
  },
];

describe("after a resume", () => {
  it("knows the last state the model was shown of each file, from answers and from mentions", () => {
    expect([...lastShownStates(history)]).toEqual([
      ["mentioned.ts", "m1"],
      ["a.ts", "a2"],
      ["gone.ts", "g1"],
      ["same.ts", "s1"],
    ]);
  });

  it("names each file that moved with its current state, and one that went; says nothing of the rest", async () => {
    const now: Record<string, unknown> = {
      "mentioned.ts": { ok: true, data: state("mentioned.ts", "m1") },
      "a.ts": { ok: true, data: state("a.ts", "a3", "new text\n") },
      "gone.ts": { ok: false, error: { code: "not_found", message: "No such file" } },
      "same.ts": { ok: true, data: state("same.ts", "s1") },
    };
    const note = await changedFilesNote(history, async (file) => now[file]);
    const lines = note.trim().split("\n");
    expect(lines[0]).toMatch(
      /^This conversation was resumed, and these files changed since you last saw them/,
    );
    expect(JSON.parse(lines[1]!)).toMatchObject({ file_path: "a.ts", sha256: "a3", content: "new text\n" });
    expect(lines[2]).toBe("(gone.ts no longer exists.)");
    expect(lines).toHaveLength(3);
  });

  it("says nothing when every file is as the model saw it", async () => {
    const note = await changedFilesNote(history, async (file) => ({
      ok: true,
      data: {
        ...state(
          file,
          (
            { "mentioned.ts": "m1", "a.ts": "a2", "gone.ts": "g1", "same.ts": "s1" } as Record<string, string>
          )[file]!,
        ),
      },
    }));
    expect(note).toBe("");
  });
});
