import { promises as fs } from "node:fs";
import { describe, expect, it } from "vitest";
import { lines, makeWorkspace } from "../support/workspace-fixture.js";

/** One edit block as a model writes it. */
function block(path: string, edit: string[], repl: string[]): string {
  return lines(path, "««« EDIT", ...edit, "═══════ REPL", ...repl, "»»» EDIT END");
}

/** A model answer: prose around the blocks, as it arrives. */
function answer(...blocks: string[]): string {
  return ["Here are the changes.", "", ...blocks.flatMap((b) => [b, "That should do it."])].join("\n");
}

const UTILS = lines(
  "import os",
  "import deprecated_module",
  "import json",
  "",
  "def load(path):",
  "    with open(path) as f:",
  "        return json.load(f)",
);
const APP = lines("def process():", "    step_one()", "    step_two()", "", "def main():", "    process()");

type Report = { index: number; file_path: string; status: string; message: string; code?: string };
function reports(data: Record<string, unknown> | undefined): Report[] {
  return (data?.["blocks"] ?? []) as Report[];
}
const statuses = (data: Record<string, unknown> | undefined) =>
  reports(data).map((r) => `${r.file_path}: ${r.status}`);

describe("apply_edit_blocks applies each operation", () => {
  it.each<[name: string, text: string, file: string, after: string]>([
    [
      "an insertion after an anchor line",
      block("src/utils.py", ["import os"], ["import os", "import sys"]),
      "src/utils.py",
      UTILS.replace("import os\n", "import os\nimport sys\n"),
    ],
    [
      "a deletion (lines in EDIT left out of REPL)",
      block(
        "src/utils.py",
        ["import os", "import deprecated_module", "import json"],
        ["import os", "import json"],
      ),
      "src/utils.py",
      UTILS.replace("import deprecated_module\n", ""),
    ],
    [
      "a replacement",
      block(
        "src/utils.py",
        ["def load(path):", "    with open(path) as f:"],
        ["def load(path):", "    with open(path, encoding='utf-8') as f:"],
      ),
      "src/utils.py",
      UTILS.replace("open(path)", "open(path, encoding='utf-8')"),
    ],
    [
      "the creation of a file in new directories",
      block("pkg/sub/new_module.py", [], ["def hello():", '    print("Hello, world!")']),
      "pkg/sub/new_module.py",
      lines("def hello():", '    print("Hello, world!")'),
    ],
  ])("%s", async (_name, text, file, after) => {
    const ws = await makeWorkspace({ "src/utils.py": UTILS, "src/app.py": APP });
    const result = await ws.call("apply_edit_blocks", { text: answer(text) });

    expect(result).toMatchObject({ ok: true, data: { files_changed: [file], files_auto_added: [] } });
    expect(statuses(result.data)).toEqual([`${file}: applied`]);
    expect(await ws.text(file)).toBe(after);
  });

  it("applies several blocks for one file in order, each against the result of the one before", async () => {
    const ws = await makeWorkspace({ "src/app.py": APP });
    const text = answer(
      block("src/app.py", ["def process():", "    step_one()"], ["def process():", "    step_one_updated()"]),
      block(
        "src/app.py",
        ["    step_one_updated()", "    step_two()"],
        ["    step_one_updated()", "    step_two_updated()"],
      ),
    );
    const result = await ws.call("apply_edit_blocks", { text });

    expect(statuses(result.data)).toEqual(["src/app.py: applied", "src/app.py: applied"]);
    expect(await ws.text("src/app.py")).toBe(
      APP.replace("step_one()", "step_one_updated()").replace("step_two()", "step_two_updated()"),
    );
    expect(ws.approvals).toHaveLength(1);
  });

  it("keeps the blocks that fit when one block of the same file fails, and reports it failed", async () => {
    const ws = await makeWorkspace({ "src/app.py": APP });
    const text = answer(
      block("src/app.py", ["def process():", "    step_one()"], ["def process():", "    step_one_updated()"]),
      block("src/app.py", ["    step_one()", "    step_two()"], ["    step_one()", "    step_two_updated()"]), // anchor changed by the first block
      block(
        "src/app.py",
        ["def main():", "    process()"],
        ["def main():", "    process()", "    print('done')"],
      ),
    );
    const result = await ws.call("apply_edit_blocks", { text });

    expect(result).toMatchObject({
      ok: false,
      error: {
        message: expect.stringMatching(
          /^1 of 3 edit blocks did not apply\. First: block 2 \(src\/app\.py\)/,
        ) as string,
      },
    });
    expect(statuses(result.data)).toEqual([
      "src/app.py: applied",
      "src/app.py: failed",
      "src/app.py: applied",
    ]);
    expect(await ws.text("src/app.py")).toBe(
      APP.replace("step_one()", "step_one_updated()").replace(
        "    process()\n",
        "    process()\n    print('done')\n",
      ),
    );
    expect(result.data?.["files_changed"]).toEqual(["src/app.py"]);
  });

  it("validates without writing on a dry run", async () => {
    const ws = await makeWorkspace({ "src/utils.py": UTILS });
    const text = answer(
      block("src/utils.py", ["import os"], ["import os", "import sys"]),
      block("src/new.py", [], ["x = 1"]),
    );
    const result = await ws.call("apply_edit_blocks", { text, dry_run: true });

    expect(result).toMatchObject({ ok: true, data: { files_changed: [] } });
    expect(statuses(result.data)).toEqual(["src/utils.py: validated", "src/new.py: validated"]);
    expect(await ws.text("src/utils.py")).toBe(UTILS);
    expect(await ws.exists("src/new.py")).toBe(false);
  });

  it("refuses a text without a complete block", async () => {
    const ws = await makeWorkspace({ "src/utils.py": UTILS });
    const text = lines("src/utils.py", "««« EDIT", "import os", "═══════ REPL", "import os", "import sys");
    expect(await ws.call("apply_edit_blocks", { text })).toMatchObject({
      ok: false,
      error: { code: "invalid_argument" },
    });
    expect(await ws.text("src/utils.py")).toBe(UTILS);
  });
});

