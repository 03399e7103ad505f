import { describe, expect, it } from "vitest";
import {
  declarationOf,
  findTool,
  functionDeclarations,
  invokeTool,
  jsonSchemaOf,
  TOOLS,
  toolsFor,
} from "../../server/src/tools/registry.js";
import type { Tool } from "../../server/src/tools/tool.js";
import { DiagnosticsRecord } from "../../server/src/diagnostics/record.js";
import type { CommandAccess } from "../../server/src/tools/command-question.js";
import { EMPTY_SHA256, lines, makeWorkspace, sha256Of } from "../support/workspace-fixture.js";

const GOOD_SHA = sha256Of("hello\n");

/** Arguments each tool accepts; the refusal tables below break one thing at a time. */
const VALID: Record<string, Record<string, unknown>> = {
  read_file: { file_path: "hello.txt" },
  read_many_files: { file_paths: ["hello.txt"] },
  list_files: { path: "." },
  search_files: { pattern: "hello" },
  find_files: { pattern: "*.txt" },
  write_file: { file_path: "new.txt", content: "x\n" },
  safe_patch: { file_path: "hello.txt", unified_diff: "@@ @@\n-hello\n+hi\n", base_content_sha256: GOOD_SHA },
  edit: { file_path: "hello.txt", old_string: "hello", new_string: "hi" },
  apply_edit_blocks: { text: lines("dir/new.txt", "««« EDIT", "═══════ REPL", "x", "»»» EDIT END") },
  apply_patch: {
    input: lines("*** Begin Patch", "*** Update File: hello.txt", "@@", "-hello", "+hi", "*** End Patch"),
  },
  get_diagnostics: { file_path: "hello.txt" },
  run_command: { command: "echo hi" },
};

/** Commands that run unasked, unsandboxed: run_command exists, and its valid call runs. */
const commands: CommandAccess = {
  settings: () => ({ commands: "auto", allowedCommands: [], sandbox: "off", sandboxNetwork: false }),
  alwaysAllowed: new Set(),
  prompt: () => async () => "once",
};

/** In wrap mode, with commands, so that conditional tools exist too. */
async function workspace() {
  return makeWorkspace(
    { "hello.txt": "hello\n" },
    { diagnostics: new DiagnosticsRecord("test-server", () => 0), commands },
  );
}

describe("the tool list", () => {
  it("has valid arguments in this test for every tool, and they pass", async () => {
    expect(Object.keys(VALID).sort()).toEqual(TOOLS.map((t) => t.name).sort());
    for (const tool of TOOLS) {
      const ws = await workspace();
      const result = await ws.call(tool.name, VALID[tool.name]);
      expect({ tool: tool.name, ok: result.ok }).toEqual({ tool: tool.name, ok: true });
    }
  });
});

