// Review and revert in a real Neovim 0.7.2 (headless) with the plugin in clients/neovim:
// fixtures/nvim/review-driver.lua runs the agent under approval "review" against the fake
// Gemini endpoint, takes one of the two hunks it proposes and rejects the other (with the
// plugin's commands, or a code action and :LockstepAccept!), then undoes the job with
// :LockstepRevert; or, once the user typed over one hunk's lines, accepts both (one is a
// conflict) and reverts a job whose lines the user edited since (a conflict) and one whose lines
// are untouched. The tests check the buffer, the quickfix list, the diagnostics, the replies,
// the notifications, and what the model heard.
import { describe, expect, it } from "vitest";
import { sha256Hex, writeCall } from "../support/agent-scripts.js";
import { TEST_TIMEOUT_MS } from "./fixtures/scenario-checks.js";
import {
  BEFORE,
  CHECKED,
  CONFLICT,
  decisions,
  DIAGONAL,
  ELSEWHERE,
  expectReverted,
  JOB2,
  LANDED,
  ONLY_FIRST,
  ONLY_SECOND,
  OVER_APPLIED,
  OVER_HUNK,
  playReview,
  PROPOSED_LINES,
  replies,
  SECOND,
  STAGED,
  TYPED,
} from "./fixtures/neovim-review.js";

