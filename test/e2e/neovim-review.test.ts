// Review and revert in a real Neovim 0.7.2 (headless) with the plugin in clients/neovim:
// fixtures/nvim/review-driver.lua runs the agent under approval "review" against the fake
// Gemini endpoint, takes one of the two hunks it proposes and rejects the other (with the
// plugin's commands, or a code action and :LockstepAccept!), then undoes the job with
// :LockstepRevert; or, once the user typed over one hunk's lines, accepts both (one is a
// conflict) and reverts a job whose lines the user edited since (a conflict) and one whose lines
// are untouched. The tests check the buffer, the quickfix list, the diagnostics, the replies,
// the notifications, and what the model heard.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lastResponses, sha256Hex, turn, writeCall, type Call } from "../support/agent-scripts.js";
import { startFakeGemini, type FakeScript, type RecordedRequest } from "../support/fake-gemini.js";
import {
  FIXTURES,
  REPO,
  makeWorkspace,
  once,
  requireBuild,
  requireEditor,
  resultOf,
  runEditor,
} from "./fixtures/harness.js";
import { TEST_TIMEOUT_MS, type Envelope } from "./fixtures/scenario-checks.js";
import { FAKE_KEY } from "./fixtures/scenarios.js";

/** Long enough that a change near the top and one near the bottom are two hunks. */
const BEFORE = [
  "def area(w, h):",
  "    return w * h",
  "",
  "",
  "def perimeter(w, h):",
  "    return 2 * (w + h)",
  "",
  "",
  "def diagonal(w, h):",
  "    return (w ** 2 + h ** 2) ** 0.5",
  "",
  "",
  "def scale(w, h, k):",
  "    return w * k, h * k",
  "",
].join("\n");
const FIRST = ["    return w * h", "    return h * w"] as const;
const SECOND = ["    return w * k, h * k", "    return k * w, k * h"] as const;
const PROPOSED = BEFORE.replace(FIRST[0], FIRST[1]).replace(SECOND[0], SECOND[1]);
const ONLY_FIRST = BEFORE.replace(FIRST[0], FIRST[1]);
const ONLY_SECOND = BEFORE.replace(SECOND[0], SECOND[1]);
const PROMPT = "swap the factors of area and scale";

// Flow `conflict`: what the user types (at the end of the line that reads the first), and the
// second job's change.
const OVER_HUNK = [FIRST[0], "  # mine"] as const;
const ELSEWHERE = ["    return 2 * (w + h)", "  # typed"] as const;
const OVER_APPLIED = [SECOND[1], "  # checked"] as const;
const DIAGONAL = ["    return (w ** 2 + h ** 2) ** 0.5", "    return (w * w + h * h) ** 0.5"] as const;
const typed = (text: string, [line, suffix]: readonly [string, string]): string =>
  text.replace(line, line + suffix);
const TYPED = typed(typed(BEFORE, OVER_HUNK), ELSEWHERE);
const LANDED = TYPED.replace(SECOND[0], SECOND[1]);
const JOB2 = LANDED.replace(DIAGONAL[0], DIAGONAL[1]);
const CHECKED = typed(JOB2, OVER_APPLIED);
const CONFLICT = "Conflict: the lines it changes (lines 2–2) were edited since the change was proposed.";

interface Quickfix {
  title: string;
  items: { file: string; lnum: number; end_lnum: number; text: string }[];
}

interface Proposed {
  row: number;
  above: boolean;
  lines: [string, string][];
}

interface ReviewResult {
  error?: string;
  steps: string[];
  messages: { message: string; level: number | null }[];
  commands: { command: string; argument: Record<string, unknown>; reply?: Envelope }[];
  diagnostics: { lnum: number; severity: number; message: string }[];
  review?: Quickfix;
  quickfix_open?: boolean;
  accept_at?: { file: string; line: number };
  code_action_menu?: string[];
  /** :LockstepSession's lines while the hunks wait (flow `hunks`), and whether q went back to the file. */
  session?: string[];
  session_closed?: boolean;
  /** The proposed lines under each pending hunk (extmarks with virt_lines): 0-based row, lines [text, highlight]. */
  proposed: Proposed[];
  /** With input `reopen`: the proposed lines once the file was wiped and opened again. */
  reopened?: Proposed[];
  after_first: { text: string; review?: Quickfix; diagnostics?: unknown[]; proposed?: Proposed[] };
  second_from: string;
  after_second: { text: string; review?: Quickfix; diagnostics: unknown[]; proposed?: Proposed[] };
  chat: string[];
  job_id: string;
  after_revert: { text: string; disk: string; modified: boolean };
  // Flow `conflict` only.
  typed?: { text: string; diagnostics: unknown[] };
  first_job?: string;
  second_job?: string;
  after_job2?: string;
  after_conflict?: string;
}

