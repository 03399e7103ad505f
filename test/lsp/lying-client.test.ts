// An editor's `applied: true` is a claim; its didChange is the report. A client
// that claims an edit it never applied must not lead lockstep to a wrong-line
// edit, nor to reporting text the editor never confirmed as if it were the buffer.
import { writeFile } from "node:fs/promises";
import { createPatch } from "diff";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, launch, sha256, stateOf } from "../support/lsp-client.js";

afterEach(cleanup);

const FILE = "src/values.ts";
const LINES = Array.from({ length: 40 }, (_, i) => `const v${i} = ${i};`);
const TEXT = LINES.join("\n") + "\n";

function change(text: string, from: string, to: string): string {
  return createPatch(FILE, text, text.replace(from, to));
}

describe("a client that answers applied: true without applying", () => {
  it("once: the read says unconfirmed, the next patch on that state is refused and sent nowhere, and the buffer is never hit at the wrong line", async () => {
    const client = await launch({ [FILE]: TEXT }, { style: "helix" });
    await client.open(FILE);
    client.lies = 1;
    const first = await client.command("safe_patch", {
      file_path: FILE,
      unified_diff: change(TEXT, "const v3 = 3;\n", ""),
      base_content_sha256: sha256(TEXT),
    });
    expect(first.ok).toBe(true);
    expect(stateOf(first)).toMatchObject({ unconfirmed: true, version: null });
    const claimed = stateOf(first).content;

    const read = await client.command("read_file", { file_path: FILE });
    expect(read).toMatchObject({ ok: true, data: { unconfirmed: true } });

    // Built on the claimed text: line numbers one off from the real buffer.
    const second = await client.command("safe_patch", {
      file_path: FILE,
      unified_diff: change(claimed, "const v23 = 23;", "const v23 = 2300;"),
      base_content_sha256: sha256(claimed),
    });
    expect(second).toMatchObject({
      ok: false,
      error: { code: "state_mismatch", message: expect.stringContaining("unconfirmed") as string },
    });
    expect(client.applyEditRequests).toHaveLength(1);
    expect(client.buffer(FILE)!.text).toBe(TEXT); // the buffer as the user has it: untouched, v23 too

    // The claim is dropped: the read is the editor's report, and a patch on it lands where it should.
    const again = await client.command("read_file", { file_path: FILE });
    expect(again).toMatchObject({ ok: true, data: { content: TEXT, sha256: sha256(TEXT) } });
    expect(stateOf(again).unconfirmed).toBeUndefined();
    const third = await client.command("safe_patch", {
      file_path: FILE,
      unified_diff: change(TEXT, "const v23 = 23;", "const v23 = 2300;"),
      base_content_sha256: sha256(TEXT),
    });
    expect(third.ok).toBe(true);
    expect(client.buffer(FILE)!.text).toBe(TEXT.replace("const v23 = 23;", "const v23 = 2300;"));
  });

  it("always: no read reports the phantom text for ever", async () => {
    const client = await launch({ [FILE]: TEXT }, { style: "helix" });
    await client.open(FILE);
    client.lies = Infinity;
    const first = await client.command("safe_patch", {
      file_path: FILE,
      unified_diff: change(TEXT, "const v3 = 3;", "const v3 = 30;"),
      base_content_sha256: sha256(TEXT),
    });
    expect(first.ok).toBe(true);
    await new Promise((r) => setTimeout(r, 3_100)); // past the claim's expiry (3 waits of 1 s)
    const read = await client.command("read_file", { file_path: FILE });
    expect(read).toMatchObject({ ok: true, data: { content: TEXT, sha256: sha256(TEXT) } });
  });

  it("always: a patch on the claimed text is refused with a message that names what the editor did", async () => {
    const client = await launch({ [FILE]: TEXT }, { style: "helix" });
    await client.open(FILE);
    client.lies = Infinity;
    const first = await client.command("safe_patch", {
      file_path: FILE,
      unified_diff: change(TEXT, "const v3 = 3;", "const v3 = 30;"),
      base_content_sha256: sha256(TEXT),
    });
    const claimed = stateOf(first).content;
    const second = await client.command("safe_patch", {
      file_path: FILE,
      unified_diff: change(claimed, "const v9 = 9;", "const v9 = 90;"),
      base_content_sha256: sha256(claimed),
    });
    expect(second).toMatchObject({
      ok: false,
      error: {
        code: "state_mismatch",
        suggestions: expect.arrayContaining([
          expect.stringContaining("reports edits as applied without applying them"),
        ]) as string[],
      },
    });
    expect(client.applyEditRequests).toHaveLength(1);
  });

  it("property: every sha256 a read reports is of text the editor reported, or is marked unconfirmed", async () => {
    const client = await launch({ [FILE]: TEXT }, { style: "helix" });
    await client.open(FILE);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.boolean(), fc.nat({ max: 39 })), { minLength: 1, maxLength: 3 }),
        async (steps) => {
          for (const [lie, n] of steps) {
            client.lies = lie ? 1 : 0;
            const before = await client.command("read_file", { file_path: FILE });
            const state = stateOf(before);
            const line = state.content.split("\n")[n];
            if (line === undefined || line === "") continue;
            await client.command("safe_patch", {
              file_path: FILE,
              unified_diff: change(state.content, `${line}\n`, `${line} // ${n}\n`),
              base_content_sha256: state.sha256,
            });
            const after = await client.command("read_file", { file_path: FILE });
            const s = stateOf(after);
            if (!s.unconfirmed) expect(s.content).toBe(client.buffer(FILE)!.text);
          }
        },
      ),
      { numRuns: 6 },
    );
  }, 60_000);
});