describe("Neovim 0.7.2 + clients/neovim: review and revert", { timeout: TEST_TIMEOUT_MS }, () => {
  it("two hunks: :LockstepAccept takes one, :LockstepReject in the quickfix window drops the other, :LockstepRevert undoes the job", async () => {
    const {
      r,
      heard: [heard],
    } = await playReview("hunks", { expected: { first: ONLY_FIRST } });

    // Staged, not applied: one information diagnostic per hunk, listed in the quickfix list.
    expect(r.diagnostics).toEqual(STAGED);
    // Each hunk's proposal under it, as virtual lines; gone with the hunk once it is decided.
    expect(r.proposed).toEqual(PROPOSED_LINES);
    expect(r.review).toEqual({
      title: "lockstep review",
      items: [
        { file: "calc.py", lnum: 2, end_lnum: 2, text: "[c1.1] write_file +1 −1: return h * w" },
        { file: "calc.py", lnum: 14, end_lnum: 14, text: "[c1.2] write_file +1 −1: return k * w, k * h" },
      ],
    });
    expect(r.quickfix_open).toBe(true);

    // :LockstepSession meanwhile: the job waiting, the two hunks; q closes it.
    expect(r.session).toContain(`last job     ${r.job_id} running`);
    expect(r.session).toContain("review       2 hunks in 1 file wait: calc.py (:LockstepReview)");
    expect(r.session).toContain("approval     review");
    expect(r.session_closed).toBe(true);

    // :cfirst lands on the first hunk; accepting it changes those lines of the buffer only.
    expect(r.accept_at).toEqual({ file: "calc.py", line: 2 });
    expect(r.after_first.text).toBe(ONLY_FIRST);
    expect(r.after_first.review?.items.map((i) => i.lnum)).toEqual([14]);
    expect(r.after_first.proposed).toEqual([PROPOSED_LINES[1]]);
    expect(decisions(r)).toEqual([
      { id: "c1.1", decision: "apply" },
      { id: "c1.2", decision: "reject" },
    ]);
    expect(replies(r, "lockstep.decide")).toEqual([
      { ok: true, data: { decision: "apply", hunks: [{ hunk_id: "c1.1", status: "applied" }] } },
      { ok: true, data: { decision: "reject", hunks: [{ hunk_id: "c1.2", status: "rejected" }] } },
    ]);

    // Rejected from the quickfix window: nothing more changes, nothing stays pending.
    expect(r.second_from).toBe("quickfix");
    expect(r.after_second.text).toBe(ONLY_FIRST);
    expect(r.after_second.review?.items).toEqual([]);
    expect(r.after_second.proposed).toEqual([]);
    expect(r.after_second.diagnostics).toEqual([]);
    expect(r.messages.map((m) => m.message)).toEqual(
      expect.arrayContaining(["lockstep: c1.1 applied", "lockstep: c1.2 rejected"]),
    );

    // The model heard exactly that.
    expect(heard).toEqual([
      {
        name: "write_file",
        ok: true,
        hunks: [
          { hunk_id: "c1.1", status: "applied" },
          { hunk_id: "c1.2", status: "rejected" },
        ],
      },
    ]);
    expectReverted(r);
  });

  it("the code action rejects one hunk, :LockstepAccept! takes the rest of the file, :LockstepRevert undoes the job", async () => {
    const {
      r,
      heard: [heard],
    } = await playReview("file", { code_action: "lockstep: Reject this change", reopen: true });

    expect(r.diagnostics).toEqual(STAGED);
    // The file wiped and opened again while the hunks wait: their proposed lines are drawn again.
    expect(r.reopened).toEqual(PROPOSED_LINES);
    expect(r.messages.find((m) => m.message.startsWith("lockstep: no proposed change"))).toEqual({
      message: "lockstep: no proposed change at line 1 of calc.py (:LockstepReview lists them)",
      level: 3,
    });
    expect(r.code_action_menu).toEqual(
      expect.arrayContaining([
        "lockstep: Accept this change",
        "lockstep: Reject this change",
        "lockstep: Accept all proposed changes in calc.py",
        "lockstep: Show proposed diff",
      ]),
    );
    expect(r.after_first.text).toBe(BEFORE);
    expect(r.after_first.diagnostics).toEqual([STAGED[1]]);
    // The cursor was on no hunk: ! decides the whole file; the review list is then empty.
    expect(r.second_from).toBe("");
    expect(decisions(r)).toEqual([
      { id: "c1.1", decision: "reject" },
      { file_path: expect.stringMatching(/\/calc\.py$/) as string, decision: "apply" },
    ]);
    expect(r.after_second.text).toBe(ONLY_SECOND);
    expect(r.after_second.diagnostics).toEqual([]);
    expect(r.messages.map((m) => m.message)).toEqual(
      expect.arrayContaining([
        "lockstep: c1.1 rejected",
        "lockstep: c1.2 applied",
        "lockstep: nothing waits for review",
      ]),
    );

    expect(heard).toEqual([
      {
        name: "write_file",
        ok: true,
        hunks: [
          { hunk_id: "c1.1", status: "rejected" },
          { hunk_id: "c1.2", status: "applied" },
        ],
      },
    ]);
    expectReverted(r);
  });

  it("typing over a hunk makes :LockstepAccept a conflict and keeps the typing, the other hunk lands; :LockstepRevert is a conflict over edited lines, a clean job is undone", async () => {
    const {
      r,
      heard: [heard, heardLater],
    } = await playReview(
      "conflict",
      {
        typing: { hunk: OVER_HUNK, elsewhere: ELSEWHERE, applied: OVER_APPLIED },
        second_prompt: "use products in diagonal",
      },
      writeCall("calc.py", JOB2, sha256Hex(LANDED)),
    );
    expect(r.diagnostics).toEqual(STAGED);

    // The user typed over the first hunk's lines: its diagnostic says so before any decision.
    expect(r.typed).toEqual({
      text: TYPED,
      diagnostics: [{ ...STAGED[0], message: `${STAGED[0]!.message}: conflict, ${CONFLICT}` }, STAGED[1]],
    });

    // :LockstepAccept on it: a conflict, reported as a warning; the typing stays.
    expect(decisions(r)).toEqual([
      { id: "c1.1", decision: "apply" },
      { id: "c1.2", decision: "apply" },
      { file_path: expect.stringMatching(/\/calc\.py$/) as string, decision: "apply" },
    ]);
    const [onTyped, onOther, job2] = replies(r, "lockstep.decide");
    expect(onTyped).toEqual({
      ok: true,
      data: { decision: "apply", hunks: [{ hunk_id: "c1.1", status: "conflict", message: CONFLICT }] },
    });
    expect(r.messages).toContainEqual({ message: `lockstep: c1.1 conflict: ${CONFLICT}`, level: 3 });
    expect(r.after_first).toEqual({ text: TYPED, diagnostics: [STAGED[1]] });

    // :LockstepAccept on the other: it lands beside the typing elsewhere.
    expect(onOther).toEqual({
      ok: true,
      data: { decision: "apply", hunks: [{ hunk_id: "c1.2", status: "applied" }] },
    });
    expect(r.after_second).toEqual({ text: LANDED, diagnostics: [] });
    expect(heard).toEqual([
      {
        name: "write_file",
        ok: true,
        hunks: [
          { hunk_id: "c1.1", status: "conflict", message: CONFLICT },
          { hunk_id: "c1.2", status: "applied" },
        ],
      },
    ]);

    // A second job, accepted whole.
    expect(job2).toEqual({
      ok: true,
      data: { decision: "apply", hunks: [{ hunk_id: "c2.1", status: "applied" }] },
    });
    expect(heardLater).toEqual([
      { name: "write_file", ok: true, hunks: [{ hunk_id: "c2.1", status: "applied" }] },
    ]);
    expect(r.after_job2).toBe(JOB2);
    expect(r.second_job).not.toBe(r.first_job);

    // The user typed over the first job's applied line: reverting that job changes nothing and
    // says why; reverting the second (the last) undoes its line and keeps all the typing.
    expect(replies(r, "lockstep.revert")).toHaveLength(2);
    const [overEdited, clean] = replies(r, "lockstep.revert");
    expect(overEdited).toMatchObject({
      ok: true,
      data: { job_id: r.first_job, files: [{ file_path: "calc.py", status: "conflict" }] },
    });
    expect(r.after_conflict).toBe(CHECKED);
    const warning = r.messages.find((m) => m.message.startsWith(`lockstep: revert of ${r.first_job!}\n`));
    expect(warning?.level).toBe(3);
    expect(warning?.message).toMatch(
      /^lockstep: revert of \S+\nconflict +calc\.py {2}calc\.py was left as it is: .* The part that would be undone:\n@@ /,
    );
    expect(warning?.message).toContain(`-${SECOND[1]}\n+${SECOND[0]}`);
    expect(clean).toMatchObject({
      ok: true,
      data: { job_id: r.second_job, files: [{ file_path: "calc.py", status: "reverted" }] },
    });
    expect(r.after_revert).toEqual({
      text: CHECKED.replace(DIAGONAL[1], DIAGONAL[0]),
      disk: BEFORE,
      modified: true,
    });
    expect(r.chat.filter((line) => line.startsWith("[done]"))).toEqual([
      "[done] done · files changed: calc.py",
      "[done] done · files changed: calc.py",
    ]);
    expect(r.messages.filter((m) => m.message.startsWith("unexpected prompt"))).toEqual([]);
  });
});
