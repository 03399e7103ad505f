// A change across files is decided as one change: in `ask` mode apply_patch asks
// once, naming every file and its size, and Apply / Reject / a cancellation
// decide every file together; in `review` mode (and when the prompt is closed)
// each file is staged on its own, hunk by hunk, the files of one call under one
// group label. Real server over stdio, the model a fake Gemini endpoint.
import type { MessageActionItem, ShowMessageRequestParams } from "vscode-languageserver-protocol";
import { afterEach, describe, expect, it } from "vitest";
import { lastResponses, pick, startAgent, turn, type AgentRig } from "../support/agent-scripts.js";
import { stopAllServers } from "../support/lsp-client.js";

afterEach(stopAllServers);

const A = "def f():\n    return 1\n";
const B = "B = 1\n";
const C_LINES = Array.from({ length: 12 }, (_, i) => `c${i + 1} = ${i + 1}`);
const A_AFTER = "def f():\n    x = 1\n    y = 2\n    return x + y\n";
const B_AFTER = "B = 2\n";
const C_AFTER = C_LINES.join("\n") + "\n";
const ENVELOPE = [
  "*** Begin Patch",
  "*** Update File: a.py",
  "@@ def f():",
  "-    return 1",
  "+    x = 1",
  "+    y = 2",
  "+    return x + y",
  "*** Update File: b.py",
  "@@",
  "-B = 1",
  "+B = 2",
  "*** Add File: c.py",
  ...C_LINES.map((l) => `+${l}`),
  "*** End Patch",
].join("\n");

interface Rig {
  rig: AgentRig;
  prompts: ShowMessageRequestParams[];
  job: string;
}

/** The model reads a.py and b.py, then sends one apply_patch across three files; the prompt is answered by `answer`. */
async function run(
  approval: string,
  answer: (p: ShowMessageRequestParams) => Promise<MessageActionItem | null>,
): Promise<Rig> {
  const prompts: ShowMessageRequestParams[] = [];
  const rig = await startAgent({
    files: { "a.py": A, "b.py": B },
    initializationOptions: { approval },
    showMessageRequest: (p) => {
      prompts.push(p);
      return answer(p);
    },
    script: [
      turn({ calls: [{ name: "read_many_files", args: { file_paths: ["a.py", "b.py"] } }] }),
      turn({ calls: [{ name: "apply_patch", args: { input: ENVELOPE } }] }),
      turn({ text: ["Done."] }),
    ],
  });
  await rig.client.open("a.py");
  await rig.client.open("b.py");
  return { rig, prompts, job: await rig.ask("restructure") };
}

const applyPatchAnswer = (rig: AgentRig) => lastResponses(rig.fake!.requests[2])[0]?.response;
/** What the editor holds for a file (a created file's text lands in a buffer), else the disk. */
const textOf = async (rig: AgentRig, rel: string): Promise<string> =>
  rig.client.buffer(rel)?.text ?? (await rig.disk(rel));
const exists = (rig: AgentRig, rel: string): Promise<boolean> =>
  rig.disk(rel).then(
    () => true,
    () => false,
  );

