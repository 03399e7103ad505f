// The policy's view of a change across files (pure, no server): the prompt's
// words name every file with what happens to it, the session asks once, and
// staged, every file is its own change under one group label.
import { describe, expect, it } from "vitest";
import { groupChange } from "../../server/src/review/group.js";
import {
  approvalMessage,
  sessionApprover,
  type ApprovalChannels,
  type StagedOutcome,
} from "../../server/src/review/policy.js";
import type { ProposedChange } from "../../server/src/review/proposal.js";

const state = (file_path: string, content: string) => ({
  file_path,
  uri: `file:///w/${file_path}`,
  version: null,
  sha256: "x",
  content,
  open: false,
});

function file(
  file_path: string,
  before: string | null,
  after: string,
  added: number,
  removed: number,
  extra: Partial<ProposedChange> = {},
): ProposedChange {
  return {
    tool: "apply_patch",
    file_path,
    uri: `file:///w/${file_path}`,
    before: before === null ? null : state(file_path, before),
    after,
    diff: `--- ${file_path}\n`,
    added,
    removed,
    ...extra,
  };
}

const FILES = [
  file("a.py", "a\n", "a\nb\n", 1, 0, { op: "update" }),
  file("gone.py", "x\ny\n", "", 0, 2, { op: "delete" }),
  file("new.py", null, "n\n", 1, 0, { op: "add" }),
  file("to.py", null, "m\n", 1, 1, { op: "move", moved_from: "from.py" }),
];

describe("a change across files as the user is asked about it", () => {
  it("names every file and what happens to it, in one sentence", () => {
    expect(approvalMessage(groupChange(FILES))).toBe(
      "lockstep wants to change 4 files with apply_patch: a.py (+1 −0), deleted gone.py (−2), new new.py (+1), from.py moved to to.py (+1 −1).",
    );
  });

  it("sums the files up for a reader that knows one file only", () => {
    const group = groupChange(FILES);
    expect([group.file_path, group.added, group.removed, group.diff]).toEqual([
      "a.py",
      3,
      3,
      "--- a.py\n--- gone.py\n--- new.py\n--- to.py\n",
    ]);
  });

  it("counts the files past the twentieth instead of naming them", () => {
    const many = Array.from({ length: 23 }, (_, i) => file(`f${i + 1}.py`, "a\n", "b\n", 1, 1));
    const message = approvalMessage(groupChange(many));
    expect(message).toContain("lockstep wants to change 23 files with apply_patch: f1.py (+1 −1),");
    expect(message).toContain("f20.py (+1 −1), and 3 more (+3 −3).");
    expect(message).not.toContain("f21.py");
  });

  it("refuses an empty group (a bug in the caller, not a change)", () => {
    expect(() => groupChange([])).toThrow(/at least one file/);
  });
});

function channels(answer: "apply" | "reject" | "always" | "dismissed") {
  const prompts: ProposedChange[] = [];
  const staged: ProposedChange[] = [];
  const c: ApprovalChannels = {
    prompt: () => (change) => {
      prompts.push(change);
      return Promise.resolve(answer);
    },
    review: (change): Promise<StagedOutcome> => {
      staged.push(change);
      return Promise.resolve({
        reviewed: { hunks: [{ hunk_id: `${change.file_path}.1`, status: "applied" }] },
        always: false,
      });
    },
  };
  return { c, prompts, staged };
}

describe("sessionApprover and a change across files", () => {
  const signal = new AbortController().signal;

  it("asks once; Always allow stops the next prompt for the tool", async () => {
    const session = { alwaysAllowed: new Set<string>() };
    const ch = channels("always");
    const approve = sessionApprover(session, () => "ask", ch.c);
    expect(await approve(groupChange(FILES), signal)).toBe("apply");
    expect(await approve(groupChange(FILES), signal)).toBe("apply");
    expect(ch.prompts).toHaveLength(1);
    expect(ch.staged).toHaveLength(0);
  });

  it("a closed prompt stages every file on its own, under the change's tool and one group", async () => {
    const session = { alwaysAllowed: new Set<string>() };
    const ch = channels("dismissed");
    const labelled = Object.create(groupChange(FILES), {
      tool: { value: "apply_patch from agent", enumerable: true },
    }) as ProposedChange;
    const decision = await sessionApprover(session, () => "ask", ch.c)(labelled, signal);
    expect(ch.staged.map((s) => [s.file_path, s.tool])).toEqual(
      FILES.map((f) => [f.file_path, "apply_patch from agent"]),
    );
    expect(new Set(ch.staged.map((s) => s.group)).size).toBe(1);
    expect(ch.staged[0]!.group).toEqual(expect.any(String));
    expect(decision).toMatchObject({
      reviewed: { hunks: FILES.map((f) => ({ hunk_id: `${f.file_path}.1` })) },
      files: FILES.map((f) => ({ reviewed: { hunks: [{ hunk_id: `${f.file_path}.1` }] } })),
    });
  });

  it("a cancelled call is rejected before anything is asked or staged", async () => {
    const ch = channels("apply");
    const cancelled = new AbortController();
    cancelled.abort();
    expect(
      await sessionApprover(
        { alwaysAllowed: new Set() },
        () => "review",
        ch.c,
      )(groupChange(FILES), cancelled.signal),
    ).toBe("reject");
    expect([ch.prompts.length, ch.staged.length]).toEqual([0, 0]);
  });
});
