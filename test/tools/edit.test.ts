import { describe, expect, it, vi } from "vitest";
import type { CorrectionAnswer, CorrectionRequest, EditCorrector } from "../../server/src/tools/tool.js";
import { latestState, lines, makeWorkspace, sha256Of } from "../support/workspace-fixture.js";

const SERVER = lines(
  "import http from 'node:http';",
  "",
  "export function start(port: number) {",
  "  const server = http.createServer((req, res) => {",
  "    res.writeHead(200);",
  "    res.end('ok');",
  "  });",
  "  server.listen(port);",
  "  return server;",
  "}",
  "",
  "export function stop(server: http.Server) {",
  "  server.close();",
  "  return server;",
  "}",
);

const FILE = "src/server.ts";

function serverWorkspace(options: Parameters<typeof makeWorkspace>[1] = {}) {
  return makeWorkspace({ [FILE]: SERVER }, options);
}

interface Match {
  name: string;
  args: { old_string: string; new_string: string; expected_replacements?: number };
  strategy: string;
  occurrences: number;
  after: string;
}

const MATCHES: Match[] = [
  {
    name: "an exact match",
    args: { old_string: "    res.end('ok');", new_string: "    res.end('ready');" },
    strategy: "exact",
    occurrences: 1,
    after: SERVER.replace("res.end('ok')", "res.end('ready')"),
  },
  {
    name: "lines indented differently (whitespace-flexible, replacement re-indented)",
    args: {
      old_string: "res.writeHead(200);\nres.end('ok');",
      new_string: "res.writeHead(204);\nres.end();",
    },
    strategy: "flexible",
    occurrences: 1,
    after: SERVER.replace(
      "    res.writeHead(200);\n    res.end('ok');",
      "    res.writeHead(204);\n    res.end();",
    ),
  },
  {
    name: "tokens spaced differently (token-tolerant)",
    args: { old_string: "  server.listen( port );", new_string: "  server.listen(port, '127.0.0.1');" },
    strategy: "token",
    occurrences: 1,
    after: SERVER.replace("  server.listen(port);", "  server.listen(port, '127.0.0.1');"),
  },
  {
    name: "expected_replacements 2 for a line that occurs twice",
    args: {
      old_string: "  return server;",
      new_string: "  return server as http.Server;",
      expected_replacements: 2,
    },
    strategy: "exact",
    occurrences: 2,
    after: SERVER.replaceAll("  return server;", "  return server as http.Server;"),
  },
];

describe("edit replaces old_string with new_string", () => {
  it.each(MATCHES)("with $name", async ({ args, strategy, occurrences, after }) => {
    const ws = await serverWorkspace();
    // Locked to the text read: a loose match without a base is refused (edit-unlocked.test.ts).
    const result = await ws.call("edit", { file_path: FILE, base_content_sha256: sha256Of(SERVER), ...args });

    expect(result).toMatchObject({
      ok: true,
      data: {
        applied: true,
        strategy,
        occurrences,
        message: expect.stringMatching(/^Edit applied successfully/) as string,
      },
    });
    expect(latestState(result)).toMatchObject({ sha256: sha256Of(after), content: after });
    expect(await ws.text(FILE)).toBe(after);
  });

  it("keeps CRLF line endings and the missing final newline", async () => {
    const crlf = SERVER.trimEnd().replaceAll("\n", "\r\n");
    const ws = await makeWorkspace({ [FILE]: crlf });
    const result = await ws.call("edit", {
      file_path: FILE,
      old_string: "  server.close();\n  return server;",
      new_string: "  server.close();\n  server.unref();\n  return server;",
    });

    expect(result.ok).toBe(true);
    const expected = crlf.replace("  server.close();\r\n", "  server.close();\r\n  server.unref();\r\n");
    expect((await ws.bytes(FILE)).equals(Buffer.from(expected))).toBe(true);
  });

  it("is locked to base_content_sha256 when one is given", async () => {
    const ws = await serverWorkspace();
    const good = await ws.call("edit", {
      file_path: FILE,
      old_string: "res.end('ok');",
      new_string: "res.end('fine');",
      base_content_sha256: sha256Of(SERVER),
    });
    expect(good.ok).toBe(true);

    const stale = await ws.call("edit", {
      file_path: FILE,
      old_string: "res.writeHead(200);",
      new_string: "res.writeHead(201);",
      base_content_sha256: sha256Of(SERVER),
    });
    const now = await ws.text(FILE);
    expect(stale).toMatchObject({
      ok: false,
      error: { code: "state_mismatch", message: expect.stringMatching(/^State Mismatch:/) as string },
    });
    expect(latestState(stale)).toMatchObject({ sha256: sha256Of(now), content: now });
    expect(now).toContain("res.writeHead(200);");
  });

  it("creates a missing file when old_string is empty", async () => {
    const ws = await serverWorkspace();
    const result = await ws.call("edit", {
      file_path: "src/index.ts",
      old_string: "",
      new_string: "export * from './server.js';\n",
    });
    expect(result).toMatchObject({ ok: true, data: { message: "Created src/index.ts." } });
    expect(await ws.text("src/index.ts")).toBe("export * from './server.js';\n");
  });

  it("changes nothing on a dry run", async () => {
    const ws = await serverWorkspace();
    const result = await ws.call("edit", {
      file_path: FILE,
      old_string: "res.end('ok');",
      new_string: "res.end('fine');",
      dry_run: true,
    });
    expect(result).toMatchObject({ ok: true, data: { applied: false, strategy: "exact" } });
    expect(await ws.text(FILE)).toBe(SERVER);
  });
});

