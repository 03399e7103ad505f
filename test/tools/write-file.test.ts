import { promises as fs } from "node:fs";
import { describe, expect, it } from "vitest";
import { EMPTY_SHA256, latestState, lines, makeWorkspace, sha256Of } from "../support/workspace-fixture.js";

const OLD = lines("# Changelog", "", "## 0.1.0", "- first release");
const NEW = lines("# Changelog", "", "## 0.2.0", "- state-verified edits", "", "## 0.1.0", "- first release");

describe("write_file creates", () => {
  it.each<[name: string, base: string | undefined]>([
    ["without a base", undefined],
    ["with the sha256 of the empty string as base", EMPTY_SHA256],
  ])("a new file (parent directories made) %s", async (_name, base) => {
    const ws = await makeWorkspace({ "CHANGELOG.md": OLD });
    const result = await ws.call("write_file", {
      file_path: "docs/notes/todo.md",
      content: NEW,
      ...(base ? { base_content_sha256: base } : {}),
    });

    expect(result).toMatchObject({
      ok: true,
      data: { applied: true, message: "Created docs/notes/todo.md." },
    });
    expect(latestState(result)).toMatchObject({
      file_path: "docs/notes/todo.md",
      version: null,
      sha256: sha256Of(NEW),
      content: NEW,
    });
    expect(await ws.text("docs/notes/todo.md")).toBe(NEW);
    expect(ws.approvals).toEqual([expect.objectContaining({ tool: "write_file", before: null, after: NEW })]);
  });

  it("creates an empty file", async () => {
    const ws = await makeWorkspace();
    const result = await ws.call("write_file", { file_path: ".keep", content: "" });
    expect(result.ok).toBe(true);
    expect(await ws.text(".keep")).toBe("");
  });

  it("refuses a non-empty base for a file that does not exist, and creates nothing", async () => {
    const ws = await makeWorkspace();
    const result = await ws.call("write_file", {
      file_path: "CHANGELOG.md",
      content: NEW,
      base_content_sha256: sha256Of(OLD),
    });

    expect(result).toMatchObject({
      ok: false,
      error: {
        code: "state_mismatch",
        message: expect.stringMatching(/^State Mismatch: .*does not exist/) as string,
      },
    });
    expect(latestState(result)).toMatchObject({ sha256: EMPTY_SHA256, content: "" });
    expect(await ws.exists("CHANGELOG.md")).toBe(false);
  });
});

