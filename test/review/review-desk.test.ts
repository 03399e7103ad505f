// The review desk on a real workspace (disk delivery): whatever the user types
// between staging and deciding, and whatever they decide per hunk, the file ends
// as the base with their typing and exactly the hunks that say "applied"; a hunk
// is a conflict exactly when the typing touched its own lines.
import { readFile, writeFile } from "node:fs/promises";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Journal } from "../../server/src/review/journal.js";
import { ReviewDesk } from "../../server/src/review/review-desk.js";
import type { ProposedChange } from "../../server/src/review/proposal.js";
import { makeWorkspace } from "../support/workspace-fixture.js";

type Edit = { at: number; kind: "replace" | "insert" | "delete" };

/** Applies edits given on the base's line numbers; at one place the user's lines come first. */
function merged(base: string[], edits: { edit: Edit; text: string; order: number }[]): string[] {
  const out: string[] = [];
  for (let i = 0; i <= base.length; i++) {
    const here = edits.filter((e) => e.edit.at === i).sort((a, b) => a.order - b.order);
    let keep = i < base.length;
    for (const e of here) {
      if (e.edit.kind === "insert") out.push(e.text);
      else if (e.edit.kind === "replace") {
        out.push(e.text);
        keep = false;
      } else keep = false;
    }
    if (keep) out.push(base[i]!);
  }
  return out;
}

describe("ReviewDesk", () => {
  it("property: the base, the user's typing and exactly the applied hunks; conflict exactly where the typing touched a hunk", async () => {
    const ws = await makeWorkspace({ "f.txt": "" });
    const path = await ws.ctx.workspace.resolve("f.txt", "write");
    if (!path.ok) throw new Error("no path");
    const scenario = fc.integer({ min: 10, max: 40 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        agent: fc
          .uniqueArray(fc.integer({ min: 0, max: Math.floor((n - 1) / 9) }), { minLength: 1, maxLength: 4 })
          .map((slots) => slots.map((s) => s * 9)),
        agentKinds: fc.array(fc.constantFrom<Edit["kind"]>("replace", "insert", "delete"), {
          minLength: 4,
          maxLength: 4,
        }),
        user: fc.option(
          fc.record({
            at: fc.integer({ min: 0, max: n - 1 }),
            kind: fc.constantFrom<Edit["kind"]>("replace", "insert", "delete"),
          }),
          { nil: undefined },
        ),
        decisions: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(scenario, async ({ n, agent, agentKinds, user, decisions }) => {
        const base = Array.from({ length: n }, (_, i) => `line ${i}\n`);
        const agentEdits = agent
          .sort((a, b) => a - b)
          .map((at, i) => ({ edit: { at, kind: agentKinds[i]! }, text: `agent ${at}\n`, order: 1 }));
        const proposal = merged(base, agentEdits).join("");
        await writeFile(ws.abs("f.txt"), base.join(""));
        const before = await ws.ctx.workspace.read(path.value);
        if (!before.ok) throw new Error("unreadable");
        const desk = new ReviewDesk({
          workspace: () => ws.ctx.workspace,
          journal: new Journal(),
          changed: () => undefined,
        });
        const change: ProposedChange = {
          tool: "write_file",
          file_path: "f.txt",
          uri: path.value.uri,
          before: before.value,
          after: proposal,
          diff: "",
          added: 0,
          removed: 0,
        };
        const outcome = desk.stage(change, new AbortController().signal);
        const [pending] = await desk.pending();
        expect(pending!.hunks).toHaveLength(agentEdits.length);

        const userEdit = user ? { edit: user, text: "typed\n", order: 0 } : undefined;
        if (userEdit) await writeFile(ws.abs("f.txt"), merged(base, [userEdit]).join(""));
        for (const [i, h] of pending!.hunks.entries())
          await desk.decide(h.hunk_id, decisions[i] ? "apply" : "reject", new AbortController().signal);
        const { reviewed } = await outcome;

        // The hunk's own lines, and for an insertion its anchor, per the rule the desk states.
        const touches = (a: Edit): boolean => {
          if (!user) return false;
          const hunkInsert = a.kind === "insert";
          const start = a.at;
          const end = hunkInsert ? a.at : a.at + 1;
          const uStart = user.at;
          const uEnd = user.kind === "insert" ? user.at : user.at + 1;
          if (hunkInsert) return uStart <= start && uEnd >= start;
          if (user.kind === "insert") return uStart > start && uStart < end;
          return uStart < end && uEnd > start;
        };
        const applied = agentEdits.filter((e, i) => decisions[i] && !touches(e.edit));
        expect(reviewed.hunks.map((h) => h.status)).toEqual(
          agentEdits.map((e, i) => (!decisions[i] ? "rejected" : touches(e.edit) ? "conflict" : "applied")),
        );
        expect(await readFile(ws.abs("f.txt"), "utf8")).toBe(
          merged(base, [...(userEdit ? [userEdit] : []), ...applied]).join(""),
        );
      }),
      { numRuns: 150 },
    );
  });
});