describe("a file that is not open, edited through the editor", () => {
  it("a claim never shown: the patch built on it is refused and sent nowhere, naming the editor's behaviour; once the user opens the file, a patch lands where it should", async () => {
    const client = await launch({ [FILE]: TEXT }, { style: "helix" });
    client.lies = 1;
    const first = await client.command("safe_patch", {
      file_path: FILE,
      unified_diff: change(TEXT, "const v3 = 3;\n", ""),
      base_content_sha256: sha256(TEXT),
    });
    expect(stateOf(first)).toMatchObject({ unconfirmed: true, version: null, open: false });
    const claimed = stateOf(first).content;
    expect(await client.command("read_file", { file_path: FILE })).toMatchObject({
      ok: true,
      data: { unconfirmed: true },
    });

    const second = await client.command("safe_patch", {
      file_path: FILE,
      unified_diff: change(claimed, "const v23 = 23;", "const v23 = 2300;"),
      base_content_sha256: sha256(claimed),
    });
    expect(second).toMatchObject({
      ok: false,
      error: {
        code: "state_mismatch",
        message: expect.stringContaining("neither opened it nor saved it") as string,
      },
    });
    expect(client.applyEditRequests).toHaveLength(1);
    expect(client.buffer(FILE)).toBeUndefined();

    await client.open(FILE);
    const shown = await client.command("read_file", { file_path: FILE });
    expect(shown).toMatchObject({ ok: true, data: { content: TEXT, sha256: sha256(TEXT), open: true } });
    const third = await client.command("safe_patch", {
      file_path: FILE,
      unified_diff: change(TEXT, "const v23 = 23;", "const v23 = 2300;"),
      base_content_sha256: sha256(TEXT),
    });
    expect(third.ok).toBe(true);
    expect(client.buffer(FILE)!.text).toBe(TEXT.replace("const v23 = 23;", "const v23 = 2300;"));
  });

  it("Neovim's hidden buffer (never reported): the second patch waits for the disk, and lands once the user saved", async () => {
    const client = await launch({ [FILE]: TEXT }, { style: "neovim" });
    const first = await client.command("safe_patch", {
      file_path: FILE,
      unified_diff: change(TEXT, "const v3 = 3;\n", ""),
      base_content_sha256: sha256(TEXT),
    });
    const claimed = stateOf(first).content;
    const patch = {
      file_path: FILE,
      unified_diff: change(claimed, "const v23 = 23;", "const v23 = 2300;"),
      base_content_sha256: sha256(claimed),
    };
    expect(await client.command("safe_patch", patch)).toMatchObject({
      ok: false,
      error: { code: "state_mismatch" },
    });
    expect(client.buffer(FILE)!.text).toBe(claimed); // the hidden buffer kept the first edit alone

    await writeFile(client.path(FILE), client.buffer(FILE)!.text); // the user saves (:wall)
    expect(await client.command("safe_patch", patch)).toMatchObject({ ok: true });
    expect(client.buffer(FILE)!.text).toBe(claimed.replace("const v23 = 23;", "const v23 = 2300;"));
  });
});
