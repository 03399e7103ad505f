// Code actions that need no model: edit blocks in a buffer, a .diff buffer, a
// fenced ```diff block in markdown. The editor runs the action's command, the
// change arrives as WorkspaceEdits like any other.
import { promises as fs } from "node:fs";
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
const UTILS = [
  "import os",
  "import json",
  "",
  "def load(path):",
  "    with open(path) as f:",
  "        return json.load(f)",
  "",
].join("\n");
const FILES = { "src/math.py": MATH, "src/utils.py": UTILS };

function block(path: string, edit: string[], repl: string[]): string {
  return [path, "««« EDIT", ...edit, "═══════ REPL", ...repl, "»»» EDIT END"].join("\n");
}

const FIX_MULTIPLY = block(
  "src/math.py",
  ["def multiply(a, b):", "    return a + b  # BUG"],
  ["def multiply(a, b):", "    return a * b"],
);
const ADD_SYS = block("src/utils.py", ["import os"], ["import os", "import sys"]);
const ANSWER = ["Two changes:", "", FIX_MULTIPLY, "", "and", "", ADD_SYS, ""].join("\n");

function titled(actions: (CodeAction | Command)[], title: string): CodeAction | Command {
  const found = actions.find((a) => a.title === title);
  if (!found)
    throw new Error(`no code action "${title}" among ${JSON.stringify(actions.map((a) => a.title))}`);
  return found;
}

async function run(client: TestClient, actions: (CodeAction | Command)[], title: string): Promise<Envelope> {
  const result = await client.runCodeAction(titled(actions, title));
  if (!result) throw new Error(`"${title}" ran no command`);
  return result;
}

describe.each(["helix", "eglot"] as const)("edit block actions in %s", (style) => {
  it("offers to apply and to check two blocks; checking changes nothing, applying changes the buffer and the closed file's editor copy", async () => {
    const client = await launch(FILES, { style });
    await client.open("src/math.py");
    await client.open("answer.md", ANSWER);
    const actions = await client.codeActions("answer.md");
    expect(actions.map((a) => a.title)).toEqual(
      expect.arrayContaining(["Apply 2 edit blocks", "Check 2 edit blocks (dry run)"]),
    );

    const checked = await run(client, actions, "Check 2 edit blocks (dry run)");
    expect(checked).toMatchObject({
      ok: true,
      data: { blocks: [{ status: "validated" }, { status: "validated" }] },
    });
    expect(client.applyEditRequests).toHaveLength(0);

    const applied = await run(client, actions, "Apply 2 edit blocks");
    expect(applied).toMatchObject({
      ok: true,
      data: {
        files_changed: ["src/math.py", "src/utils.py"],
        blocks: [{ status: "applied" }, { status: "applied" }],
      },
    });
    expect(client.buffer("src/math.py")!.text).toBe(MATH.replace("return a + b  # BUG", "return a * b"));
    const versions = client.applyEditRequests.map(
      (r) => (r.params.edit.documentChanges?.[0] as TextDocumentEdit).textDocument.version,
    );
    expect(versions).toEqual([1, null]);
    expect(client.buffer("src/utils.py")!.text).toBe(UTILS.replace("import os\n", "import os\nimport sys\n"));
    // Nothing was saved.
    expect(await fs.readFile(client.path("src/math.py"), "utf8")).toBe(MATH);
    expect(await fs.readFile(client.path("src/utils.py"), "utf8")).toBe(UTILS);
    await client.waitForNotification("window/showMessage", (p) =>
      /2 edit blocks applied/.test((p as { message: string }).message),
    );
  });
});

describe("aider's SEARCH/REPLACE blocks in a buffer", () => {
  it("offer Apply N edit blocks like ««« EDIT blocks, and applying lands them", async () => {
    const client = await launch(FILES, { style: "helix" });
    await client.open("src/math.py");
    const answer = [
      "src/math.py",
      "```python",
      "<<<<<<< SEARCH",
      "def multiply(a, b):",
      "    return a + b  # BUG",
      "=======",
      "def multiply(a, b):",
      "    return a * b",
      ">>>>>>> REPLACE",
      "```",
      "",
    ].join("\n");
    await client.open("answer.md", answer);
    const actions = await client.codeActions("answer.md");
    const applied = await run(client, actions, "Apply 1 edit block");
    expect(applied).toMatchObject({ ok: true, data: { blocks: [{ status: "applied" }] } });
    expect(client.buffer("src/math.py")!.text).toBe(MATH.replace("return a + b  # BUG", "return a * b"));
  });
});

