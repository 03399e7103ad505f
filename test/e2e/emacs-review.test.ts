// Review and revert in a real Emacs 28 + Eglot 1.9 (batch mode) with
// clients/emacs/lockstep.el: the fake model proposes a change of two hunks,
// and the driver fixtures/emacs/review-driver.el does what a user would with
// M-x lockstep-review, next-error, lockstep-accept, lockstep-reject and
// lockstep-revert. What the model heard is read from the fake endpoint. A
// second case types keys as a user would: n / p / RET / a / r / g in the
// *lockstep review* list, a hunk accepted over the user's typing (conflict),
// and C-u M-x lockstep-revert RET <job> RET. A third answers no to Eglot's
// own "Proceed?" prompt.
import { describe, expect, it } from "vitest";
import {
  lastResponses,
  sha256Hex,
  turn,
  writeCall,
  type WireFunctionResponse,
} from "../support/agent-scripts.js";
import { startFakeGemini, type FakeScript, type RecordedRequest } from "../support/fake-gemini.js";
import { emacsCommand, requireEmacs } from "./fixtures/emacs.js";
import { REPO, makeWorkspace, resultOf, runEditor } from "./fixtures/harness.js";
import { TEST_TIMEOUT_MS, type BufferView, type ScenarioResult } from "./fixtures/scenario-checks.js";
import { FAKE_KEY } from "./fixtures/scenarios.js";

const FILE = "calc.py";
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
  "    return (w * w + h * h) ** 0.5",
  "",
  "",
  "def square(s):",
  "    return area(s, s)",
  "",
].join("\n");
/** Two hunks, far enough apart to stay two: line 2 and line 14. */
const FIRST = ["    return w * h", "    return h * w"] as const;
const SECOND = ["    return area(s, s)", "    return s * s"] as const;
const PROPOSED = BEFORE.replace(FIRST[0], FIRST[1]).replace(SECOND[0], SECOND[1]);
const FIRST_ONLY = BEFORE.replace(FIRST[0], FIRST[1]);
/** The second run changes line 6 (THIRD) and again line 14 (SECOND), over what the first left. */
const THIRD = ["    return 2 * (w + h)", "    return 2 * w + 2 * h"] as const;
const SECOND_PROPOSED = FIRST_ONLY.replace(THIRD[0], THIRD[1]).replace(SECOND[0], SECOND[1]);

interface Hunk {
  hunk_id: string;
  status?: string;
  message?: string;
  line?: number;
  end_line?: number;
}
interface Visit {
  buffer: string;
  line: number;
}
interface Reverted {
  file_path: string;
  status: string;
  message: string;
}
interface ReviewResult extends ScenarioResult<BufferView & { managed: boolean }> {
  flymake: { line: number; type: string; text: string }[];
  /** M-x lockstep-session's lines while the hunks wait. */
  session: string[];
  reviewed: Hunk[];
  list: string[];
  first_visit: Visit;
  accepted: Hunk[];
  after_accept: BufferView;
  list_after_accept: string[];
  second_visit: Visit;
  rejected: Hunk[];
  list_after_reject: string[];
  decided: BufferView;
  first_job: string;
  reverted: Reverted[];
  after_revert: BufferView;
  off_hunk: { command_error?: string };
  file_list: string[];
  rejected_file: Hunk[];
  final: BufferView;
  chat: string[];
  messages: string[];
}

/** What the keys scenario types at the end of a line. */
const TYPED = " # mine";
const REVIEW_LIST = "*lockstep review*";
/** Where point is after keys typed in Emacs, and what they showed. */
interface Keys {
  keys: string;
  buffer: string;
  line: number;
  /** The hunk at point, in the review list. */
  hunk_id?: string;
  /** The last message shown, if any. */
  message?: string;
  command_error?: string;
}
interface KeysResult extends ScenarioResult<BufferView> {
  list_selected: boolean;
  list: string[];
  moves: Keys[];
  preview: {
    hunk_id: string;
    buffer: string;
    before_line: number;
    text: string;
    face: string;
    shown: boolean;
  } | null;
  preview_after_reject: unknown;
  visit: Keys;
  accept: Keys;
  list_after_accept: string[];
  to_other: Keys;
  reject: Keys;
  list_after_reject: string[];
  decided: BufferView;
  first_job: string;
  stale_list: string[];
  refresh: Keys;
  refreshed_list: string[];
  typing: Keys;
  conflict: Keys;
  list_after_conflict: string[];
  accept_other: Keys;
  second_job: string;
  final_refresh: Keys;
  final_list: string[];
  after_conflict: BufferView;
  revert_conflict: Keys;
  revert_buffer: string;
  revert_buffer_shown: boolean;
  after_revert_conflict: BufferView;
  revert_first: Keys;
  after_revert: BufferView;
}

