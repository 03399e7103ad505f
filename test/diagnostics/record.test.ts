// What diagnostics_after makes of the lists a wrapped server publishes after a
// change: a list for a version it can tell, settled; one it cannot tell, only
// when nothing better comes, and said so; an older version's, never.
import { describe, expect, it } from "vitest";
import { DiagnosticsRecord, markNew, SETTLE_MS } from "../../server/src/diagnostics/record.js";
import type { WireDiagnostic } from "../../server/src/diagnostics/types.js";

const URI = "file:///w/a.ts";
const at = (line: number, message = "boom"): WireDiagnostic => ({
  range: { start: { line, character: 0 }, end: { line, character: 4 } },
  severity: 1,
  message,
});
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function recordWith(waitMs = 400): DiagnosticsRecord {
  const record = new DiagnosticsRecord("srv", () => waitMs);
  record.record(URI, [at(0)], 1);
  return record;
}

describe("DiagnosticsRecord.watch", () => {
  it("takes the last list within the settling time after the first one for the new version", async () => {
    const record = recordWith();
    const after = record.watch(URI, 1)(new AbortController().signal);
    record.record(URI, [at(3, "syntax")], 2);
    await sleep(SETTLE_MS / 2);
    record.record(URI, [at(3, "syntax"), at(5, "types")], 2);
    expect(await after).toMatchObject({
      status: "received",
      version: 2,
      diagnostics: [
        { line: 4, new: true },
        { line: 6, new: true },
      ],
    });
  });

  it("ignores a list for the version the change was built on, or an older one", async () => {
    const record = recordWith(200);
    const after = record.watch(URI, 3)(new AbortController().signal);
    record.record(URI, [at(9)], 3);
    record.record(URI, [at(9)], 2);
    expect(await after).toMatchObject({ status: "timeout", version: null, diagnostics: [] });
  });

  it("keeps a list whose version cannot be told aside: a later known one wins, else it is given with its doubt", async () => {
    const record = recordWith();
    const won = record.watch(URI, 1)(new AbortController().signal);
    record.record(URI, [at(7)], undefined);
    await sleep(20);
    record.record(URI, [], 2);
    expect(await won).toMatchObject({ status: "received", version: 2, diagnostics: [] });

    const alone = record.watch(URI, 2)(new AbortController().signal);
    record.record(URI, [at(7)], undefined);
    const result = await alone;
    expect(result).toMatchObject({
      status: "received",
      version: null,
      diagnostics: [{ line: 8, new: true }],
    });
    expect(result.message).toContain("may be for an earlier text");
  });

  it("waits on past a list exactly as before the change, and takes it only when nothing else comes", async () => {
    const record = recordWith(300);
    const same = record.watch(URI, 1)(new AbortController().signal);
    record.record(URI, [at(0)], 2);
    await sleep(SETTLE_MS + 50);
    record.record(URI, [at(0), at(1)], 2);
    expect(await same).toMatchObject({ version: 2, diagnostics: [{ new: false }, { new: true }] });

    const started = Date.now();
    const unchanged = record.watch(URI, 2)(new AbortController().signal);
    record.record(URI, [at(0), at(1)], 3);
    expect(await unchanged).toMatchObject({
      status: "received",
      version: 3,
      diagnostics: [{ new: false }, { new: false }],
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  });

  it("stops waiting when the change is cancelled", async () => {
    const record = recordWith(5000);
    const controller = new AbortController();
    const after = record.watch(URI, 1)(controller.signal);
    setTimeout(() => controller.abort(), 20);
    expect(await after).toMatchObject({ status: "timeout" });
  });

  it("says the file is not open when the change had no version, and does not wait at 0", async () => {
    const record = recordWith();
    expect(await record.watch(URI, null)(AbortSignal.timeout(1000))).toMatchObject({ status: "not_open" });
    const off = new DiagnosticsRecord("srv", () => 0);
    expect(await off.watch(URI, 1)(new AbortController().signal)).toMatchObject({
      status: "timeout",
      message: expect.stringContaining("diagnosticsWaitMs is 0") as string,
    });
  });
});

describe("markNew", () => {
  it("counts copies: a second equal diagnostic is new, a moved one is not", () => {
    const before = [
      { line: 1, column: 1, end_line: 1, end_column: 2, severity: "error" as const, message: "x" },
    ];
    const after = [
      { ...before[0]!, line: 5, end_line: 5 },
      { ...before[0]!, line: 6, end_line: 6 },
    ];
    expect(markNew(before, after).map((d) => d.new)).toEqual([false, true]);
  });
});