describe("edit blocks that do not apply", () => {
  it("apply the good block and tell the user why the other was refused", async () => {
    const client = await launch(FILES, { style: "helix" });
    const bad = block("src/utils.py", ["import yaml"], ["import yaml", "import sys"]);
    await client.open("answer.md", [FIX_MULTIPLY, "", bad, ""].join("\n"));
    const result = await run(client, await client.codeActions("answer.md"), "Apply 2 edit blocks");

    expect(result).toMatchObject({
      ok: false,
      data: { blocks: [{ status: "applied" }, { file_path: "src/utils.py", status: "failed" }] },
    });
    const reason = (result.data?.["blocks"] as { message: string }[])[1]!.message;
    const shown = await client.waitForNotification(
      "window/showMessage",
      (p) => (p as { type: number }).type <= 2 && /src\/utils\.py/.test((p as { message: string }).message),
    );
    expect((shown.params as { message: string }).message).toContain(reason);
    expect(client.buffer("src/math.py")!.text).toContain("return a * b");
    expect(client.buffer("src/utils.py")).toBeUndefined();
  });

  it("offer nothing for a buffer without complete blocks", async () => {
    const client = await launch(FILES, { style: "neovim" });
    await client.open("answer.md", "src/math.py\n««« EDIT\ndef add(a, b):\n═══════ REPL\n");
    const actions = await client.codeActions("answer.md");
    expect(actions.map((a) => a.title).filter((t) => /edit block/.test(t))).toEqual([]);
  });
});

describe("patch actions", () => {
  const DIFF = [
    "--- a/src/math.py",
    "+++ b/src/math.py",
    "@@ -4,2 +4,2 @@",
    " def multiply(a, b):",
    "-    return a + b  # BUG",
    "+    return a * b",
    "",
  ].join("\n");

  it("a .diff buffer offers Apply patch to FILE, and running it patches FILE", async () => {
    const client = await launch({ ...FILES, "fix.diff": DIFF }, { style: "helix" });
    await client.open("src/math.py");
    await client.open("fix.diff");
    const actions = await client.codeActions("fix.diff");
    const result = await run(client, actions, "Apply patch to src/math.py");
    expect(result).toMatchObject({ ok: true, data: { applied: true } });
    expect(client.buffer("src/math.py")!.text).toBe(MATH.replace("return a + b  # BUG", "return a * b"));
  });

  it("a markdown buffer with a fenced diff block offers Apply patch to FILE, and running it patches FILE", async () => {
    const utilsDiff = [
      "--- a/src/utils.py",
      "+++ b/src/utils.py",
      "@@ @@",
      " import os",
      "+import sys",
      " import json",
      "",
    ].join("\n");
    const markdown = ["# Review", "", "Add sys:", "", "```diff", utilsDiff + "```", "", "Thanks.", ""].join(
      "\n",
    );
    const client = await launch(FILES, { style: "neovim" });
    await client.open("src/utils.py");
    await client.open("REVIEW.md", markdown);
    const actions = await client.codeActions("REVIEW.md");
    expect(actions.map((a) => a.title)).toContain("Apply patch to src/utils.py");
    const result = await run(client, actions, "Apply patch to src/utils.py");
    expect(result).toMatchObject({ ok: true, data: { applied: true } });
    await client.settled();
    expect(client.buffer("src/utils.py")!.text).toBe(UTILS.replace("import os\n", "import os\nimport sys\n"));
  });

  it("a .diff for two files offers one action per file, and each patches only its own file", async () => {
    const both =
      DIFF +
      [
        "--- a/src/utils.py",
        "+++ b/src/utils.py",
        "@@ -1,2 +1,3 @@",
        " import os",
        "+import sys",
        " import json",
        "",
      ].join("\n");
    const client = await launch({ ...FILES, "fix.patch": both }, { style: "helix" });
    await client.open("src/math.py");
    await client.open("src/utils.py");
    await client.open("fix.patch");
    const actions = await client.codeActions("fix.patch");
    expect(actions.map((a) => a.title).filter((t) => t.startsWith("Apply patch"))).toEqual([
      "Apply patch to src/math.py",
      "Apply patch to src/utils.py",
    ]);

    expect(await run(client, actions, "Apply patch to src/utils.py")).toMatchObject({ ok: true });
    expect(client.buffer("src/utils.py")!.text).toBe(UTILS.replace("import os\n", "import os\nimport sys\n"));
    expect(client.buffer("src/math.py")!.text).toBe(MATH);
    expect(await run(client, actions, "Apply patch to src/math.py")).toMatchObject({ ok: true });
    expect(client.buffer("src/math.py")!.text).toBe(MATH.replace("return a + b  # BUG", "return a * b"));
  });

  it("a patch offered before the target changed is refused when run after", async () => {
    const client = await launch({ ...FILES, "fix.diff": DIFF }, { style: "eglot" });
    await client.open("src/math.py");
    await client.open("fix.diff");
    const actions = await client.codeActions("fix.diff");
    await client.type("src/math.py", "def add(a, b):", "def add(a, b, c=0):");
    const result = await run(client, actions, "Apply patch to src/math.py");
    expect(result).toMatchObject({ ok: false, error: { code: "state_mismatch" } });
    expect(client.buffer("src/math.py")!.text).not.toContain("return a * b");
  });
});