describe("apply_patch across files with approval ask", () => {
  it("asks once, naming every file and its size; Apply lands every file", async () => {
    const { rig, prompts, job } = await run("ask", (p) => Promise.resolve(pick(p, "Apply")));
    expect(await rig.finished(job, 30_000)).toMatchObject({ status: "done" });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]!.message).toBe(
      "lockstep wants to change 3 files with apply_patch: a.py (+3 −1), b.py (+1 −1), new c.py (+12).",
    );
    expect(prompts[0]!.actions?.map((a) => a.title)).toEqual([
      "Apply",
      "Always allow apply_patch this session",
      "Reject",
      "Stop the run",
    ]);
    expect(applyPatchAnswer(rig)).toMatchObject({ ok: true, data: { applied: true } });
    expect(rig.client.buffer("a.py")?.text).toBe(A_AFTER);
    expect(rig.client.buffer("b.py")?.text).toBe(B_AFTER);
    expect(await textOf(rig, "c.py")).toBe(C_AFTER);
  });

  it("Reject lands no file, and the model hears `rejected` for the whole change", async () => {
    const { rig, prompts, job } = await run("ask", (p) => Promise.resolve(pick(p, "Reject")));
    expect(await rig.finished(job, 30_000)).toMatchObject({ status: "done", files_changed: [] });
    expect(prompts).toHaveLength(1);
    const answer = applyPatchAnswer(rig);
    expect(answer?.ok).toBe(false);
    expect(answer?.error?.code).toBe("rejected");
    expect(answer?.error?.message).toContain("3 files (a.py, b.py, c.py)");
    expect(rig.client.applyEditRequests).toHaveLength(0);
    expect(rig.client.buffer("a.py")?.text).toBe(A);
    expect(rig.client.buffer("b.py")?.text).toBe(B);
    expect(await exists(rig, "c.py")).toBe(false);
  });

  it("a run cancelled while the prompt waits lands no file", async () => {
    let asked: () => void = () => undefined;
    const prompted = new Promise<void>((resolve) => (asked = resolve));
    const { rig, prompts, job } = await run("ask", () => {
      asked();
      return new Promise<MessageActionItem | null>(() => undefined);
    });
    await prompted;
    expect((await rig.client.command("cancel", { job_id: job })).ok).toBe(true);
    expect(await rig.finished(job, 30_000)).toMatchObject({ status: "cancelled", files_changed: [] });
    expect(prompts).toHaveLength(1);
    expect(rig.client.applyEditRequests).toHaveLength(0);
    expect(rig.client.buffer("a.py")?.text).toBe(A);
    expect(await exists(rig, "c.py")).toBe(false);
  });
});

interface Pending {
  change_id: string;
  file_path: string;
  tool: string;
  group?: string;
  hunks: { hunk_id: string }[];
}

async function pendingOf(rig: AgentRig, count: number): Promise<Pending[]> {
  for (let i = 0; i < 1500; i++) {
    const answer = await rig.client.command("review", {});
    const pending = (answer.ok ? answer.data["pending"] : []) as Pending[];
    if (pending.length >= count) return pending;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`fewer than ${count} changes staged for review`);
}

describe("apply_patch across files staged for review", () => {
  it("approval review: each file staged on its own, under one group; the files accepted land", async () => {
    const { rig, prompts, job } = await run("review", () => Promise.resolve(null));
    const pending = await pendingOf(rig, 3);
    expect(prompts).toHaveLength(0);
    expect(pending.map((p) => p.file_path).sort()).toEqual(["a.py", "b.py", "c.py"]);
    expect(pending.every((p) => p.tool === "apply_patch" && p.hunks.length === 1)).toBe(true);
    expect(new Set(pending.map((p) => p.group)).size).toBe(1);
    expect(pending[0]!.group).toEqual(expect.any(String));
    for (const p of pending) {
      const decided = await rig.client.command("decide", {
        id: p.change_id,
        decision: p.file_path === "b.py" ? "reject" : "apply",
      });
      expect(decided.ok).toBe(true);
    }
    expect(await rig.finished(job, 30_000)).toMatchObject({ status: "done" });
    expect(rig.client.buffer("a.py")?.text).toBe(A_AFTER);
    expect(rig.client.buffer("b.py")?.text).toBe(B);
    expect(await textOf(rig, "c.py")).toBe(C_AFTER);
    const files = (applyPatchAnswer(rig)?.data?.["files"] ?? []) as { file_path: string; status: string }[];
    expect(files.map((f) => [f.file_path, f.status])).toEqual([
      ["a.py", "reviewed"],
      ["b.py", "reviewed"],
      ["c.py", "reviewed"],
    ]);
  });

  it("always allow on one file of the change applies its other files too, and allows the tool from then on", async () => {
    const { rig, job } = await run("review", () => Promise.resolve(null));
    const pending = await pendingOf(rig, 3);
    const a = pending.find((p) => p.file_path === "a.py")!;
    expect((await rig.client.command("decide", { id: a.change_id, decision: "always" })).ok).toBe(true);
    expect(await rig.finished(job, 30_000)).toMatchObject({ status: "done" });
    expect(rig.client.buffer("a.py")?.text).toBe(A_AFTER);
    expect(rig.client.buffer("b.py")?.text).toBe(B_AFTER);
    expect(await textOf(rig, "c.py")).toBe(C_AFTER);
    const review = await rig.client.command("review", {});
    expect(review.ok && review.data["pending"]).toEqual([]);
  });

  it("cancelled while files are staged: the file whose hunks the user accepted keeps them, and the run names it as changed", async () => {
    const { rig, job } = await run("review", () => Promise.resolve(null));
    const pending = await pendingOf(rig, 3);
    const a = pending.find((p) => p.file_path === "a.py")!;
    expect((await rig.client.command("decide", { id: a.change_id, decision: "apply" })).ok).toBe(true);
    expect((await rig.client.command("cancel", { job_id: job })).ok).toBe(true);
    const finished = await rig.finished(job, 30_000);
    expect(finished).toMatchObject({ status: "cancelled" });
    expect(rig.client.buffer("a.py")?.text).toBe(A_AFTER);
    expect(rig.client.buffer("b.py")?.text).toBe(B);
    expect(await exists(rig, "c.py")).toBe(false);
    // The call's answer is not the model's any more (the run ended), but the run says what landed.
    expect(finished.files_changed).toEqual(["a.py"]);
  });

  it("approval ask with the prompt closed: one prompt, then every file staged on its own", async () => {
    const { rig, prompts, job } = await run("ask", () => Promise.resolve(null));
    const pending = await pendingOf(rig, 3);
    expect(prompts).toHaveLength(1);
    expect(pending.map((p) => p.file_path).sort()).toEqual(["a.py", "b.py", "c.py"]);
    for (const p of pending)
      expect((await rig.client.command("decide", { id: p.change_id, decision: "reject" })).ok).toBe(true);
    expect(await rig.finished(job, 30_000)).toMatchObject({ status: "done", files_changed: [] });
    expect(rig.client.buffer("a.py")?.text).toBe(A);
    expect(rig.client.buffer("b.py")?.text).toBe(B);
    expect(await exists(rig, "c.py")).toBe(false);
  });
});

