// apply_patch through the server as a process: an envelope or a multi-file diff
// in a buffer offers code actions; running one changes every open file with an
// edit versioned on its buffer, or, when any file refuses, sends no edit at all.
import { afterEach, describe, expect, it } from "vitest";
import type { CodeAction, Command, TextDocumentEdit } from "vscode-languageserver-protocol";
import { cleanup, launch, type Envelope, type TestClient } from "../support/lsp-client.js";

afterEach(cleanup);

const MATH = [
  "def add(a, b):",
  "    return a + b",
  "",
  "def multiply(a, b):",
  "    return a + b  # BUG",
  "",
].join("\n");
const UTILS = ["import os", "import json", ""].join("\n");
const FILES = { "src/math.py": MATH, "src/utils.py": UTILS };

const ENVELOPE = [
  "Here is the fix:",
  "",
  "*** Begin Patch",
  "*** Update File: src/math.py",
  "@@ def multiply(a, b):",
  "-    return a + b  # BUG",
  "+    return a * b",
  "*** Update File: src/utils.py",
  "@@",
  " import os",
  "+import sys",
  "*** End Patch",
  "",
].join("\n");

async function run(client: TestClient, actions: (CodeAction | Command)[], title: string): Promise<Envelope> {
  const found = actions.find((a) => a.title.startsWith(title));
  if (!found)
    throw new Error(`no code action "${title}" among ${JSON.stringify(actions.map((a) => a.title))}`);
  const result = await client.runCodeAction(found);
  if (!result) throw new Error(`"${title}" ran no command`);
  return result;
}

describe.each(["helix", "eglot"] as const)("apply_patch code actions in %s", (style) => {
  it("an envelope in a buffer changes both open files, each edit versioned on its buffer", async () => {
    const client = await launch(FILES, { style });
    await client.open("src/math.py");
    await client.open("src/utils.py");
    await client.open("answer.md", ENVELOPE);
    const actions = await client.codeActions("answer.md");
    const checked = await run(client, actions, "Check apply_patch envelope (2 files");
    expect(checked).toMatchObject({ ok: true, data: { applied: false } });
    expect(client.applyEditRequests).toHaveLength(0);

    const applied = await run(client, actions, "Apply apply_patch envelope (2 files");
    expect(applied).toMatchObject({
      ok: true,
      data: {
        applied: true,
        files: [
          { file_path: "src/math.py", status: "applied" },
          { file_path: "src/utils.py", status: "applied" },
        ],
      },
    });
    expect(client.buffer("src/math.py")!.text).toBe(MATH.replace("return a + b  # BUG", "return a * b"));
    expect(client.buffer("src/utils.py")!.text).toBe(UTILS.replace("import os\n", "import os\nimport sys\n"));
    const versions = client.applyEditRequests.map(
      (r) => (r.params.edit.documentChanges?.[0] as TextDocumentEdit).textDocument.version,
    );
    expect(versions).toEqual([1, 1]);
  });

  it("sends no edit at all when one file's hunk does not fit, and names that file", async () => {
    const client = await launch(FILES, { style });
    await client.open("src/math.py");
    await client.open("src/utils.py");
    await client.open("answer.md", ENVELOPE.replace(" import os", " import nothing"));
    const result = await run(client, await client.codeActions("answer.md"), "Apply apply_patch envelope");
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.message).toMatch(/^src\/utils\.py: /);
    expect(client.applyEditRequests).toHaveLength(0);
    expect(client.buffer("src/math.py")!.text).toBe(MATH);
  });
});

describe("a .diff buffer for two files", () => {
  const DIFF = [
    "--- a/src/math.py",
    "+++ b/src/math.py",
    "@@ -4,2 +4,2 @@",
    " def multiply(a, b):",
    "-    return a + b  # BUG",
    "+    return a * b",
    "--- a/src/utils.py",
    "+++ b/src/utils.py",
    "@@ -1,2 +1,3 @@",
    " import os",
    "+import sys",
    " import json",
    "",
  ].join("\n");

  it("offers the whole change, all or none, beside each file's own section", async () => {
    const client = await launch({ ...FILES, "fix.patch": DIFF }, { style: "helix" });
    await client.open("src/math.py");
    await client.open("src/utils.py");
    await client.open("fix.patch");
    const actions = await client.codeActions("fix.patch");
    expect(actions.map((a) => a.title)).toEqual(
      expect.arrayContaining([
        "Apply the change to 2 files (all or none)",
        "Apply patch to src/math.py",
        "Apply patch to src/utils.py",
      ]),
    );
    expect(await run(client, actions, "Apply the change to 2 files")).toMatchObject({ ok: true });
    expect(client.buffer("src/math.py")!.text).toBe(MATH.replace("return a + b  # BUG", "return a * b"));
    expect(client.buffer("src/utils.py")!.text).toBe(UTILS.replace("import os\n", "import os\nimport sys\n"));
  });
});
