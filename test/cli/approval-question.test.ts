// The approval question on a terminal, as a person meets it (node-pty): the change's coloured
// diff before the question, paged when longer than the screen and shown again with d; a no
// with a reason reaches the model's next request; Ctrl-C (or s) stops the run with no
// further request and the file unchanged; outcomes in words, never an envelope.
import { promises as fs } from "node:fs";
import path from "node:path";
import { createPatch } from "diff";
import { afterEach, describe, expect, it } from "vitest";
import { requireBuild } from "../e2e/fixtures/harness.js";
import { startFakeOpenAi, type FakeAnswer, type FakeOpenAi } from "../support/fake-openai.js";
import { sha256Of, tempDir } from "../support/workspace-fixture.js";
import { onTerminal } from "./pty.js";

requireBuild();
const BIN = path.resolve(import.meta.dirname, "../../bin/lockstep.js");
const QUESTION = "[d]iff again: ";

const BEFORE =
  "export function median(values) {\n  const middle = Math.floor(values.length / 2);\n  return values[middle];\n}\n";
const AFTER = BEFORE.replace(
  "  return values[middle];",
  "  const sorted = [...values].sort((a, b) => a - b);\n  return sorted[middle];",
);

let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function freshEnv(): NodeJS.ProcessEnv {
  const home = tempDir("lockstep-question-home-");
  return {
    PATH: process.env["PATH"],
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    TERM: "xterm",
    LANG: "C.UTF-8",
  };
}

async function project(file: string, before: string): Promise<string> {
  const root = await fs.realpath(tempDir("lockstep-question-"));
  await fs.mkdir(path.join(root, "src"));
  await fs.writeFile(path.join(root, file), before);
  return root;
}

/** The fake endpoint as flags (a project file's provider and baseUrl apply only in a trusted folder). */
const endpoint = (): string[] => [
  "--provider",
  "openai",
  "--base-url",
  fake!.url,
  "--model",
  "qwen2.5-coder:7b",
];

const patch = (file: string, before: string, after: string): FakeAnswer => ({
  calls: [
    {
      name: "safe_patch",
      args: {
        file_path: file,
        unified_diff: createPatch(file, before, after),
        base_content_sha256: sha256Of(before),
      },
    },
  ],
});

/** What the model was told about its last call, in the request after it. */
function lastToolMessage(request: Record<string, unknown> | undefined): string {
  const messages = (request?.["messages"] ?? []) as { role: string; content?: string }[];
  return messages.filter((m) => m.role === "tool").at(-1)?.content ?? "";
}

describe("the approval question on a terminal", () => {
  it("shows the coloured diff before the question; n with a reason tells the model why", async () => {
    fake = await startFakeOpenAi([patch("src/stats.js", BEFORE, AFTER), { text: "Understood, leaving it." }]);
    const root = await project("src/stats.js", BEFORE);
    const run = onTerminal(process.execPath, [BIN, "ask", ...endpoint(), "fix median in @src/stats.js"], {
      cwd: root,
      env: freshEnv(),
    });
    await run.waitFor(QUESTION);
    const text = run.text();
    const question = text.indexOf("? lockstep wants to change src/stats.js");
    expect(text.indexOf("+  const sorted = [...values].sort((a, b) => a - b);")).toBeGreaterThan(-1);
    expect(text.indexOf("+  const sorted = [...values].sort((a, b) => a - b);")).toBeLessThan(question);
    expect(text.indexOf("-  return values[middle];")).toBeLessThan(question);
    // Coloured: the added line in green.
    expect(run.raw()).toContain("\x1b[32m+  const sorted");
    run.write("r");
    await run.waitFor("Why not?");
    run.write("keep it O(1): use a selection, not a sort\r");
    expect(await run.exited).toBe(1);
    expect(run.text()).toContain("Rejected: nothing was changed; the model is told why.");
    expect(fake.requests).toHaveLength(2);
    expect(lastToolMessage(fake.requests[1])).toContain("keep it O(1): use a selection, not a sort");
    expect(await fs.readFile(path.join(root, "src/stats.js"), "utf8")).toBe(BEFORE);
    expect(run.text()).not.toContain('{"ok"');
  }, 120_000);

  it("Ctrl-C at the question stops the run: no further model request, the file unchanged", async () => {
    fake = await startFakeOpenAi([patch("src/stats.js", BEFORE, AFTER), { text: "should never be asked" }]);
    const root = await project("src/stats.js", BEFORE);
    const run = onTerminal(process.execPath, [BIN, "ask", ...endpoint(), "fix median in @src/stats.js"], {
      cwd: root,
      env: freshEnv(),
    });
    await run.waitFor(QUESTION);
    run.write("\x03");
    await run.exited;
    expect(run.text()).toContain("Stopped: the run ends here");
    expect(fake.requests).toHaveLength(1);
    expect(await fs.readFile(path.join(root, "src/stats.js"), "utf8")).toBe(BEFORE);
    expect(run.text()).not.toContain('{"ok"');
  }, 120_000);

  it("a diff longer than the screen is paged; q goes to the question, d shows it again, y applies", async () => {
    const long = Array.from({ length: 120 }, (_, i) => `line ${i}\n`).join("");
    const changed = long.replace(/line (\d+)/g, "row $1");
    fake = await startFakeOpenAi([patch("src/long.txt", long, changed), { text: "Renamed." }]);
    const root = await project("src/long.txt", long);
    const env = freshEnv();
    const run = Object.assign(
      onTerminal(process.execPath, [BIN, "ask", ...endpoint(), "rename the lines"], { cwd: root, env }),
      { env },
    );
    await run.waitFor(/more lines: space for the next page/);
    expect(run.text()).not.toContain(QUESTION);
    run.write("q");
    await run.waitFor(QUESTION);
    const before = run.text().length;
    run.write("d");
    await run.waitFor(/more lines[^]*more lines/);
    expect(run.text().slice(before)).toContain("-line 0");
    run.write("q");
    await run.waitFor(/\[d\]iff again: [^]*\[d\]iff again: /);
    run.write("y");
    await run.waitFor("Keep the changes to src/long.txt?");
    run.write("y");
    expect(await run.exited).toBe(0);
    expect(run.text()).toContain("✎ src/long.txt written");
    expect(await fs.readFile(path.join(root, "src/long.txt"), "utf8")).toBe(changed);

    // lockstep revert's question takes one key too.
    const revert = onTerminal(process.execPath, [BIN, "revert"], { cwd: root, env: run.env });
    await revert.waitFor("Revert it? [y]es / [N]o: ");
    revert.write("y");
    expect(await revert.exited).toBe(0);
    expect(await fs.readFile(path.join(root, "src/long.txt"), "utf8")).toBe(long);
  }, 120_000);
});
