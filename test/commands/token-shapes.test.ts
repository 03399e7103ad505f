// Credential shapes in a command's output: a token is redacted whatever chunks the stream cuts it
// into, and the head and tail a long output keeps never hold the recognisable-no-more part of a
// token the cut went through. The shapes are the store's (sessions/secrets.ts), not a second list.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OutputBudget, ShapeStream, trimCutEdges } from "../../server/src/commands/index.js";
import { redactTokens } from "../../server/src/sessions/secrets.js";

const TOKEN = `sk-proj-${"Ab3".repeat(20)}`;
const GITHUB = `ghp_${"x9Y".repeat(12)}`;

describe("ShapeStream", () => {
  it("redacts tokens split anywhere across chunks (property)", () => {
    const text = `key=${TOKEN}\nAuthorization: Bearer ${"t0k".repeat(8)}\n${GITHUB} done`;
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: text.length }), { maxLength: 8 }), (cuts) => {
        const at = [0, ...cuts.sort((a, b) => a - b), text.length];
        const s = new ShapeStream(redactTokens);
        let out = "";
        for (let i = 1; i < at.length; i++) out += s.push(text.slice(at[i - 1], at[i]));
        out += s.end();
        expect(out).toBe(redactTokens(text));
        expect(out).not.toContain("Ab3Ab3");
        expect(out).not.toContain("x9Yx9Y");
        expect(out).not.toContain("t0kt0k");
      }),
      { seed: 31, numRuns: 300 },
    );
  });

  it("shows a test runner's progress dots at once: only a run with a letter may start a token", () => {
    const s = new ShapeStream(redactTokens);
    expect(s.push("test_a ....")).toBe("test_a ....");
    expect(s.push("..")).toBe("..");
    expect(s.push(" ok sk-pro")).toBe(" ok ");
    expect(s.push(`j-${"Q".repeat(40)} end`) + s.end()).toBe("[redacted] end");
  });

  it("holds back at most a bounded run: an endless word still streams", () => {
    const s = new ShapeStream(redactTokens);
    let out = "";
    for (let i = 0; i < 100; i++) out += s.push("y".repeat(1000));
    expect(out.length).toBeGreaterThan(99_000);
    expect(out + s.end()).toBe("y".repeat(100_000));
  });
});

describe("the kept head and tail", () => {
  it("leave out a token the cut went through, so that no fragment of it is kept", () => {
    const b = new OutputBudget({ head: 20, tail: 20 });
    b.push(`first line ${TOKEN} middle ${"m".repeat(500)} end ${TOKEN} last`);
    const plain = b.kept();
    const trimmed = b.kept(trimCutEdges);
    // Without the edges trimmed, the cut leaves parts of the token no shape recognises.
    expect(redactTokens(plain.text)).toMatch(/Ab3/);
    expect(redactTokens(trimmed.text)).not.toMatch(/Ab3|b3A|3Ab/);
    expect(trimmed.text).toMatch(/^first line \n\[… [\d,]+ characters of output left out here …\]\n last$/);
    expect(trimmed.omitted).toBe(plain.omitted + plain.text.length - trimmed.text.length);
  });
});
