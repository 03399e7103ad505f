// safe_patch through the server as a spawned process: the header paths models
// write are hints; only a header naming another file that is there (on disk, or
// open in the editor and never saved) refuses the diff, and names it.
import { access, readdir, readFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { HINT_HEADERS, UTIL, UTIL_FIXED, utilDiff } from "../support/header-cases.js";
import { cleanup, launch, sha256 } from "../support/lsp-client.js";

afterEach(cleanup);

describe("safe_patch in the server: header paths are hints", () => {
  it.each(HINT_HEADERS)(
    "applies a diff headed $name to file_path",
    async ({ target, oldHeader, newHeader }) => {
      const client = await launch({ [target]: UTIL }, { style: "neovim" });
      const result = await client.command("safe_patch", {
        file_path: target,
        unified_diff: utilDiff(oldHeader, newHeader),
        base_content_sha256: sha256(UTIL),
      });

      expect(result).toMatchObject({
        ok: true,
        data: { applied: true, latest_file_state: { file_path: target, sha256: sha256(UTIL_FIXED) } },
      });
      // A closed file's edit goes to the editor (one versionless edit of the file given); nothing is made under a header's name.
      expect(client.applyEditRequests.map((r) => JSON.stringify(r.params.edit))).toEqual([
        expect.stringContaining(client.uri(target)),
      ]);
      expect(await readdir(client.path("."))).toEqual([target.split("/")[0]!]);
    },
  );

  it("applies to an open buffer whose diff is headed original / modified", async () => {
    const client = await launch({ "f.txt": UTIL }, { style: "helix" });
    await client.open("f.txt");
    const result = await client.command("safe_patch", {
      file_path: "f.txt",
      unified_diff: utilDiff("original", "modified"),
      base_content_sha256: sha256(UTIL),
    });
    expect(result).toMatchObject({ ok: true });
    expect(client.buffer("f.txt")?.text).toBe(UTIL_FIXED);
  });

  it("refuses a diff headed for a file open in the editor but not on disk, naming it, and leaves the target", async () => {
    const client = await launch({ "f.txt": UTIL }, { style: "neovim" });
    await client.open("draft.py", UTIL);
    await expect(access(client.path("draft.py"))).rejects.toThrow();
    const result = await client.command("safe_patch", {
      file_path: "f.txt",
      unified_diff: utilDiff("a/draft.py", "b/draft.py"),
      base_content_sha256: sha256(UTIL),
    });

    expect(result).toMatchObject({
      ok: false,
      error: {
        code: "invalid_diff",
        message: expect.stringContaining("the diff is for `draft.py`, not `f.txt`") as string,
      },
    });
    expect(await readFile(client.path("f.txt"), "utf8")).toBe(UTIL);
    expect(client.buffer("draft.py")?.text).toBe(UTIL);
  });

  it("refuses a diff headed for another file on disk, naming it, and leaves both", async () => {
    const client = await launch({ "f.txt": UTIL, "lib/other.py": UTIL }, { style: "eglot" });
    const result = await client.command("safe_patch", {
      file_path: "f.txt",
      unified_diff: utilDiff("a/lib/other.py", "b/lib/other.py"),
      base_content_sha256: sha256(UTIL),
    });

    expect(result).toMatchObject({
      ok: false,
      error: {
        code: "invalid_diff",
        message: expect.stringContaining("the diff is for `lib/other.py`, not `f.txt`") as string,
      },
    });
    expect(await readFile(client.path("f.txt"), "utf8")).toBe(UTIL);
    expect(await readFile(client.path("lib/other.py"), "utf8")).toBe(UTIL);
  });
});
