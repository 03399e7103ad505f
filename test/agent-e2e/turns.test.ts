// The turn loop as an editor sees it: the spawned server, the real Gemini SDK in it,
// the fake endpoint on loopback. Every assertion about the conversation reads what
// the endpoint received, i.e. what Gemini would see.
import { afterEach, describe, expect, it } from "vitest";
import {
  contentsOf,
  deferred,
  lastResponses,
  patchCall,
  promptText,
  readCall,
  replaceLineDiff,
  rolesOf,
  sha256Hex,
  startAgent,
  turn,
} from "../support/agent-scripts.js";
import { stopAllServers } from "../support/lsp-client.js";

afterEach(stopAllServers);

const A = ["export function area(w: number, h: number): number {", "  return w * h;", "}", ""].join("\n");
const B = ["export const unit = 'cm';", ""].join("\n");

describe("one turn, several calls", () => {
  it("runs both read_file calls in order and answers them in ONE user message, in call order", async () => {
    const rig = await startAgent({
      files: { "a.ts": A, "b.ts": B },
      script: [
        turn({
          calls: [
            { ...readCall("a.ts"), id: "call-a" },
            { ...readCall("b.ts"), id: "call-b" },
          ],
        }),
        turn({ text: ["Read both."] }),
      ],
    });
    const id = await rig.ask("read a.ts and b.ts");
    const job = await rig.finished(id);
    expect(job.status).toBe("done");

    const fake = rig.fake!;
    expect(fake.requests).toHaveLength(2);
    const second = fake.requests[1];
    expect(rolesOf(second)).toEqual(["user", "model", "user"]);
    // The model's turn is one message holding both calls, as they were made.
    const modelParts = contentsOf(second)[1]?.parts ?? [];
    expect(
      modelParts.map((p) => (p["functionCall"] as { args: { file_path: string } }).args.file_path),
    ).toEqual(["a.ts", "b.ts"]);
    // One user message, two functionResponse parts, in call order, ids echoed.
    const responses = lastResponses(second);
    expect(responses.map((r) => [r.id, r.name, r.response.ok, r.response.data?.["file_path"]])).toEqual([
      ["call-a", "read_file", true, "a.ts"],
      ["call-b", "read_file", true, "b.ts"],
    ]);
    expect(responses[0]?.response.data).toMatchObject({ content: A, sha256: sha256Hex(A) });
    expect(responses[1]?.response.data).toMatchObject({ content: B, sha256: sha256Hex(B) });

    // Executed in order: a's call and result come before b's.
    const order = rig
      .events(id)
      .flatMap((e) =>
        e.kind === "tool_call" || e.kind === "tool_result" ? [`${e.kind} ${e.file_path ?? ""}`] : [],
      );
    expect(order).toEqual(["tool_call a.ts", "tool_result a.ts", "tool_call b.ts", "tool_result b.ts"]);
    expect(job.tool_calls.map((c) => [c.name, c.file_path, c.ok])).toEqual([
      ["read_file", "a.ts", true],
      ["read_file", "b.ts", true],
    ]);
  });
});

describe("history across turns", () => {
  it("keeps user/model alternation with one model message per turn, however many chunks streamed", async () => {
    const patched = A.replace("w * h", "h * w");
    const rig = await startAgent({
      files: { "a.ts": A },
      initializationOptions: { approval: "auto" },
      script: [
        turn({ text: ["I will ", "read a.ts", " first."], calls: [readCall("a.ts")] }),
        turn({
          text: ["Patch", "ing now."],
          calls: [
            patchCall("a.ts", replaceLineDiff("a.ts", A, "  return w * h;", "  return h * w;"), sha256Hex(A)),
          ],
        }),
        turn({ text: ["Done: ", "swapped", " the factors."] }),
        turn({ text: ["Nothing else."] }),
      ],
    });
    await rig.client.open("a.ts");
    const first = await rig.finished(await rig.ask("swap the factors in a.ts"));
    expect(first.status).toBe("done");
    expect(first.text).toBe("I will read a.ts first.\n\nPatching now.\n\nDone: swapped the factors.");
    expect(rig.client.buffer("a.ts")?.text).toBe(patched);

    const requests = rig.fake!.requests;
    expect(requests).toHaveLength(3);
    expect(rolesOf(requests[1])).toEqual(["user", "model", "user"]);
    expect(rolesOf(requests[2])).toEqual(["user", "model", "user", "model", "user"]);
    const contents = contentsOf(requests[2]);
    expect(contents[1]?.parts).toEqual([
      { text: "I will read a.ts first." },
      { functionCall: { name: "read_file", args: { file_path: "a.ts" } } },
    ]);
    expect(contents[3]?.parts?.[0]).toEqual({ text: "Patching now." });
    expect(contents[3]?.parts).toHaveLength(2);
    expect(lastResponses(requests[2])[0]?.response).toMatchObject({
      ok: true,
      data: { message: expect.stringMatching(/^Patch applied successfully\./) },
    });

    // The session carries the whole run into the next request: the third turn's
    // streamed text is one model message.
    const second = await rig.finished(await rig.ask("anything else?"));
    expect(second.status).toBe("done");
    const next = requests[3];
    expect(rolesOf(next)).toEqual(["user", "model", "user", "model", "user", "model", "user"]);
    expect(contentsOf(next)[5]?.parts).toEqual([{ text: "Done: swapped the factors." }]);
    expect(contentsOf(next)[6]?.parts).toEqual([{ text: "anything else?" }]);
  });
});