/** Each request the model made after its write: the write_file answer it heard. */
const heard = (request: RecordedRequest | undefined): WireFunctionResponse["response"] | undefined =>
  lastResponses(request)[0]?.response;
const statuses = (hunks: Hunk[] | undefined): [string, string | undefined][] =>
  (hunks ?? []).map((h) => [h.hunk_id, h.status]);

/** Plays `scenario` in Emacs with the fake model on `script`; returns the driver's report and the requests the model got. */
async function play<R extends ScenarioResult = ReviewResult>(
  scenario: Record<string, unknown>,
  script: FakeScript,
): Promise<{ r: R; requests: RecordedRequest[] }> {
  requireEmacs();
  const fake = await startFakeGemini(script);
  try {
    const workspace = await makeWorkspace({ [FILE]: BEFORE });
    const run = await runEditor<R>({
      ...emacsCommand("review-driver.el"),
      input: { ...scenario, workspace, repo: REPO, node: process.execPath, file: FILE, mode: "python-mode" },
      cwd: workspace,
      env: { GEMINI_API_KEY: FAKE_KEY, GOOGLE_GEMINI_BASE_URL: fake.baseUrl },
      timeoutMs: 55_000, // under TEST_TIMEOUT_MS; room for a loaded machine
    });
    const r = resultOf(run);
    expect(r.error, "the driver failed").toBeUndefined();
    expect(run.timedOut).toBe(false);
    return { r, requests: fake.requests };
  } finally {
    await fake.close();
  }
}

const write = turn({ calls: [writeCall(FILE, PROPOSED, sha256Hex(BEFORE))] });