describe("write_file over an existing file", () => {
  it("refuses to overwrite without a base and attaches the current state", async () => {
    const ws = await makeWorkspace({ "CHANGELOG.md": OLD });
    const result = await ws.call("write_file", { file_path: "CHANGELOG.md", content: NEW });

    expect(result).toMatchObject({
      ok: false,
      error: { code: "invalid_argument", message: expect.stringContaining("base_content_sha256") as string },
    });
    expect(latestState(result)).toMatchObject({
      file_path: "CHANGELOG.md",
      sha256: sha256Of(OLD),
      content: OLD,
    });
    expect(await ws.text("CHANGELOG.md")).toBe(OLD);
    expect(ws.approvals).toHaveLength(0);
  });

  it.each<[name: string, base: string]>([
    ["the base in lower case", sha256Of(OLD)],
    ["the base in upper case", sha256Of(OLD).toUpperCase()],
  ])("overwrites with %s and returns the new state", async (_name, base) => {
    const ws = await makeWorkspace({ "CHANGELOG.md": OLD });
    const result = await ws.call("write_file", {
      file_path: "CHANGELOG.md",
      content: NEW,
      base_content_sha256: base,
    });

    expect(result).toMatchObject({ ok: true, data: { applied: true, message: "Replaced CHANGELOG.md." } });
    expect(latestState(result)).toMatchObject({ sha256: sha256Of(NEW), content: NEW });
    expect(await ws.text("CHANGELOG.md")).toBe(NEW);
  });

  it("keeps the file's permission bits", async () => {
    const ws = await makeWorkspace({ "run.sh": "#!/bin/sh\necho old\n" });
    await fs.chmod(ws.abs("run.sh"), 0o750);
    const result = await ws.call("write_file", {
      file_path: "run.sh",
      content: "#!/bin/sh\necho new\n",
      base_content_sha256: sha256Of("#!/bin/sh\necho old\n"),
    });

    expect(result.ok).toBe(true);
    expect((await fs.stat(ws.abs("run.sh"))).mode & 0o777).toBe(0o750);
  });

  it.each<[name: string, base: string, content: string, code: string, label: RegExp]>([
    ["a base from another version", sha256Of("# Changelog\n"), NEW, "state_mismatch", /^State Mismatch:/],
    ["the base of the empty file", EMPTY_SHA256, NEW, "state_mismatch", /^State Mismatch:/],
    ["content equal to the file", sha256Of(OLD), OLD, "no_change", /^No Change:/],
  ])("refuses %s and leaves the file", async (_name, base, content, code, label) => {
    const ws = await makeWorkspace({ "CHANGELOG.md": OLD });
    const result = await ws.call("write_file", {
      file_path: "CHANGELOG.md",
      content,
      base_content_sha256: base,
    });

    expect(result).toMatchObject({
      ok: false,
      error: { code, message: expect.stringMatching(label) as string },
    });
    expect(latestState(result)).toMatchObject({ sha256: sha256Of(OLD), content: OLD });
    expect(await ws.text("CHANGELOG.md")).toBe(OLD);
  });

  it("writes nothing when the user rejects the change", async () => {
    const ws = await makeWorkspace({ "CHANGELOG.md": OLD }, { approve: "reject" });
    const result = await ws.call("write_file", {
      file_path: "CHANGELOG.md",
      content: NEW,
      base_content_sha256: sha256Of(OLD),
    });

    expect(result).toMatchObject({ ok: false, error: { code: "rejected" } });
    expect(await ws.text("CHANGELOG.md")).toBe(OLD);
  });

  it.each<[name: string, path: string, code: string]>([
    ["a directory", "docs", "invalid_argument"],
    ["a path outside the root", "../CHANGELOG.md", "permission_denied"],
  ])("refuses to write over %s", async (_name, path, code) => {
    const ws = await makeWorkspace({ "docs/index.md": "# docs\n" });
    const result = await ws.call("write_file", { file_path: path, content: NEW });

    expect(result).toMatchObject({ ok: false, error: { code } });
    expect(await ws.text("docs/index.md")).toBe("# docs\n");
    expect(
      await fs.access(`${ws.parent}/CHANGELOG.md`).then(
        () => true,
        () => false,
      ),
    ).toBe(false);
  });
});

describe("write_file with text UTF-8 cannot hold", () => {
  it.each([
    ["a lone high surrogate", "a\uD83D b\n"],
    ["a lone low surrogate", "a\uDE00 b\n"],
  ])("refuses %s, writes nothing, and names the character", async (_name, content) => {
    const ws = await makeWorkspace({});
    const result = await ws.call("write_file", { file_path: "new.txt", content });
    expect(result).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
    expect(!result.ok && result.error.message).toMatch(/surrogate \(U\+D[8-F][0-9A-F]{2}/);
    await expect(fs.access(ws.abs("new.txt"))).rejects.toThrow();
  });

  it("writes a whole character made of a surrogate pair", async () => {
    const ws = await makeWorkspace({});
    const result = await ws.call("write_file", { file_path: "new.txt", content: "smile \uD83D\uDE00\n" });
    expect(result).toMatchObject({
      ok: true,
      data: { latest_file_state: { sha256: sha256Of("smile \uD83D\uDE00\n") } },
    });
    expect(await fs.readFile(ws.abs("new.txt"), "utf8")).toBe("smile \uD83D\uDE00\n");
  });
});
