// The diffs a change's call showed, as the store keeps them: written redacted like every line,
// read back only in the shape lockstep writes (a path that stays in the root, texts as strings,
// a bounded size), else left out while the rest of the file loads; a file from before the
// record existed loads as it did; the list's summary is the same with or without the records.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseSession } from "../../server/src/sessions/session-reader.js";
import { SessionWriter } from "../../server/src/sessions/session-writer.js";
import { summarizeFileSync } from "../../server/src/sessions/summary-read.js";
import { HEADER, parseSessionSummary } from "../support/session-files.js";

const dir = mkdtempSync(path.join(tmpdir(), "lockstep-shown-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = { t: "run", job_id: "j", prompt: "change it", model: "m", at: "2026-01-01T00:00:01.000Z" };
const end = {
  t: "end",
  job_id: "j",
  status: "done",
  usage: { input_tokens: 1, output_tokens: 2 },
  files_changed: [],
  at: "2026-01-01T00:00:02.000Z",
};
const shown = (call: string, files: unknown, extra: Record<string, unknown> = {}) => ({
  t: "shown",
  job_id: "j",
  call_id: call,
  tool: "edit",
  files,
  ...extra,
});
const fileOf = (records: unknown[]): string => records.map((r) => JSON.stringify(r)).join("\n") + "\n";

describe("a change's shown diffs in the store", () => {
  it("reads back what lockstep writes, and leaves out any record of another shape", () => {
    const good = [{ file_path: "src/a.ts", old_text: "a\n", new_text: "b\n", line: 4 }];
    const text = fileOf([
      HEADER,
      run,
      shown("j:1", good),
      shown("j:2", [
        { file_path: "b.ts", old_text: null, new_text: "new\n" },
        { file_path: "c.ts", text: "named" },
      ]),
      shown("j:3", [{ file_path: "../outside.ts", old_text: "a", new_text: "b" }]),
      shown("j:4", [{ file_path: "/etc/passwd", old_text: "a", new_text: "b" }]),
      shown("j:5", [{ file_path: "a/../../x.ts", old_text: "a", new_text: "b" }]),
      shown("j:6", [{ file_path: "a.ts", old_text: 1, new_text: "b" }]),
      shown("j:7", [{ file_path: "a.ts", old_text: "a", new_text: "b", line: 0 }]),
      shown("j:8", [{ file_path: "a.ts", old_text: "a".repeat(300_000), new_text: "b" }]),
      shown(
        "j:9",
        Array.from({ length: 501 }, () => ({ file_path: "a.ts", text: "x" })),
      ),
      shown("other:10", good),
      shown("j:11", "not a list"),
      shown("j:12", [{ file_path: "C:\\windows\\x.ts", old_text: "a", new_text: "b" }]),
      end,
    ]);
    const read = parseSession(text);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect([...read.session.shown.keys()]).toEqual(["j:1", "j:2"]);
    expect(read.session.shown.get("j:1")).toEqual({ tool: "edit", files: good });
    expect(read.session.runs).toHaveLength(1);
  });

  it("loads a file written before the record existed, with nothing shown", () => {
    const read = parseSession(fileOf([HEADER, run, end]));
    expect(read.ok && read.session.shown.size).toBe(0);
  });

  it("gives the list the same summary with or without the records", () => {
    const records = [shown("j:1", [{ file_path: "a.ts", old_text: "a", new_text: "b".repeat(30_000) }])];
    const plain = path.join(dir, "plain.jsonl");
    const withShown = path.join(dir, "shown.jsonl");
    writeFileSync(plain, fileOf([HEADER, run, end]));
    writeFileSync(withShown, fileOf([HEADER, run, ...records, end]));
    expect(summarizeFileSync(withShown)).toEqual(summarizeFileSync(plain));
    const text = readFileSync(withShown, "utf8");
    // The list's oracle passes them over as the fold does; a resume reads them.
    const summary = parseSessionSummary(text);
    expect(summary.ok && summary.session.shown.size).toBe(0);
    const whole = parseSession(text);
    expect(whole.ok && whole.session.shown.size).toBe(1);
  });

  it("is redacted as every line is: a key in a diff never reaches the disk", () => {
    const file = path.join(dir, "secret.jsonl");
    const key = "sk-test-0123456789abcdefghijKLMN";
    const writer = SessionWriter.create("s", file, () => [key]);
    writer.add(HEADER as never);
    writer.add({
      t: "shown",
      job_id: "j",
      call_id: "j:1",
      tool: "edit",
      files: [{ file_path: ".env", old_text: null, new_text: `KEY=${key}\n` }],
    });
    writer.close();
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(key);
    const read = parseSession(text);
    expect(read.ok && JSON.stringify(read.session.shown.get("j:1"))).toContain("[redacted]");
  });
});
