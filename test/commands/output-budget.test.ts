// The budget keeps the head and the tail and names the middle; the redactor catches a key
// value even when the stream splits it, whatever the split.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OutputBudget, redact, StreamRedactor } from "../../server/src/commands/index.js";

describe("OutputBudget", () => {
  it("keeps everything under the budget", () => {
    const b = new OutputBudget({ head: 10, tail: 10 });
    b.push("hello ");
    b.push("world");
    expect(b.text()).toBe("hello world");
    expect(b.omitted).toBe(0);
  });

  it("keeps head and tail of a long stream, naming the middle's size", () => {
    const b = new OutputBudget({ head: 5, tail: 5 });
    for (let i = 0; i < 1000; i++) b.push("0123456789");
    expect(b.omitted).toBe(10_000 - 10);
    expect(b.text()).toBe("01234\n[… 9,990 characters of output left out here …]\n56789");
  });

  it("is the same however the stream is cut (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 40 }), { maxLength: 60 }),
        fc.nat(50),
        fc.nat(50),
        (chunks, head, tail) => {
          const b = new OutputBudget({ head, tail });
          for (const c of chunks) b.push(c);
          const all = chunks.join("");
          const kept = all.length <= head + tail ? all : all.slice(0, head) + all.slice(all.length - tail);
          const text = b.text();
          expect(text.replace(/\n\[… [\d,]+ characters of output left out here …\]\n/, "")).toBe(kept);
          expect(b.omitted).toBe(all.length - kept.length);
        },
      ),
      { seed: 31, numRuns: 300 },
    );
  });
});

describe("StreamRedactor", () => {
  const secrets = [{ name: "OPENAI_API_KEY", value: "sk-secret-value-123" }];

  it("redacts a value split across chunks, at every split", () => {
    const text = "before sk-secret-value-123 after sk-secret-value-123";
    for (let i = 0; i <= text.length; i++) {
      for (let j = i; j <= text.length; j += 7) {
        const r = new StreamRedactor(secrets);
        const out = r.push(text.slice(0, i)) + r.push(text.slice(i, j)) + r.push(text.slice(j)) + r.end();
        expect(out).toBe("before [OPENAI_API_KEY redacted] after [OPENAI_API_KEY redacted]");
      }
    }
  });

  it("passes text through untouched without secrets", () => {
    const r = new StreamRedactor([]);
    expect(r.push("abc") + r.end()).toBe("abc");
    expect(redact("abc", [])).toBe("abc");
  });
});
