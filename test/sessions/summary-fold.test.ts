// The list's summary, folded as the file streams by (turn and journal lines read only in
// part, messages and blobs unread), against the whole parse a resume makes: the same runs,
// turns, files, usage, time, title and notes over seeded random sessions, torn tails included.
// And the file is input: a line too long, a header of another shape, a link are refused by name.
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { summarizeFile, summarizeFileSync } from "../../server/src/sessions/summary-read.js";
import { HEADER, parseSessionSummary } from "../support/session-files.js";

const dir = mkdtempSync(path.join(tmpdir(), "lockstep-summary-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = fc.integer({ min: 0, max: 59 }).map((s) => `2026-01-01T00:00:${String(s).padStart(2, "0")}.000Z`);
const usage = fc.record({ input_tokens: fc.nat({ max: 999 }), output_tokens: fc.nat({ max: 999 }) });
const file = fc.constantFrom("a.ts", "src/b.ts", 'odd "name".ts', "ü.ts");
const J = "JOB";
// What one run writes, in the recorder's order and with its fields in the recorder's order.
const body = fc.oneof(
  fc.record({
    t: fc.constant("blob"),
    id: fc.string({ unit: "grapheme-ascii", maxLength: 8 }),
    content: fc.string(),
  }),
  fc.record({
    t: fc.constant("msg"),
    m: fc.record({ role: fc.constant("user"), parts: fc.constant([{ text: "hi" }]) }),
  }),
  fc.record({ t: fc.constant("turn"), job_id: fc.constant(J), usage, at }),
  file.chain((f) =>
    fc.record({
      t: fc.constant("journal"),
      job_id: fc.constant(J),
      tool: fc.constant("edit"),
      file_path: fc.constant(f),
      uri: fc.constant(`file:///project/${f}`),
      before: fc.constant(null),
      after: fc.constant("x"),
      at,
    }),
  ),
  file.chain((f) =>
    fc.record({
      t: fc.constant("forget"),
      job_id: fc.constant(J),
      uri: fc.constant(`file:///project/${f}`),
      at,
    }),
  ),
  fc.record({ t: fc.constant("resumed"), pid: fc.nat(), at }),
  // The diffs a change's call showed: no time of its own, read only when the session is loaded.
  file.chain((f) =>
    fc.record({
      t: fc.constant("shown"),
      job_id: fc.constant(J),
      call_id: fc.constant(`${J}:1`),
      tool: fc.constant("edit"),
      files: fc.constant([{ file_path: f, old_text: "a", new_text: "b" }]),
    }),
  ),
);
const run = fc.record({
  run: fc.record({
    t: fc.constant("run"),
    job_id: fc.constant(J),
    prompt: fc.string(),
    model: fc.constant("m"),
    at,
  }),
  body: fc.array(body, { maxLength: 12 }),
  end: fc.option(
    fc.record({
      t: fc.constant("end"),
      job_id: fc.constant(J),
      status: fc.constantFrom("done", "interrupted", "failed"),
      usage,
      files_changed: fc.array(file, { maxLength: 3 }),
      at,
    }),
  ),
});
/** The runs' records, each run its own job id. */
const records = fc
  .array(run, { maxLength: 5 })
  .map((runs) =>
    runs.flatMap((r, i) =>
      [r.run, ...r.body, ...(r.end ? [r.end] : [])].map((x) =>
        "job_id" in x
          ? { ...x, job_id: `job-${i}`, ...("call_id" in x ? { call_id: `job-${i}:1` } : {}) }
          : x,
      ),
    ),
  );

describe("a session's summary folded as it streams", () => {
  it("says what the whole parse says, over 300 seeded sessions", async () => {
    await fc.assert(
      fc.asyncProperty(records, fc.nat({ max: 30 }), async (records, cut) => {
        let text = [HEADER, ...records].map((r) => JSON.stringify(r) + "\n").join("");
        if (cut > 0 && cut < 10 && records.length > 0) text = text.slice(0, text.length - cut); // a torn last line
        const f = path.join(dir, "s.jsonl");
        writeFileSync(f, text);
        const whole = parseSessionSummary(text);
        const folded = summarizeFileSync(f);
        expect(await summarizeFile(f)).toEqual(folded);
        expect(folded.ok).toBe(whole.ok);
        if (!whole.ok || !folded.ok) return;
        const s = whole.session;
        expect(folded.summary).toMatchObject({
          runs: s.runs.length,
          turns: s.turns,
          files_changed: [...new Set(s.runs.flatMap((r) => r.files_changed))].sort(),
          usage: s.usage,
          updated: s.updated,
          notes: s.notes.map(() => expect.stringMatching(/cut off mid-write/) as string),
        });
      }),
      { numRuns: 300, seed: 30 },
    );
  });

  it("says the same of a file of many chunks, lines cut at every chunk's end", async () => {
    // Lines of varied length, so the 1 MB chunks end inside lines of every kind, at every offset.
    const lines = [JSON.stringify(HEADER)];
    for (let run = 0; run < 40; run++) {
      const job = `job-${run}`;
      lines.push(
        JSON.stringify({
          t: "run",
          job_id: job,
          prompt: `p${run}`,
          model: "m",
          at: `2026-01-02T00:00:${run}`,
        }),
      );
      for (let i = 0; i < 1_000; i++) {
        const pad = "x".repeat((run * 7 + i * 13) % 97);
        lines.push(
          [
            JSON.stringify({ t: "msg", m: { role: "user", parts: [{ text: pad }] } }),
            JSON.stringify({ t: "blob", id: pad, content: pad }),
            JSON.stringify({
              t: "turn",
              job_id: job,
              usage: { input_tokens: i, output_tokens: 1 },
              at: `t${i}`,
            }),
            JSON.stringify({
              t: "journal",
              job_id: job,
              tool: "edit",
              file_path: `f${i % 5}${pad}`,
              uri: `u${i % 5}`,
              before: null,
              after: "a",
              at: "j",
            }),
          ][i % 4]!,
        );
      }
      if (run % 3 !== 0)
        lines.push(
          JSON.stringify({
            t: "end",
            job_id: job,
            status: "done",
            usage: { input_tokens: 1, output_tokens: 1 },
            files_changed: [`e${run}`],
            at: `e${run}`,
          }),
        );
    }
    const text = lines.join("\n") + "\n";
    expect(text.length).toBeGreaterThan(3 * 1024 * 1024);
    const f = path.join(dir, "chunks.jsonl");
    writeFileSync(f, text);
    const whole = parseSessionSummary(text);
    if (!whole.ok) throw new Error(whole.reason);
    const folded = summarizeFileSync(f);
    expect(await summarizeFile(f)).toEqual(folded);
    expect(folded).toMatchObject({
      ok: true,
      summary: {
        runs: 40,
        turns: whole.session.turns,
        files_changed: [...new Set(whole.session.runs.flatMap((r) => r.files_changed))].sort(),
        usage: whole.session.usage,
        updated: whole.session.updated,
      },
    });
  });

  it("refuses a file whose kept line is longer than the cap, whose header is not lockstep's, or that is a link", () => {
    const long = path.join(dir, "long.jsonl");
    writeFileSync(
      long,
      JSON.stringify(HEADER) +
        "\n" +
        JSON.stringify({ t: "run", prompt: "x".repeat(70 * 1024 * 1024) }) +
        "\n",
    );
    expect(summarizeFileSync(long)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^line 2 is longer than/) as string,
    });
    const header = path.join(dir, "header.jsonl");
    writeFileSync(header, JSON.stringify({ ...HEADER, id: 7 }) + "\n");
    expect(summarizeFileSync(header)).toEqual({
      ok: false,
      reason: "its session header is not one lockstep wrote",
    });
    const link = path.join(dir, "link.jsonl");
    symlinkSync("/dev/zero", link);
    expect(() => summarizeFileSync(link)).toThrow(/ELOOP/);
  });
});