describe("apply_edit_blocks skips or fails what it cannot touch", () => {
  it.each<[name: string, path: string, status: string, code: string]>([
    ["a path escaping the root", "../x.py", "skipped", "permission_denied"],
    ["a deeper escape", "src/../../x.py", "skipped", "permission_denied"],
    ["a binary file", "data/blob.bin", "skipped", "binary_file"],
    ["a missing file", "src/missing.py", "failed", "not_found"],
  ])("%s: %s", async (_name, path, status, code) => {
    const ws = await makeWorkspace({
      "src/utils.py": UTILS,
      "data/blob.bin": Buffer.from([0x00, 0x01, 0x02, 0x0a]),
    });
    const outside = await ws.outside("x.py", "import os\n");
    const text = answer(
      block(path, ["import os"], ["import os", "import sys"]),
      block("src/utils.py", ["import json"], ["import json", "import re"]),
    );
    const result = await ws.call("apply_edit_blocks", { text });

    expect(reports(result.data)).toEqual([
      expect.objectContaining({ index: 0, file_path: path, status, code }),
      expect.objectContaining({ index: 1, file_path: "src/utils.py", status: "applied" }),
    ]);
    expect(result).toMatchObject({ ok: false, error: { code } });
    expect(await fs.readFile(outside, "utf8")).toBe("import os\n");
    expect((await ws.bytes("data/blob.bin")).equals(Buffer.from([0x00, 0x01, 0x02, 0x0a]))).toBe(true);
    expect(await ws.text("src/utils.py")).toContain("import json\nimport re\n");
  });

  it("fails a create block for a file that already exists, and leaves the file", async () => {
    const ws = await makeWorkspace({ "src/utils.py": UTILS });
    const result = await ws.call("apply_edit_blocks", {
      text: answer(block("src/utils.py", [], ["print('hi')"])),
    });
    expect(statuses(result.data)).toEqual(["src/utils.py: failed"]);
    expect(await ws.text("src/utils.py")).toBe(UTILS);
  });
});