describe("streaming", () => {
  it("sends text deltas as lockstep/stream notifications while the job runs, then reports it done", async () => {
    const release = deferred();
    const rig = await startAgent({
      files: { "a.ts": A },
      initializationOptions: { approval: "auto" },
      gate: true,
      script: [
        turn({ text: ["Reading ", "a.ts."], calls: [readCall("a.ts")] }),
        turn({
          calls: [
            patchCall(
              "a.ts",
              replaceLineDiff("a.ts", A, "  return w * h;", "  return w * h; // cm²"),
              sha256Hex(A),
            ),
          ],
        }),
        turn({ text: ["Patched ", "a.ts", "."] }),
      ],
    });
    // The second model request waits until the test has looked at the running job.
    rig.gate!.hold(1, release.promise);
    await rig.client.open("a.ts");
    const id = await rig.ask("annotate the unit");

    const firstDelta = await rig.waitForEvent(id, (e) => e.kind === "text");
    expect(firstDelta).toEqual({ job_id: id, kind: "text", text: "Reading " });
    const midway = await rig.job(id);
    expect(midway.status).toBe("running");
    expect(rig.events(id).some((e) => e.kind === "done")).toBe(false);
    release.resolve();

    const job = await rig.finished(id);
    expect(job).toMatchObject({
      status: "done",
      text: "Reading a.ts.\n\nPatched a.ts.",
      files_changed: ["a.ts"],
    });
    expect(job.tool_calls).toEqual([
      expect.objectContaining({ name: "read_file", file_path: "a.ts", ok: true }),
      expect.objectContaining({
        name: "safe_patch",
        file_path: "a.ts",
        ok: true,
        message: expect.stringMatching(/^Patch applied successfully\./),
      }),
    ]);

    const events = rig.events(id);
    const deltas = events.filter((e) => e.kind === "text");
    expect(deltas.map((e) => (e.kind === "text" ? e.text : "")).join("")).toBe(job.text);
    expect(deltas.length).toBeGreaterThanOrEqual(5);
    const done = events.findIndex((e) => e.kind === "done");
    expect(done).toBe(events.length - 1);
    expect(events[done]).toMatchObject({ status: "done", text: job.text });
  });
});

describe("@-mentions", () => {
  it("puts the mentioned files' sha256 and content (the open buffer's, unsaved) in the first user message", async () => {
    const rig = await startAgent({
      files: { "src/a.ts": A, "src/b.ts": B },
      script: [turn({ text: ["It multiplies."] })],
    });
    await rig.client.open("src/a.ts");
    await rig.client.type("src/a.ts", "w * h", "w * h * 1");
    const buffer = rig.client.buffer("src/a.ts")!.text;

    const job = await rig.finished(await rig.ask("what do @src/a.ts and @src/b.ts do?"));
    expect(job.status).toBe("done");
    const text = promptText(rig.fake!.requests[0]);
    expect(text.startsWith("what do @src/a.ts and @src/b.ts do?")).toBe(true);
    // Each mentioned file is one JSON state line.
    const states = text
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map(
        (line) =>
          JSON.parse(line) as { file_path: string; sha256: string; content: string; version: number | null },
      );
    expect(states).toEqual([
      expect.objectContaining({
        file_path: "src/a.ts",
        sha256: sha256Hex(buffer),
        content: buffer,
        version: 2,
      }),
      expect.objectContaining({ file_path: "src/b.ts", sha256: sha256Hex(B), content: B, version: null }),
    ]);
    expect(text).toContain(sha256Hex(buffer));
    expect(text).toContain(sha256Hex(B));
  });
});

describe("bad calls from the model", () => {
  it("answers an unknown tool and bad arguments with invalid_argument, and the model's retry works", async () => {
    const rig = await startAgent({
      files: { "a.ts": A },
      script: [
        turn({
          calls: [
            { name: "read_fille", args: { file_path: "a.ts" } },
            { name: "read_file", args: { path: "a.ts" } },
          ],
        }),
        turn({ calls: [readCall("a.ts")] }),
        turn({ text: ["Read it on the second try."] }),
      ],
    });
    const job = await rig.finished(await rig.ask("read a.ts"));
    expect(job.status).toBe("done");

    const [unknown, badArgs] = lastResponses(rig.fake!.requests[1]);
    expect(unknown).toMatchObject({
      name: "read_fille",
      response: { ok: false, error: { code: "invalid_argument" } },
    });
    expect(unknown?.response.error?.message).toContain("read_fille");
    expect(unknown?.response.error?.suggestions).toContain("Did you mean read_file?");
    expect(badArgs).toMatchObject({
      name: "read_file",
      response: { ok: false, error: { code: "invalid_argument" } },
    });
    expect(badArgs?.response.error?.message).toMatch(/file_path/);
    expect(badArgs?.response.error?.message).toMatch(/path/);

    const [retry] = lastResponses(rig.fake!.requests[2]);
    expect(retry?.response).toMatchObject({ ok: true, data: { file_path: "a.ts", content: A } });
    expect(job.tool_calls.map((c) => c.ok)).toEqual([false, false, true]);
  });
});