const ready = once(() => {
  requireEditor("nvim", ["--version"], "Install Neovim 0.7.2 or newer (Debian: apt-get install neovim)");
  requireBuild();
});

type Heard = { name: string; ok: boolean; hunks: unknown }[];
const heardIn = (request: RecordedRequest | undefined): Heard =>
  lastResponses(request).map((answer) => ({
    name: answer.name,
    ok: answer.response.ok,
    hunks: answer.response.data?.["hunks"],
  }));

/** The model: PROPOSED for the first prompt, `second` (if any) for the second, "Done." after each. */
function modelTurns(second?: Call): FakeScript {
  return (_request, index) =>
    index === 0
      ? turn({ calls: [writeCall("calc.py", PROPOSED, sha256Hex(BEFORE))] })
      : index === 2 && second
        ? turn({ calls: [second] })
        : turn({ text: ["Done."] });
}

/**
 * Plays `flow` of the driver (`hunks`, `file` or `conflict`, with its input); `heard`: what the
 * model heard back from its write_file, for each prompt.
 */
async function playReview(
  flow: string,
  extra: Record<string, unknown> = {},
  second?: Call,
): Promise<{ r: ReviewResult; heard: Heard[] }> {
  ready();
  const fake = await startFakeGemini(modelTurns(second));
  try {
    const workspace = await makeWorkspace({ "calc.py": BEFORE });
    const run = await runEditor<ReviewResult>({
      command: "nvim",
      args: [
        "--headless",
        "-u",
        "NONE",
        "-i",
        "NONE",
        "-n",
        "--cmd",
        `set rtp+=${path.join(REPO, "clients", "neovim")}`,
        "-c",
        `luafile ${path.join(FIXTURES, "nvim", "review-driver.lua")}`,
      ],
      logs: (home) => [path.join(home, "cache", "nvim", "lsp.log")],
      input: {
        workspace,
        repo: REPO,
        node: process.execPath,
        file: "calc.py",
        prompt: PROMPT,
        flow,
        ...extra,
      },
      cwd: workspace,
      env: { GEMINI_API_KEY: FAKE_KEY, GOOGLE_GEMINI_BASE_URL: fake.baseUrl },
      timeoutMs: 50_000, // under TEST_TIMEOUT_MS; room for a loaded machine
    });
    const r = resultOf(run);
    expect(r.error, "the driver failed").toBeUndefined();
    expect(run.timedOut).toBe(false);
    return { r, heard: fake.requests.filter((_request, index) => index % 2 === 1).map(heardIn) };
  } finally {
    await fake.close();
  }
}

const replies = (r: ReviewResult, command: string): (Envelope | undefined)[] =>
  r.commands.filter((c) => c.command === command).map((c) => c.reply);
const decisions = (r: ReviewResult): unknown[] =>
  r.commands.filter((c) => c.command === "lockstep.decide").map((c) => c.argument);

/** Under each hunk: a header, the line it replaces and the line it proposes, in the diff colours. */
const PROPOSED_LINES: Proposed[] = [
  {
    row: 1,
    above: false,
    lines: [
      ["  c1.1 write_file +1 −1: return h * w", "LockstepProposedHeader"],
      [`- ${FIRST[0]}`, "LockstepProposedDelete"],
      [`+ ${FIRST[1]}`, "LockstepProposedAdd"],
    ],
  },
  {
    row: 13,
    above: false,
    lines: [
      ["  c1.2 write_file +1 −1: return k * w, k * h", "LockstepProposedHeader"],
      [`- ${SECOND[0]}`, "LockstepProposedDelete"],
      [`+ ${SECOND[1]}`, "LockstepProposedAdd"],
    ],
  },
];

const STAGED = [
  { lnum: 1, severity: 3, message: "proposed change +1 −1: return h * w" },
  { lnum: 13, severity: 3, message: "proposed change +1 −1: return k * w, k * h" },
];

/** :LockstepRevert put the buffer back (the disk never changed); a second one finds nothing to undo. */
function expectReverted(r: ReviewResult): void {
  expect(r.chat.at(-1)).toBe("[done] done · files changed: calc.py");
  const [revert, again] = replies(r, "lockstep.revert");
  expect(revert).toMatchObject({
    ok: true,
    data: { job_id: r.job_id, files: [{ file_path: "calc.py", status: "reverted" }] },
  });
  expect(r.after_revert).toEqual({ text: BEFORE, disk: BEFORE, modified: true });
  expect(r.messages.map((m) => m.message)).toContainEqual(
    expect.stringMatching(
      new RegExp(
        `^lockstep: revert of ${r.job_id}\\nreverted +calc\\.py  calc\\.py: this job's changes are undone`,
      ),
    ),
  );
  expect(again).toMatchObject({ ok: false, error: { code: "not_found" } });
  expect(r.messages.filter((m) => m.message.startsWith("unexpected prompt"))).toEqual([]);
}

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
