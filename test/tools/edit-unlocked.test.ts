// `edit` without base_content_sha256 while the user keeps typing (the moving-buffer bench's
// reindent and trailing_ws families): the model copied old_string from an older text; the user
// has since re-indented those lines, or typed trailing spaces into them. A match found only by
// ignoring whitespace cannot tell a stale copy from the user's own edit, and replacing it wrote
// the model's lines over what the user typed. Without a base only an exact match lands; a looser
// one is refused with the current state and the way to retry, and the retry with a base lands.
import { describe, expect, it } from "vitest";
import { latestState, lines, makeWorkspace, sha256Of } from "../support/workspace-fixture.js";

const READ = lines(
  "export function total(items: number[]) {",
  "  let sum = 0;",
  "  for (const item of items) {",
  "    sum += item;",
  "  }",
  "  return sum;",
  "}",
);
const FILE = "src/total.ts";
const EDIT = {
  old_string: "    sum += item;\n  }\n  return sum;",
  new_string: "    sum += item * 2;\n  }\n  return sum;",
};

/** The user's edits since the model read READ: the lines re-indented, trailing spaces typed. */
const MOVED: [name: string, text: string][] = [
  ["re-indented", READ.replace(/^(?=.)/gm, "  ")],
  ["trailing spaces typed", READ.replace("  }\n", "  }   \n").replace("  return sum;", "  return sum;\t")],
];

describe("edit without base_content_sha256 on a text that moved", () => {
  it.each(MOVED)(
    "refuses a match found by ignoring whitespace (%s): the user's text is kept",
    async (_name, now) => {
      const ws = await makeWorkspace({ [FILE]: now });
      const result = await ws.call("edit", { file_path: FILE, ...EDIT });

      expect(result).toMatchObject({ ok: false, error: { code: "state_mismatch" } });
      if (result.ok) return;
      expect(result.error.message).toMatch(/without base_content_sha256 .* Nothing was applied/);
      expect(result.error.suggestions.join(" ")).toMatch(
        /exactly from latest_file_state .* base_content_sha256/,
      );
      expect(await ws.text(FILE)).toBe(now);
      // The retry the model is told to make: old_string copied from the state attached, locked to its sha256.
      const state = latestState(result);
      expect(state?.content).toBe(now);
      const old = now.split("\n").slice(3, 6).join("\n");
      const retried = await ws.call("edit", {
        file_path: FILE,
        old_string: old,
        new_string: old.replace("sum += item;", "sum += item * 2;"),
        base_content_sha256: state!.sha256,
      });
      expect(retried.ok).toBe(true);
      expect(await ws.text(FILE)).toBe(now.replace("sum += item;", "sum += item * 2;"));
    },
  );

  it("still lands an exact match without a base, and a loose one with a base", async () => {
    const ws = await makeWorkspace({ [FILE]: READ });
    expect((await ws.call("edit", { file_path: FILE, ...EDIT })).ok).toBe(true);
    expect(await ws.text(FILE)).toBe(READ.replace("sum += item;", "sum += item * 2;"));

    const now = READ.replace(/^(?=.)/gm, "  ");
    const locked = await makeWorkspace({ [FILE]: now });
    const result = await locked.call("edit", {
      file_path: FILE,
      ...EDIT,
      base_content_sha256: sha256Of(now),
    });
    expect(result).toMatchObject({ ok: true, data: { strategy: "flexible" } });
  });
});