describe("apply_patch's deletes and moves staged for review", () => {
  const D = "gone = 1\nalso = 2\n";
  const E = "def g():\n    return 1\n";
  const F_AFTER = "def g():\n    return 2\n";
  const DELETE_AND_MOVE = [
    "*** Begin Patch",
    "*** Delete File: d.py",
    "*** Update File: e.py",
    "*** Move to: f.py",
    "@@ def g():",
    "-    return 1",
    "+    return 2",
    "*** End Patch",
  ].join("\n");

  async function staged(decide: (p: Pending) => "apply" | "reject"): Promise<AgentRig> {
    const rig = await startAgent({
      files: { "d.py": D, "e.py": E },
      initializationOptions: { approval: "review" },
      script: [
        turn({ calls: [{ name: "read_many_files", args: { file_paths: ["d.py", "e.py"] } }] }),
        turn({ calls: [{ name: "apply_patch", args: { input: DELETE_AND_MOVE } }] }),
        turn({ text: ["Done."] }),
      ],
    });
    const job = await rig.ask("remove d.py, move e.py");
    for (const p of await pendingOf(rig, 2))
      expect((await rig.client.command("decide", { id: p.change_id, decision: decide(p) })).ok).toBe(true);
    expect(await rig.finished(job, 30_000)).toMatchObject({ status: "done" });
    return rig;
  }

  it("every hunk accepted: the deleted file is gone, and the moved file's source with it", async () => {
    const rig = await staged(() => "apply");
    expect(await exists(rig, "d.py")).toBe(false);
    expect(await exists(rig, "e.py")).toBe(false);
    expect(await textOf(rig, "f.py")).toBe(F_AFTER);
    const files = (applyPatchAnswer(rig)?.data?.["files"] ?? []) as { file_path: string; message: string }[];
    expect(files.map((f) => f.message)).toEqual([
      expect.stringMatching(/d\.py was deleted\.$/),
      expect.stringMatching(/e\.py was removed \(moved to f\.py\)\.$/),
    ]);
  });

  it("the move declined: its source stays and no destination is made; the accepted delete still lands", async () => {
    const rig = await staged((p) => (p.file_path === "f.py" ? "reject" : "apply"));
    expect(await exists(rig, "d.py")).toBe(false);
    expect(await rig.disk("e.py")).toBe(E);
    expect(await exists(rig, "f.py")).toBe(false);
    const files = (applyPatchAnswer(rig)?.data?.["files"] ?? []) as { file_path: string; message: string }[];
    expect(files[1]!.message).toMatch(/Not every hunk was, so e\.py was kept\.$/);
  });
});
