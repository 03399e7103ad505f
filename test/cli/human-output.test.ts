// What a tool command prints for a person, from its envelope: each command's summary,
// a refusal's reason and next step, colour only when asked for, never a whole file on a refusal.
import { describe, expect, it } from "vitest";
import { formatHuman, styleFor } from "../../server/src/cli/human-output.js";

const plain = { color: false };
const STATE = {
  file_path: "src/a.ts",
  version: null,
  sha256: "0123456789abcdef".repeat(4),
  content: "one\ntwo\n",
};

describe("formatHuman", () => {
  it.each<[string, string, Record<string, unknown>, string]>([
    [
      "search",
      "search",
      {
        matches: [
          { file_path: "a.ts", line: 3, text: "const x = 1;" },
          { file_path: "b.ts", line: 9, text: "x()" },
        ],
        files_searched: 5,
        truncated: true,
      },
      "a.ts:3: const x = 1;\nb.ts:9: x()\n2 matches in 2 files, 5 files searched; more matched (raise --max-results)\n",
    ],
    ["find", "find", { files: ["a.ts", "b.ts"], truncated: false }, "a.ts\nb.ts\n2 files\n"],
    ["read", "read", STATE, "src/a.ts  sha256 0123456789ab… · 2 lines\none\ntwo\n"],
    [
      "apply-blocks",
      "apply-blocks",
      {
        blocks: [
          { file_path: "a.ts", status: "applied", message: "Edit landed at line 2." },
          { file_path: "b.ts", status: "failed", message: "SEARCH not found." },
        ],
        files_changed: ["a.ts"],
      },
      "✔ a.ts: Edit landed at line 2.\n✘ b.ts: SEARCH not found.\nChanged: a.ts\n",
    ],
    [
      "a dry run",
      "edit",
      {
        message: "Dry run: the change applies cleanly; nothing was written.",
        applied: false,
        latest_file_state: STATE,
      },
      "· Dry run: the change applies cleanly; nothing was written.\nnow: src/a.ts  sha256 0123456789ab… · 2 lines\n",
    ],
    [
      "a patch",
      "apply-patch",
      {
        message: "Patch applied successfully.",
        applied: true,
        diff: "--- a.ts\n+++ a.ts\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n",
        latest_file_state: STATE,
      },
      "✔ Patch applied successfully.\n@@ -1,2 +1,2 @@\n one\n-two\n+2\nnow: src/a.ts  sha256 0123456789ab… · 2 lines\n",
    ],
  ])("%s: a short summary", (_name, command, data, expected) => {
    expect(formatHuman(command, { ok: true, data }, plain)).toBe(expected);
  });

  it("a refusal: why, what next, and the file's identity, not its content", () => {
    const out = formatHuman(
      "apply-patch",
      {
        ok: false,
        error: {
          code: "state_mismatch",
          message: "State Mismatch: the file changed.",
          suggestions: ["Rebuild the diff."],
        },
        data: { latest_file_state: STATE },
      },
      plain,
    );
    expect(out).toBe(
      "✘ State Mismatch: the file changed.\n  → Rebuild the diff.\nThe file as it is now: src/a.ts  sha256 0123456789ab… · 2 lines (lockstep read src/a.ts prints it)\n",
    );
    expect(out).not.toContain("one\ntwo");
  });

  it("colours only a terminal without NO_COLOR", () => {
    expect(styleFor({ isTTY: true }, {})).toEqual({ color: true });
    expect(styleFor({ isTTY: true }, { NO_COLOR: "1" })).toEqual({ color: false });
    expect(styleFor({ isTTY: false }, {})).toEqual({ color: false });
    expect(
      formatHuman(
        "apply-patch",
        { ok: true, data: { message: "ok", diff: "@@ -1 +1 @@\n-a\n+b\n" } },
        { color: true },
      ),
    ).toContain("\x1b[32m+b\x1b[0m");
  });
});
