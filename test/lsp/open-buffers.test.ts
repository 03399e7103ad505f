// safe_patch on a file open in the editor: the change goes to the buffer as a
// versioned, minimal WorkspaceEdit, never to disk; the command never waits for
// the editor's didChange; and a buffer that moved on is never written over.
import { readFile } from "node:fs/promises";
import { createPatch } from "diff";
import { afterEach, describe, expect, it } from "vitest";
import type { TextDocumentEdit } from "vscode-languageserver-protocol";
import { cleanup, launch, sha256, stateOf, type TestClient } from "../support/lsp-client.js";

afterEach(cleanup);

const FILE = "src/big.ts";
const TEXT = Array.from({ length: 200 }, (_, i) => `export const v${i + 1} = ${i + 1};`).join("\n") + "\n";

/** `text` with 1-based line `n` replaced. */
function withLine(text: string, n: number, line: string): string {
  const lines = text.split("\n");
  lines[n - 1] = line;
  return lines.join("\n");
}

/** A safe_patch argument that turns `before` into `after`, locked to `before`. */
function patchArgs(
  before: string,
  after: string,
): { file_path: string; unified_diff: string; base_content_sha256: string } {
  return {
    file_path: FILE,
    unified_diff: createPatch(FILE, before, after),
    base_content_sha256: sha256(before),
  };
}

function didChanges(client: TestClient): number {
  return client.sent.filter((m) => m.method === "textDocument/didChange").length;
}

function onlyTextEdit(client: TestClient): TextDocumentEdit {
  expect(client.applyEditRequests).toHaveLength(1);
  const changes = client.applyEditRequests[0]!.params.edit.documentChanges ?? [];
  expect(changes).toHaveLength(1);
  return changes[0] as TextDocumentEdit;
}

/** Neovim's didChange debounce in the tests that look before it: a round trip is tens of ms, even on a loaded machine. */
const DEBOUNCE_MS = 4000;

describe.each(["helix", "neovim", "eglot"] as const)("safe_patch to an open buffer in %s", (style) => {
  it("changes the buffer with a minimal edit at the buffer's version, leaves the disk, and answers without waiting for the didChange", async () => {
    // A long debounce (DEBOUNCE_MS), so that "the didChange has not come yet" cannot be a slow machine's accident.
    const client = await launch({ [FILE]: TEXT }, { style, debounceMs: DEBOUNCE_MS });
    await client.open(FILE);
    const after = withLine(TEXT, 100, "export const v100 = 1000;");

    const began = performance.now();
    const result = await client.command("safe_patch", patchArgs(TEXT, after));
    const elapsed = performance.now() - began;
    const changesAtAnswer = didChanges(client);

    expect(result).toMatchObject({
      ok: true,
      data: { applied: true, latest_file_state: { content: after, sha256: sha256(after) } },
    });
    expect(String(result.data?.["message"])).toMatch(/^Patch applied successfully\./);
    const edit = onlyTextEdit(client);
    expect(edit.textDocument).toEqual({ uri: client.uri(FILE), version: 1 });
    // One line changed in 200: the edit covers that line, not the file.
    for (const e of edit.edits) {
      expect(e.range.start.line).toBeGreaterThanOrEqual(99);
      expect(e.range.end.line).toBeLessThanOrEqual(100);
    }
    expect(edit.edits.map((e) => e.newText).join("")).not.toContain("v99 =");
    expect(client.buffer(FILE)).toMatchObject({ text: after, version: 2 });
    expect(await readFile(client.path(FILE), "utf8")).toBe(TEXT);

    if (style === "helix")
      expect(changesAtAnswer).toBe(1); // Helix sends it before its reply
    else expect(changesAtAnswer).toBe(0); // Neovim: 4 s later; eglot: never, until flushed
    expect(elapsed).toBeLessThan(1000);
  });

  it("reads its own write at once (version null until the editor reports it), then the editor's new version", async () => {
    const client = await launch({ [FILE]: TEXT }, { style, debounceMs: DEBOUNCE_MS });
    await client.open(FILE);
    const after = withLine(TEXT, 3, "export const v3 = 'three';");
    expect((await client.command("safe_patch", patchArgs(TEXT, after))).ok).toBe(true);

    // Neovim flushes its pending didChange before a request from the same buffer; this read comes from elsewhere.
    const right = stateOf(await client.command("read_file", { file_path: FILE }, { flush: false }));
    expect(right).toMatchObject({
      content: after,
      sha256: sha256(after),
      version: style === "helix" ? 2 : null,
    });

    if (style === "eglot") await client.flush();
    else await client.settled();
    const later = stateOf(await client.command("read_file", { file_path: FILE }));
    expect(later).toMatchObject({ content: after, sha256: sha256(after), version: 2 });
  });

  it("refuses a patch built before the user typed, with the buffer's current state, and touches nothing", async () => {
    const client = await launch({ [FILE]: TEXT }, { style });
    await client.open(FILE);
    const read = stateOf(await client.command("read_file", { file_path: FILE }));
    await client.type(FILE, "v5 = 5;", "v5 = 55;");
    const typed = client.buffer(FILE)!.text;

    const result = await client.command(
      "safe_patch",
      patchArgs(read.content, withLine(read.content, 100, "export const v100 = 0;")),
    );
    expect(result).toMatchObject({ ok: false, error: { code: "state_mismatch" } });
    if (!result.ok) expect(result.error.message).toMatch(/^State Mismatch:/);
    expect(stateOf(result)).toMatchObject({ content: typed, sha256: sha256(typed), version: 2 });
    expect(client.applyEditRequests).toHaveLength(0);
    expect(client.buffer(FILE)).toMatchObject({ text: typed, version: 2 });
  });
});