describe("invokeTool validates before it runs", () => {
  it.each<[asked: string, meant: string]>([
    ["safe_pach", "safe_patch"],
    ["readfile", "read_file"],
    ["Edit", "edit"],
    ["list_file", "list_files"],
  ])("answers the unknown tool %s with invalid_argument and `Did you mean %s?`", async (asked, meant) => {
    const ws = await workspace();
    const result = await ws.call(asked, {});
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: "invalid_argument",
        message: expect.stringContaining(`Unknown tool \`${asked}\``) as string,
      },
    });
    expect(result.ok || result.error.suggestions).toContain(`Did you mean ${meant}?`);
  });

  it.each(TOOLS.map((t) => t.name))("%s refuses an unknown extra field and names it", async (name) => {
    const ws = await workspace();
    const result = await ws.call(name, { ...VALID[name], bogus: 1 });
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: "invalid_argument",
        message: expect.stringContaining("unknown field `bogus`") as string,
      },
    });
  });

  it.each<[tool: string, args: Record<string, unknown>, named: string[]]>([
    // a missing field
    [
      "safe_patch",
      { file_path: "hello.txt", unified_diff: "@@ @@\n-hello\n+hi\n" },
      ["`base_content_sha256` is required"],
    ],
    ["edit", { file_path: "hello.txt", old_string: "hello" }, ["`new_string` is required"]],
    ["write_file", { content: "x" }, ["`file_path` is required"]],
    ["apply_edit_blocks", {}, ["`text` is required"]],
    // a wrong type
    ["read_file", { file_path: 42 }, ["`file_path`"]],
    ["read_many_files", { file_paths: "hello.txt" }, ["`file_paths`"]],
    ["read_many_files", { file_paths: ["hello.txt", 7] }, ["`file_paths.1`"]],
    ["safe_patch", { ...VALID["safe_patch"], dry_run: "yes" }, ["`dry_run`"]],
    ["edit", { ...VALID["edit"], expected_replacements: 1.5 }, ["`expected_replacements`"]],
    ["edit", { ...VALID["edit"], expected_replacements: 0 }, ["`expected_replacements`"]],
    // a field under the wrong name
    ["read_file", { path: "hello.txt" }, ["unknown field `path`", "`file_path` is required"]],
    [
      "safe_patch",
      { file_path: "hello.txt", diff: "@@ @@\n-hello\n+hi\n", base_content_sha256: GOOD_SHA },
      ["unknown field `diff`", "`unified_diff` is required"],
    ],
    [
      "edit",
      { file_path: "hello.txt", old_str: "hello", new_str: "hi" },
      ["unknown fields `old_str`, `new_str`"],
    ],
    // a malformed sha256
    [
      "safe_patch",
      { ...VALID["safe_patch"], base_content_sha256: "abc123" },
      ["`base_content_sha256`", "64-character hex sha256"],
    ],
    [
      "safe_patch",
      { ...VALID["safe_patch"], base_content_sha256: "g".repeat(64) },
      ["`base_content_sha256`"],
    ],
    [
      "write_file",
      { ...VALID["write_file"], base_content_sha256: `${GOOD_SHA}0` },
      ["`base_content_sha256`"],
    ],
    // empty values
    ["read_file", { file_path: "" }, ["`file_path` must name a file"]],
    ["read_many_files", { file_paths: [] }, ["`file_paths` must list at least one path"]],
    ["safe_patch", { ...VALID["safe_patch"], unified_diff: "" }, ["`unified_diff` must contain the diff"]],
  ])("%s %j is refused, naming %j", async (tool, args, named) => {
    const ws = await workspace();
    const result = await ws.call(tool, args);

    expect(result).toMatchObject({
      ok: false,
      error: {
        code: "invalid_argument",
        message: expect.stringMatching(new RegExp(`^Invalid arguments for ${tool}: `)) as string,
      },
    });
    for (const words of named) expect(result.ok || result.error.message).toContain(words);
    expect(await ws.text("hello.txt")).toBe("hello\n");
  });

  it.each([null, undefined, "hello.txt", ["hello.txt"]])(
    "refuses %j as the arguments object",
    async (args) => {
      const ws = await workspace();
      expect(await ws.call("read_file", args)).toMatchObject({
        ok: false,
        error: { code: "invalid_argument" },
      });
    },
  );

  it("accepts a sha256 in upper case or with surrounding spaces", async () => {
    const ws = await workspace();
    const result = await ws.call("safe_patch", {
      ...VALID["safe_patch"],
      base_content_sha256: ` ${GOOD_SHA.toUpperCase()} `,
    });
    expect(result.ok).toBe(true);
    expect(await ws.text("hello.txt")).toBe("hi\n");
  });

  it("runs nothing when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const ws = await makeWorkspace({ "hello.txt": "hello\n" }, { signal: controller.signal });
    const result = await invokeTool("write_file", { file_path: "new.txt", content: "x" }, ws.ctx);
    expect(result).toMatchObject({ ok: false, error: { code: "cancelled" } });
    expect(await ws.exists("new.txt")).toBe(false);
  });

  it("reports a tool that throws as internal_error instead of throwing", async () => {
    const ws = await workspace();
    const broken = { ...ws.ctx, approve: () => Promise.reject(new Error("prompt crashed")) };
    const result = await invokeTool("write_file", { file_path: "new.txt", content: "x" }, broken);
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: "internal_error",
        message: expect.stringMatching(/^Internal Error: .*prompt crashed/) as string,
      },
    });
    expect(await ws.exists("new.txt")).toBe(false);
  });
});

