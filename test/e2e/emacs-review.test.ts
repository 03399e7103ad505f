// Review and revert in a real Emacs 28 + Eglot 1.9 (batch mode) with
// clients/emacs/lockstep.el: the fake model proposes a change of two hunks,
// and the driver fixtures/emacs/review-driver.el does what a user would with
// M-x lockstep-review, next-error, lockstep-accept, lockstep-reject and
// lockstep-revert. What the model heard is read from the fake endpoint. A
// second case answers no to Eglot's own "Proceed?" prompt.
import { describe, expect, it } from "vitest";
import { lastResponses, sha256Hex, turn, writeCall, type WireFunctionResponse } from "../support/agent-scripts.js";
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

/** Each request the model made after its write: the write_file answer it heard. */
const heard = (request: RecordedRequest | undefined): WireFunctionResponse["response"] | undefined => lastResponses(request)[0]?.response;
const statuses = (hunks: Hunk[] | undefined): [string, string | undefined][] => (hunks ?? []).map((h) => [h.hunk_id, h.status]);

/** Plays `scenario` in Emacs with the fake model on `script`; returns the driver's report and the requests the model got. */
async function play(scenario: Record<string, unknown>, script: FakeScript): Promise<{ r: ReviewResult; requests: RecordedRequest[] }> {
  requireEmacs();
  const fake = await startFakeGemini(script);
  try {
    const workspace = await makeWorkspace({ [FILE]: BEFORE });
    const run = await runEditor<ReviewResult>({
      ...emacsCommand("review-driver.el"),
      input: { ...scenario, workspace, repo: REPO, node: process.execPath, file: FILE, mode: "python-mode" },
      cwd: workspace,
      env: { GEMINI_API_KEY: FAKE_KEY, GOOGLE_GEMINI_BASE_URL: fake.baseUrl },
      timeoutMs: 30_000,
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
    const { r, requests } = await play({ scenario: "review", settings: { approval: "review" }, prompt: "simplify calc.py", second_prompt: "try again" }, (_request, index) =>
      index % 2 === 0 ? write : turn({ text: ["Noted."] }),
    );

    // Flymake shows each hunk as an information diagnostic on the line it changes.
    expect(r.flymake.map((d) => [d.line, d.type])).toEqual([
      [2, "eglot-note"],
      [14, "eglot-note"],
    ]);
    expect(r.flymake[0]?.text).toContain("proposed change (+1 −1)");

    // M-x lockstep-review lists both, file:line first, each with its diff.
    const [first, second] = r.reviewed;
    expect(r.reviewed.map((h) => [h.line, h.end_line])).toEqual([
      [2, 2],
      [14, 14],
    ]);
    expect(r.list[0]).toBe("2 proposed changes wait for review.  RET visit, a accept, r reject (C-u: whole file), g refresh");
    expect(r.list).toContain(`calc.py:2: ${first?.hunk_id} +1 −1 write_file (${r.first_job})`);
    expect(r.list).toContain(`calc.py:14: ${second?.hunk_id} +1 −1 write_file (${r.first_job})`);
    expect(r.list).toContain(`  -${FIRST[0]}`);
    expect(r.list).toContain(`  +${SECOND[1]}`);

    // next-error goes to the first hunk; lockstep-accept there lands that hunk alone, in the buffer.
    expect(r.first_visit).toEqual({ buffer: FILE, line: 2 });
    expect(statuses(r.accepted)).toEqual([[first?.hunk_id, "applied"]]);
    expect(r.after_accept).toMatchObject({ text: FIRST_ONLY, modified: true });
    expect(r.list_after_accept[0]).toBe("1 proposed change waits for review.  RET visit, a accept, r reject (C-u: whole file), g refresh");
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
    expect(r.off_hunk.command_error).toBe("[lockstep] No proposed change at line 1 of calc.py; M-x lockstep-review lists them");
    expect(r.file_list[0]).toBe("2 proposed changes wait for review in calc.py.  RET visit, a accept, r reject (C-u: whole file), g refresh");
    // Its proposal, rejected whole with C-u M-x lockstep-reject from the top of the file.
    expect(r.rejected_file.map((h) => h.status)).toEqual(["rejected", "rejected"]);
    const secondRun = heard(requests[3]);
    expect(secondRun).toMatchObject({ ok: false, error: { code: "rejected" } });
    expect((secondRun?.data?.["hunks"] as Hunk[] | undefined)?.map((h) => h.status)).toEqual(["rejected", "rejected"]);
    expect(r.final.text).toBe(BEFORE);
    expect(r.disk).toBe(BEFORE);
    expect(requests).toHaveLength(4);
    expect(r.chat.filter((l) => l.startsWith("[done]"))).toHaveLength(2);
  });

  it("approval auto: no to Eglot's own Proceed? reaches the model as rejected; the buffer is untouched", async () => {
    const { r, requests } = await play({ scenario: "proceed", settings: { approval: "auto" }, confirm: true, prompt: "simplify calc.py", select: { "y-or-n-p": "n" } }, (_request, index) =>
      index === 0 ? write : turn({ text: ["Understood."] }),
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