describe("edit refuses, leaving the file and attaching its state", () => {
  it.each<
    [
      name: string,
      args: { old_string: string; new_string: string; expected_replacements?: number },
      code: string,
      message: RegExp,
    ]
  >([
    [
      "old_string equal to new_string",
      { old_string: "server.close();", new_string: "server.close();" },
      "no_change",
      /^No Change:/,
    ],
    [
      "new_string already in the file",
      { old_string: "res.end('gone');", new_string: "res.end('ok');" },
      "no_change",
      /^No Change: .*already in the file/,
    ],
    [
      "a line that occurs twice",
      { old_string: "  return server;", new_string: "  return null;" },
      "ambiguous",
      /matches 2 places .*lines 9 and 14/,
    ],
    [
      "more expected replacements than matches",
      { old_string: "  return server;", new_string: "  return null;", expected_replacements: 3 },
      "ambiguous",
      /expected_replacements is 3/,
    ],
    [
      "old_string that is not in the file",
      { old_string: "server.destroy();", new_string: "server.destroy(err);" },
      "not_found",
      /^Edit Failed: old_string was not found/,
    ],
    [
      "a placeholder standing for omitted code",
      {
        old_string: "  server.listen(port);\n  return server;",
        new_string: "  server.listen(port);\n  // rest of code\n  return server;",
      },
      "invalid_argument",
      /placeholder line .*rest of code/,
    ],
    [
      "an empty old_string on a file with content",
      { old_string: "", new_string: "x" },
      "invalid_argument",
      /old_string is empty/,
    ],
  ])("%s", async (_name, args, code, message) => {
    const ws = await serverWorkspace();
    const result = await ws.call("edit", { file_path: FILE, ...args });

    expect(result).toMatchObject({
      ok: false,
      error: { code, message: expect.stringMatching(message) as string },
    });
    expect(latestState(result)).toMatchObject({ sha256: sha256Of(SERVER), content: SERVER });
    expect(await ws.text(FILE)).toBe(SERVER);
  });

  it("accepts a placeholder-like comment that is already in the file", async () => {
    const withComment = SERVER.replace("  server.close();", "  // ...\n  server.close();");
    const ws = await makeWorkspace({ [FILE]: withComment });
    const result = await ws.call("edit", {
      file_path: FILE,
      old_string: "  // ...\n  server.close();",
      new_string: "  // ...\n  server.closeAllConnections();",
    });
    expect(result.ok).toBe(true);
  });

  it("refuses a missing file with a suggestion", async () => {
    const ws = await serverWorkspace();
    const result = await ws.call("edit", { file_path: "src/sever.ts", old_string: "a", new_string: "b" });
    expect(result).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(result.ok || result.error.suggestions).toContain("Did you mean src/server.ts?");
  });
});