describe("what the model is shown", () => {
  it("gives the model every tool but the commands-only apply_edit_blocks", () => {
    expect(functionDeclarations().map((d) => d.name)).toEqual([
      "read_file",
      "read_many_files",
      "list_files",
      "search_files",
      "find_files",
      "write_file",
      "safe_patch",
      "edit",
    ]);
    expect(findTool("apply_edit_blocks")?.audience).toBe("commands");
  });

  it("offers get_diagnostics only in wrap mode; without it, the call says how to wrap a server", async () => {
    expect(functionDeclarations({ wrapped: true }).map((d) => d.name)).toContain("get_diagnostics");
    const plain = await makeWorkspace({ "hello.txt": "hello\n" });
    const result = await plain.call("get_diagnostics", { file_path: "hello.txt" });
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: "invalid_argument",
        message: expect.stringContaining("lockstep --stdio --wrap -- ") as string,
      },
    });
  });

  it("holds conditional tools: one exists only where its condition does, for commands and the model alike", async () => {
    const wrappedOnly = {
      ...findTool("list_files")!,
      name: "wrapped_only",
      available: (c: { wrapped?: boolean }) => c.wrapped === true,
    } as Tool;
    expect(toolsFor({}, [...TOOLS, wrappedOnly]).map((t) => t.name)).not.toContain("wrapped_only");
    expect(toolsFor({ wrapped: true }, [...TOOLS, wrappedOnly]).map((t) => t.name)).toContain("wrapped_only");
    const ws = await workspace();
    const result = await invokeTool("wrapped_only", {}, ws.ctx);
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: "invalid_argument",
        message: expect.stringContaining("Unknown tool `wrapped_only`") as string,
      },
    });
  });

  it.each<[tool: string, required: string[], optional: string[]]>([
    ["read_file", ["file_path"], ["offset", "limit"]],
    ["read_many_files", ["file_paths"], []],
    ["list_files", ["path"], []],
    ["search_files", ["pattern"], ["path", "include", "case_sensitive", "max_results"]],
    ["find_files", ["pattern"], ["path"]],
    ["write_file", ["file_path", "content"], ["base_content_sha256"]],
    ["safe_patch", ["file_path", "unified_diff", "base_content_sha256"], ["dry_run"]],
    [
      "edit",
      ["file_path", "old_string", "new_string"],
      ["expected_replacements", "instruction", "base_content_sha256", "dry_run"],
    ],
    ["apply_edit_blocks", ["text"], ["dry_run"]],
  ])("%s: a closed object requiring %j, then optional %j", (name, required, optional) => {
    const tool = TOOLS.find((t) => t.name === name)!;
    const schema = jsonSchemaOf(tool);
    expect(schema).toMatchObject({ type: "object", required, additionalProperties: false });
    expect(Object.keys(schema["properties"] as object)).toEqual([...required, ...optional]);
    expect(schema).not.toHaveProperty("$schema");
  });

  it("puts the usage protocol in the descriptions of the modifying tools", () => {
    const description = (name: string) => declarationOf(findTool(name)!).description;
    expect(description("safe_patch")).toMatch(/base_content_sha256/);
    expect(description("safe_patch")).toMatch(/at least 10 unchanged context lines/);
    expect(description("safe_patch")).toMatch(/highest version/);
    expect(description("read_file")).toMatch(/sha256/);
    expect(description("write_file")).toMatch(/base_content_sha256/);
  });

  it("finds no tool that does not exist", () => {
    expect(findTool("delete_file")).toBeUndefined();
  });

  it("matches the reviewed snapshot of names, descriptions and JSON schemas", () => {
    expect(functionDeclarations()).toMatchSnapshot();
  });

  it("declares the sha256 pattern the validator enforces", () => {
    const schema = jsonSchemaOf(TOOLS.find((t) => t.name === "safe_patch")!);
    const pattern = new RegExp(
      (schema["properties"] as Record<string, { pattern: string }>)["base_content_sha256"]!.pattern,
    );
    expect(pattern.test(EMPTY_SHA256)).toBe(true);
    expect(pattern.test("abc")).toBe(false);
  });
});