describe("Emacs 28 + Eglot 1.9: review and revert with lockstep.el", { timeout: TEST_TIMEOUT_MS }, () => {
  it("approval review: one hunk accepted, the other rejected, the run reverted; a second proposal rejected whole with C-u", async () => {
    // Each run: the model writes calc.py, then ends once it hears what became of the write.
    const { r, requests } = await play(
      {
        scenario: "review",
        settings: { approval: "review" },
        prompt: "simplify calc.py",
        second_prompt: "try again",
      },
      (_request, index) => (index % 2 === 0 ? write : turn({ text: ["Noted."] })),
    );

    // Flymake shows each hunk as an information diagnostic on the line it changes.
    expect(r.flymake.map((d) => [d.line, d.type])).toEqual([
      [2, "eglot-note"],
      [14, "eglot-note"],
    ]);
    expect(r.flymake[0]?.text).toContain("proposed change +1 −1: return h * w");

    // M-x lockstep-session meanwhile: the job waiting, the two hunks.
    expect(r.session).toContain(`last job     ${r.first_job} running`);
    expect(r.session).toContain("review       2 hunks in 1 file wait: calc.py (M-x lockstep-review)");

    // M-x lockstep-review lists both, file:line first, each with its diff.
    const [first, second] = r.reviewed;
    expect(r.reviewed.map((h) => [h.line, h.end_line])).toEqual([
      [2, 2],
      [14, 14],
    ]);
    expect(r.list[0]).toBe(
      "2 proposed changes wait for review.  RET visit, a accept, r reject (C-u: whole file), g refresh",
    );
    expect(r.list).toContain(`calc.py:2: ${first?.hunk_id} write_file +1 −1: return h * w (${r.first_job})`);
    expect(r.list).toContain(
      `calc.py:14: ${second?.hunk_id} write_file +1 −1: return s * s (${r.first_job})`,
    );
    expect(r.list).toContain(`  -${FIRST[0]}`);
    expect(r.list).toContain(`  +${SECOND[1]}`);

    // next-error goes to the first hunk; lockstep-accept there lands that hunk alone, in the buffer.
    expect(r.first_visit).toEqual({ buffer: FILE, line: 2 });
    expect(statuses(r.accepted)).toEqual([[first?.hunk_id, "applied"]]);
    expect(r.after_accept).toMatchObject({ text: FIRST_ONLY, modified: true });
    expect(r.list_after_accept[0]).toBe(
      "1 proposed change waits for review.  RET visit, a accept, r reject (C-u: whole file), g refresh",
    );
    // The next next-error goes to the second; lockstep-reject there leaves it out.
    expect(r.second_visit).toEqual({ buffer: FILE, line: 14 });
    expect(statuses(r.rejected)).toEqual([[second?.hunk_id, "rejected"]]);
    expect(r.list_after_reject).toEqual(["Nothing waits for review."]);
    expect(r.decided.text).toBe(FIRST_ONLY);

    // The model heard exactly that: one hunk applied, one rejected.
    const firstRun = heard(requests[1]);
    expect(firstRun?.ok).toBe(true);
    expect(statuses(firstRun?.data?.["hunks"] as Hunk[])).toEqual([
      [first?.hunk_id, "applied"],
      [second?.hunk_id, "rejected"],
    ]);
    expect(firstRun?.data?.["message"]).toMatch(/^Partly applied: the user took 1 of 2 hunks/);

    // M-x lockstep-revert undoes the run in the buffer.
    expect(r.reverted.map((f) => [f.file_path, f.status])).toEqual([[FILE, "reverted"]]);
    expect(r.messages).toContain(`[lockstep] Revert of ${r.first_job}: ${FILE} reverted`);
    expect(r.after_revert.text).toBe(BEFORE);

    // The second run: lockstep-accept off any hunk says so; C-u M-x lockstep-review lists this file's hunks.
    expect(r.off_hunk.command_error).toBe(
      "[lockstep] No proposed change at line 1 of calc.py; M-x lockstep-review lists them",
    );
    expect(r.file_list[0]).toBe(
      "2 proposed changes wait for review in calc.py.  RET visit, a accept, r reject (C-u: whole file), g refresh",
    );
    // Its proposal, rejected whole with C-u M-x lockstep-reject from the top of the file.
    expect(r.rejected_file.map((h) => h.status)).toEqual(["rejected", "rejected"]);
    const secondRun = heard(requests[3]);
    expect(secondRun).toMatchObject({ ok: false, error: { code: "rejected" } });
    expect((secondRun?.data?.["hunks"] as Hunk[] | undefined)?.map((h) => h.status)).toEqual([
      "rejected",
      "rejected",
    ]);
    expect(r.final.text).toBe(BEFORE);
    expect(r.disk).toBe(BEFORE);
    expect(requests).toHaveLength(4);
    expect(r.chat.filter((l) => l.startsWith("[done]"))).toHaveLength(2);
  });

  it("keys in the review list: n / p / RET / a / r / g; accepting over the user's typing is a conflict; C-u M-x lockstep-revert of a job by id", async () => {
    const { r: k, requests } = await play<KeysResult>(
      {
        scenario: "keys",
        settings: { approval: "review" },
        prompt: "simplify calc.py",
        second_prompt: "and the rest",
        typed_line: 14,
        revert_typed_line: 6,
        typing: "C-e SPC # SPC m i n e", // TYPED at the end of the line
      },
      (_request, index) =>
        index === 0
          ? write
          : index === 2
            ? turn({ calls: [writeCall(FILE, SECOND_PROPOSED, sha256Hex(FIRST_ONLY))] })
            : turn({ text: ["Noted."] }),
    );
    const [first, second] = k.moves;
    // M-x lockstep-review selects the list: its keys work at once.
    expect(k.list_selected).toBe(true);
    // n, n, p walk the list's hunks; RET shows the one at point in its file, at its line.
    expect(k.moves.map((m) => [m.keys, m.hunk_id])).toEqual([
      ["n", first?.hunk_id],
      ["n", second?.hunk_id],
      ["p", first?.hunk_id],
    ]);
    expect(k.list).toContain(`calc.py:2: ${first?.hunk_id} write_file +1 −1: return h * w (${k.first_job})`);
    expect(k.list).toContain(
      `calc.py:14: ${second?.hunk_id} write_file +1 −1: return s * s (${k.first_job})`,
    );
    // Point on a hunk in the list previews it in its file: its diff under its lines, in the diff faces.
    expect(k.preview).toEqual({
      hunk_id: first?.hunk_id,
      buffer: FILE,
      before_line: 3,
      text: `-${FIRST[0]}\n+${FIRST[1]}\n`,
      face: "diff-removed",
      shown: true,
    });
    expect(k.visit).toMatchObject({ buffer: FILE, line: 2 });
    // a on the first hunk's line lands it; n goes to the other, r leaves it out.
    expect(k.accept).toMatchObject({ buffer: REVIEW_LIST, message: `[lockstep] ${first?.hunk_id} applied` });
    expect(k.list_after_accept[0]).toBe(
      "1 proposed change waits for review.  RET visit, a accept, r reject (C-u: whole file), g refresh",
    );
    expect(k.to_other.hunk_id).toBe(second?.hunk_id);
    expect(k.reject).toMatchObject({ message: `[lockstep] ${second?.hunk_id} rejected` });
    expect(k.list_after_reject).toEqual(["Nothing waits for review."]);
    expect(k.preview_after_reject).toBeNull();
    expect(k.decided.text).toBe(FIRST_ONLY);
    expect(statuses(heard(requests[1])?.data?.["hunks"] as Hunk[])).toEqual([
      [first?.hunk_id, "applied"],
      [second?.hunk_id, "rejected"],
    ]);

    // The second run's proposal comes while the list says nothing waits: g lists it.
    expect(k.stale_list).toEqual(["Nothing waits for review."]);
    expect(k.refresh.command_error).toBeUndefined();
    expect(k.refreshed_list[0]).toBe(
      "2 proposed changes wait for review.  RET visit, a accept, r reject (C-u: whole file), g refresh",
    );
    const [other, typedOver] = k.refreshed_list
      .filter((l) => l.startsWith("calc.py:"))
      .map((l) => l.split(" ")[1]);
    expect(k.refreshed_list).toContain(
      `calc.py:6: ${other} write_file +1 −1: return 2 * w + 2 * h (${k.second_job})`,
    );
    expect(k.refreshed_list).toContain(
      `calc.py:14: ${typedOver} write_file +1 −1: return s * s (${k.second_job})`,
    );
    // The user typed over line 14, the second hunk's own line, and went back to the list
    // before Eglot's idle timer sent it: a there is a conflict, never forced; the typing stays.
    expect(k.typing).toMatchObject({ buffer: FILE, line: 14 });
    expect(k.conflict.message).toBe(
      `[lockstep] ${typedOver} conflict: Conflict: the lines it changes (lines 14–14) were edited since the change was proposed.`,
    );
    expect(k.list_after_conflict[0]).toBe(
      "1 proposed change waits for review.  RET visit, a accept, r reject (C-u: whole file), g refresh",
    );
    // The other hunk still lands, then g shows nothing pending.
    expect(k.accept_other.message).toBe(`[lockstep] ${other} applied`);
    expect(k.final_refresh.command_error).toBeUndefined();
    expect(k.final_list).toEqual(["Nothing waits for review."]);
    const secondRun = SECOND_PROPOSED.replace(SECOND[1], `${SECOND[0]}${TYPED}`);
    expect(k.after_conflict.text).toBe(secondRun);
    const heardSecond = heard(requests[3]);
    expect(statuses(heardSecond?.data?.["hunks"] as Hunk[])).toEqual([
      [other, "applied"],
      [typedOver, "conflict"],
    ]);
    expect((heardSecond?.data?.["hunks"] as Hunk[])[1]?.message).toMatch(
      /^Conflict: the lines it changes \(lines 14–14\) were edited/,
    );

    // C-u M-x lockstep-revert RET <second job>, after the user typed over line 6, its applied
    // line: left as it is, reported in *lockstep revert* with the part that would be undone.
    const edited = secondRun.replace(THIRD[1], `${THIRD[1]}${TYPED}`);
    expect(k.revert_conflict.message).toBe(`[lockstep] Revert of ${k.second_job}: ${FILE} conflict`);
    expect(k.revert_buffer_shown).toBe(true);
    expect(k.revert_buffer).toMatch(
      /^calc\.py: conflict\ncalc\.py was left as it is: .*lines 6–6\) were edited/,
    );
    expect(k.revert_buffer).toContain(`-${THIRD[1]}\n+${THIRD[0]}\n`);
    expect(k.after_revert_conflict.text).toBe(edited);
    // C-u M-x lockstep-revert RET <first job>: that job (not the last) is undone, the rest stays.
    expect(k.revert_first.message).toBe(`[lockstep] Revert of ${k.first_job}: ${FILE} reverted`);
    expect(k.after_revert.text).toBe(edited.replace(FIRST[1], FIRST[0]));
    expect(k.disk).toBe(BEFORE);
    expect(requests).toHaveLength(4);
  });

  it("approval auto: no to Eglot's own Proceed? reaches the model as rejected; the buffer is untouched", async () => {
    const { r, requests } = await play(
      {
        scenario: "proceed",
        settings: { approval: "auto" },
        confirm: true,
        prompt: "simplify calc.py",
        select: { "y-or-n-p": "n" },
      },
      (_request, index) => (index === 0 ? write : turn({ text: ["Understood."] })),
    );
    expect(r.prompts).toHaveLength(1);
    expect(r.prompts[0]).toMatchObject({ kind: "y-or-n-p", picked: "n" });
    expect(r.prompts[0]?.prompt).toMatch(/\[eglot\] Server wants to edit:[\s\S]*calc\.py[\s\S]*Proceed\?/);
    const answer = heard(requests[1]);
    expect(answer).toMatchObject({ ok: false, error: { code: "rejected" } });
    expect(answer?.error?.message).toMatch(/declined the edit to calc\.py in the editor's own prompt/);
    expect(r.final).toMatchObject({ text: BEFORE, modified: false });
    expect(r.disk).toBe(BEFORE);
    expect(r.chat.at(-1)).toMatch(/^\[done\] done/);
  });
});