/** A stand-in for the model's self-correction: answers from a table, records every request. */
function fakeCorrector(answer: CorrectionAnswer | undefined) {
  const correct = vi.fn(async (_request: CorrectionRequest, _signal: AbortSignal) => answer);
  const corrector: EditCorrector = { correct };
  return { corrector, correct };
}

describe("edit with a corrector", () => {
  const misremembered = {
    old_string: '    res.end("ok")\n    return;',
    new_string: "    res.end('ready');",
    instruction: "Answer 'ready' instead of 'ok'.",
  };

  it("asks it only when no tier matches, and reports strategy llm", async () => {
    const { corrector, correct } = fakeCorrector({
      search: "    res.end('ok');",
      replace: "    res.end('ready');",
      noChangesRequired: false,
      explanation: "quotes differ",
    });
    const ws = await serverWorkspace({ corrector });
    const result = await ws.call("edit", {
      file_path: FILE,
      base_content_sha256: sha256Of(SERVER),
      ...misremembered,
    });

    expect(result).toMatchObject({ ok: true, data: { strategy: "llm", occurrences: 1 } });
    expect(await ws.text(FILE)).toBe(SERVER.replace("res.end('ok')", "res.end('ready')"));
    expect(correct).toHaveBeenCalledTimes(1);
    expect(correct.mock.calls[0]?.[0]).toMatchObject({
      instruction: misremembered.instruction,
      old_string: misremembered.old_string,
      new_string: misremembered.new_string,
      content: SERVER,
      error: expect.stringMatching(/not found/) as string,
    });
  });

  it.each(MATCHES)("does not ask it when $name succeeds", async ({ args, strategy }) => {
    const { corrector, correct } = fakeCorrector({
      search: "import http from 'node:http';",
      replace: "// wrong",
      noChangesRequired: false,
      explanation: "",
    });
    const ws = await serverWorkspace({ corrector });
    const result = await ws.call("edit", { file_path: FILE, base_content_sha256: sha256Of(SERVER), ...args });

    expect(result).toMatchObject({ ok: true, data: { strategy } });
    expect(correct).not.toHaveBeenCalled();
  });

  it("does not ask it when the failure is ambiguity, not absence", async () => {
    const { corrector, correct } = fakeCorrector({
      search: "  server.listen(port);\n  return server;",
      replace: "  server.listen(port);\n  return null;",
      noChangesRequired: false,
      explanation: "",
    });
    const ws = await serverWorkspace({ corrector });
    const result = await ws.call("edit", {
      file_path: FILE,
      old_string: "  return server;",
      new_string: "  return null;",
    });
    expect(result).toMatchObject({ ok: false, error: { code: "ambiguous" } });
    expect(correct).not.toHaveBeenCalled();
  });

  it("does not ask it when base_content_sha256 is already stale (the edit cannot land)", async () => {
    const { corrector, correct } = fakeCorrector({
      search: "    res.end('ok');",
      replace: "    res.end('ready');",
      noChangesRequired: false,
      explanation: "",
    });
    const ws = await serverWorkspace({ corrector });
    const result = await ws.call("edit", {
      file_path: FILE,
      ...misremembered,
      base_content_sha256: sha256Of("an older version\n"),
    });

    expect(result).toMatchObject({ ok: false, error: { code: "state_mismatch" } });
    expect(correct).not.toHaveBeenCalled();
  });

  it.each<[name: string, answer: CorrectionAnswer | undefined, code: string]>([
    ["no answer", undefined, "not_found"],
    [
      "an answer that does not match either",
      { search: "res.end(`ok`);", replace: "res.end('ready');", noChangesRequired: false, explanation: "" },
      "not_found",
    ],
    [
      "an answer saying nothing needs changing",
      { search: "", replace: "", noChangesRequired: true, explanation: "already answers ready" },
      "no_change",
    ],
  ])("leaves the file when it gives %s", async (_name, answer, code) => {
    const { corrector, correct } = fakeCorrector(answer);
    const ws = await serverWorkspace({ corrector });
    const result = await ws.call("edit", { file_path: FILE, ...misremembered });

    expect(correct).toHaveBeenCalledTimes(1);
    expect(result).toMatchObject({ ok: false, error: { code } });
    expect(await ws.text(FILE)).toBe(SERVER);
  });
});