describe.each(["helix", "eglot"] as const)("the user types while the edit is in flight in %s", (style) => {
  it("the editor refuses the stale edit and the command reports the buffer's latest state", async () => {
    const client = await launch({ [FILE]: TEXT }, { style });
    await client.open(FILE);
    client.beforeApplyEdit = async () => {
      client.beforeApplyEdit = undefined;
      await client.type(FILE, "v5 = 5;", "v5 = 55;");
    };
    const result = await client.command(
      "safe_patch",
      patchArgs(TEXT, withLine(TEXT, 100, "export const v100 = 0;")),
    );

    const typed = withLine(TEXT, 5, "export const v5 = 55;");
    expect(client.buffer(FILE)).toMatchObject({ text: typed, version: 2 });
    expect(client.applyEditRequests[0]!.reply?.applied ?? false).toBe(false);
    expect(result).toMatchObject({ ok: false, error: { code: "state_mismatch" } });
    expect(stateOf(result)).toMatchObject({ content: typed, sha256: sha256(typed), version: 2 });
  });
});

describe("the user types while the edit is in flight in neovim", () => {
  it.each([
    ["the next command comes from the same buffer (Neovim flushes its changes first)", true],
    ["the next command comes from another buffer (the typing is still debounced)", false],
  ])(
    "Neovim skips the stale edit and says applied; the next patch built on the returned state is refused: %s",
    async (_name, flush) => {
      const client = await launch({ [FILE]: TEXT }, { style: "neovim" });
      await client.open(FILE);
      client.beforeApplyEdit = () => {
        client.beforeApplyEdit = undefined;
        void client.type(FILE, "v5 = 5;", "v5 = 55;"); // debounced: the server hears of it 150 ms later
      };
      const first = await client.command(
        "safe_patch",
        patchArgs(TEXT, withLine(TEXT, 100, "export const v100 = 0;")),
      );
      const typed = withLine(TEXT, 5, "export const v5 = 55;");
      expect(client.applyEditRequests[0]).toMatchObject({
        reply: { applied: true },
        skipped: [expect.anything()],
      });
      expect(client.buffer(FILE)!.text).toBe(typed);
      // Neovim said applied: the server cannot know better yet.
      expect(first.ok).toBe(true);
      const believed = stateOf(first);

      const second = await client.command(
        "safe_patch",
        {
          file_path: FILE,
          unified_diff: createPatch(
            FILE,
            believed.content,
            withLine(believed.content, 150, "export const v150 = 0;"),
          ),
          base_content_sha256: believed.sha256,
        },
        { flush },
      );
      await client.settled();
      expect(client.buffer(FILE)!.text).toBe(typed);
      expect(second).toMatchObject({ ok: false, error: { code: "state_mismatch" } });
      expect(stateOf(second)).toMatchObject({ content: typed, sha256: sha256(typed) });
    },
  );
});

describe("patches in a row before the editor reports the first", () => {
  it("in Neovim (didChange debounced 150 ms, within lockstep's wait): each builds on the one before and both land, in order", async () => {
    const client = await launch({ [FILE]: TEXT }, { style: "neovim" });
    await client.open(FILE);
    const one = withLine(TEXT, 10, "export const v10 = 'ten';");
    const two = withLine(one, 20, "export const v20 = 'twenty';");
    const first = await client.command("safe_patch", patchArgs(TEXT, one), { flush: false });
    expect(stateOf(first)).toMatchObject({ content: one, version: null, unconfirmed: true });
    const second = await client.command("safe_patch", { ...patchArgs(one, two) }, { flush: false });
    expect(second).toMatchObject({
      ok: true,
      data: { latest_file_state: { content: two, sha256: sha256(two) } },
    });
    expect(client.buffer(FILE)!.text).toBe(two);
    await client.settled();
    expect(stateOf(await client.command("read_file", { file_path: FILE }))).toMatchObject({
      content: two,
      sha256: sha256(two),
    });
  });

  it("in eglot, whose idle timer cannot fire while it waits on the second command: refused as unconfirmed, never sent unversioned; after the didChange the same patch lands", async () => {
    const client = await launch({ [FILE]: TEXT }, { style: "eglot" });
    await client.open(FILE);
    const one = withLine(TEXT, 10, "export const v10 = 'ten';");
    const two = withLine(one, 20, "export const v20 = 'twenty';");
    await client.command("safe_patch", patchArgs(TEXT, one));
    const second = await client.command("safe_patch", patchArgs(one, two));
    expect(second).toMatchObject({
      ok: false,
      error: { code: "state_mismatch", message: expect.stringContaining("unconfirmed") as string },
    });
    expect(client.applyEditRequests).toHaveLength(1);
    await client.settled(); // the idle timer fires once eglot waits for nothing
    const retry = await client.command("safe_patch", patchArgs(one, two));
    expect(retry).toMatchObject({ ok: true, data: { latest_file_state: { content: two } } });
    await client.settled();
    expect(client.buffer(FILE)!.text).toBe(two);
  });
});
