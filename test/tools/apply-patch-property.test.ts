// Property: for any change across files (edits, creates, deletes; some files
// changed behind the diff's back), after apply_patch either every file holds its
// intended text or every file is exactly as it was. Run through the tool on a
// real directory, as the CLI runs it.
import { promises as fs } from "node:fs";
import path from "node:path";
import { createTwoFilesPatch } from "diff";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { invokeTool } from "../../server/src/tools/registry.js";
import type { ToolContext } from "../../server/src/tools/tool.js";
import { Sandbox } from "../../server/src/workspace/sandbox.js";
import { Workspace } from "../../server/src/workspace/workspace.js";
import { tempDir } from "../support/workspace-fixture.js";

const WORDS = ["alpha", "beta", "gamma", "delta", "return x;", "}", "{", "", "if (a) {", "  b();"];

const fileText = fc
  .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 30 })
  .map((ls) => ls.map((l, i) => `${l} ${i}`).join("\n") + "\n");

/** One file's fate: kept, edited (lines replaced, inserted, removed), created or deleted; `tamper`: changed on disk after the diff was made. */
const fileCase = fc.record({
  before: fc.option(fileText, { nil: undefined }),
  after: fc.option(fileText, { nil: undefined }),
  tamper: fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
});

async function snapshot(root: string, names: string[]): Promise<Record<string, string | undefined>> {
  const out: Record<string, string | undefined> = {};
  for (const n of names) out[n] = await fs.readFile(path.join(root, n), "utf8").catch(() => undefined);
  return out;
}

function gitSection(name: string, before: string | undefined, after: string | undefined): string {
  const patch = createTwoFilesPatch(
    before === undefined ? "/dev/null" : `a/${name}`,
    after === undefined ? "/dev/null" : `b/${name}`,
    before ?? "",
    after ?? "",
    "",
    "",
    { context: 3 },
  );
  const body = patch.split("\n").slice(1).join("\n").replace(/\t\n/g, "\n");
  const mode =
    before === undefined ? "new file mode 100644\n" : after === undefined ? "deleted file mode 100644\n" : "";
  return `diff --git a/${name} b/${name}\n${mode}${body}`;
}

describe("apply_patch across files: all or none", () => {
  it("leaves every file intended or every file as it was", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fileCase, { minLength: 2, maxLength: 5 }), async (cases) => {
        const root = await fs.realpath(tempDir("lockstep-prop-"));
        const names = cases.map((_, i) => `dir${i % 2}/f${i}.txt`);
        const changed = cases.map((c, i) => ({ ...c, name: names[i]! })).filter((c) => c.before !== c.after);
        for (const c of cases.map((c, i) => ({ ...c, name: names[i]! }))) {
          if (c.before === undefined) continue;
          await fs.mkdir(path.dirname(path.join(root, c.name)), { recursive: true });
          await fs.writeFile(path.join(root, c.name), c.before);
        }
        if (changed.length === 0) return;
        const diff = changed.map((c) => gitSection(c.name, c.before, c.after)).join("");
        for (const c of changed) {
          if (!c.tamper) continue;
          await fs.mkdir(path.dirname(path.join(root, c.name)), { recursive: true });
          await fs.writeFile(path.join(root, c.name), "someone else's text\n");
        }
        const start = await snapshot(root, names);
        const ctx: ToolContext = {
          workspace: new Workspace(await Sandbox.create([root])),
          signal: new AbortController().signal,
          approve: async () => "apply",
          reader: "shell",
        };
        const result = await invokeTool("apply_patch", { input: diff }, ctx);
        const end = await snapshot(root, names);
        const intended = { ...start };
        for (const c of changed) intended[c.name] = c.after;
        if (result.ok) expect(end).toEqual(intended);
        else expect(end).toEqual(start);
        // A change nobody tampered with always lands.
        if (!changed.some((c) => c.tamper)) expect(result.ok, JSON.stringify(result)).toBe(true);
        await fs.rm(root, { recursive: true, force: true });
      }),
      { numRuns: 80 },
    );
  }, 120_000);
});
