// The credential shapes the store, the transcript and the logs redact, as a table:
// each issuer's shape, inside prose and inside JSON text (after an escaped newline),
// and ordinary words of the same alphabet left alone.
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Transcript } from "../../server/src/agent/transcript.js";
import { redactTokens } from "../../server/src/sessions/secrets.js";

const X = "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";

describe("redactTokens", () => {
  it.each<[string, string, string]>([
    ["OpenAI", `key sk-${X}${X} here`, "key [redacted] here"],
    ["OpenAI project", `sk-proj-${X}${X}`, "[redacted]"],
    ["Anthropic", `sk-ant-api03-${X}${X}-AA`, "[redacted]"],
    ["Google", `AIzaSyA1234567890abcdefghijklmnopqrstuv.`, "[redacted]."],
    ["GitHub classic", `ghp_${X}1234`, "[redacted]"],
    ["GitHub OAuth", `gho_${X}1234`, "[redacted]"],
    ["GitHub fine-grained", `github_pat_11ABCDEFG0_${X}`, "[redacted]"],
    ["AWS", "id AKIAIOSFODNN7EXAMPLE,", "id [redacted],"],
    ["Slack", "xoxb-123456789012-abcdefghij", "[redacted]"],
    [
      "JWT",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
      "[redacted]",
    ],
    ["Bearer", "Authorization: Bearer abcdefghijklmnop.qrstuv", "Authorization: Bearer [redacted]"],
    ["after an escaped newline in JSON", JSON.stringify(`a\nsk-proj-${X}`), '"a\\n[redacted]"'],
    ["a kebab-case word", "risk-assessment-module-name", "risk-assessment-module-name"],
    ["a short sk- word", "sk-learn", "sk-learn"],
    ["a word ending in AKIA", "TAKIAIOSFODNN7EXAMPLE", "TAKIAIOSFODNN7EXAMPLE"],
  ])("%s", (_name, text, expected) => {
    expect(redactTokens(text)).toBe(expected);
  });

  it("the transcript, given the redaction (as the language server gives it), keeps none either", () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "lockstep-transcript-")), "t.md");
    const transcript = new Transcript(file, redactTokens);
    transcript.record(
      { job_id: "j", kind: "status", status: "running", prompt: `use ghp_${X}1234` },
      () => undefined,
    );
    transcript.record({ job_id: "j", kind: "text", text: `and sk-proj-${X}` }, () => undefined);
    const text = readFileSync(file, "utf8");
    expect(text).toContain("[redacted]");
    expect(text).not.toContain(X);
  });
});