describe("apply_edit_blocks and the session context", () => {
  it("defers blocks for a file the model never saw, adds that file to the session, and applies the rest", async () => {
    const ws = await makeWorkspace(
      { "src/utils.py": UTILS, "src/app.py": APP },
      { conversation: ["src/app.py"] },
    );
    const text = answer(
      block("src/app.py", ["def main():"], ["def main():", "    print('start')"]),
      block("src/utils.py", ["import os"], ["import os", "import sys"]),
      block("src/fresh.py", [], ["VALUE = 1"]),
      block("src/utils.py", ["import json"], ["import json", "import re"]),
    );
    const result = await ws.call("apply_edit_blocks", { text });

    expect(result).toMatchObject({ ok: true, data: { files_auto_added: ["src/utils.py"] } });
    expect(statuses(result.data)).toEqual([
      "src/app.py: applied",
      "src/utils.py: not_in_context",
      "src/fresh.py: applied",
      "src/utils.py: not_in_context",
    ]);
    expect([...(result.data?.["files_changed"] as string[])].sort()).toEqual(["src/app.py", "src/fresh.py"]);
    expect(await ws.text("src/utils.py")).toBe(UTILS);
    expect(await ws.text("src/app.py")).toContain("def main():\n    print('start')\n");
    expect(await ws.text("src/fresh.py")).toBe("VALUE = 1\n");
    expect(ws.ctx.conversation?.filesInContext.has("src/utils.py")).toBe(true);
  });

  it("applies the same blocks once the file is in context (the retry after auto-adding)", async () => {
    const ws = await makeWorkspace({ "src/utils.py": UTILS }, { conversation: [] });
    const text = answer(block("src/utils.py", ["import os"], ["import os", "import sys"]));

    const first = await ws.call("apply_edit_blocks", { text });
    expect(statuses(first.data)).toEqual(["src/utils.py: not_in_context"]);
    const second = await ws.call("apply_edit_blocks", { text });
    expect(statuses(second.data)).toEqual(["src/utils.py: applied"]);
    expect(second.data?.["files_auto_added"]).toEqual([]);
  });

  it("counts a file as seen once read_file returned it", async () => {
    const ws = await makeWorkspace({ "src/utils.py": UTILS }, { conversation: [] });
    await ws.call("read_file", { file_path: "src/utils.py" });
    const result = await ws.call("apply_edit_blocks", {
      text: answer(block("src/utils.py", ["import os"], ["import os", "import sys"])),
    });
    expect(statuses(result.data)).toEqual(["src/utils.py: applied"]);
  });

  it.each<[written: string, inContext: string[], status: string, autoAdded: string[]]>([
    ["./src/utils.py", ["src/utils.py"], "applied", []],
    ["./src/utils.py", [], "not_in_context", ["src/utils.py"]],
    ["src\\utils.py", [], "not_in_context", ["src/utils.py"]],
    ["src\\utils.py", ["src/utils.py"], "applied", []],
  ])(
    "knows %s as the workspace path src/utils.py (in context: %j)",
    async (written, inContext, status, autoAdded) => {
      const ws = await makeWorkspace({ "src/utils.py": UTILS }, { conversation: inContext });
      const result = await ws.call("apply_edit_blocks", {
        text: answer(block(written, ["import os"], ["import os", "import sys"])),
      });

      expect(reports(result.data).map((r) => r.status)).toEqual([status]);
      expect(result.data?.["files_auto_added"]).toEqual(autoAdded);
      expect(result.data?.["files_changed"]).toEqual(status === "applied" ? ["src/utils.py"] : []);
      expect([...(ws.ctx.conversation?.filesInContext ?? [])]).toEqual(["src/utils.py"]);
    },
  );

  it("attempts every block when there is no session (a pasted answer, the CLI)", async () => {
    const ws = await makeWorkspace({ "src/utils.py": UTILS });
    const result = await ws.call("apply_edit_blocks", {
      text: answer(block("src/utils.py", ["import os"], ["import os", "import sys"])),
    });
    expect(statuses(result.data)).toEqual(["src/utils.py: applied"]);
    expect(result.data?.["files_auto_added"]).toEqual([]);
  });
});
