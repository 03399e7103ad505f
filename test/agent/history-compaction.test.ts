// One copy of each file in the history: older states of a file become a marker
// naming the newer version and sha256, wherever they sit in the conversation.
import { describe, expect, it } from "vitest";
import { compactFileStates, supersededMarker } from "../../server/src/agent/history-compaction.js";
import type { Message } from "../../server/src/agent/model.js";

const state = (file_path: string, sha256: string, content: string, extra: Record<string, unknown> = {}) => ({
  file_path,
  uri: `file:///w/${file_path}`,
  version: null,
  sha256,
  content,
  open: false,
  ...extra,
});

const response = (name: string, data: Record<string, unknown>, ok = true): Message => ({
  role: "user",
  parts: [
    {
      functionResponse: {
        name,
        response: ok
          ? { ok: true, data }
          : {
              ok: false,
              error: { code: "state_mismatch", message: "State Mismatch", suggestions: [] },
              data,
            },
      },
    },
  ],
});

function contents(history: Message[]): string[] {
  return JSON.stringify(history).match(/"content\\?":\\?"(?:[^"\\]|\\.)*?\\?"/g) ?? [];
}

describe("compactFileStates", () => {
  it("keeps the newest state of a file in full and marks every older one, across reads, writes and mismatches", () => {
    const v1 = state("a.ts", "1".repeat(64), "one\n");
    const v2 = state("a.ts", "2".repeat(64), "two\n");
    const v3 = state("a.ts", "3".repeat(64), "three\n");
    const history: Message[] = [
      { role: "user", parts: [{ text: "fix a.ts" }] },
      response("read_file", v1),
      response("safe_patch", { message: "Patch applied successfully.", latest_file_state: v2 }),
      response("edit", { latest_file_state: v3 }, false),
    ];
    const original = JSON.stringify(history);
    const frozen = history.slice();

    expect(compactFileStates(history)).toBe(2);

    const text = JSON.stringify(history);
    expect(text).toContain('"content":"three\\n"');
    expect(text).not.toContain('"content":"one\\n"');
    expect(text).not.toContain('"content":"two\\n"');
    expect(text.split(supersededMarker("a.ts", v3)).length - 1).toBe(2);
    // The messages that were replaced are new objects; the old ones are untouched.
    expect(JSON.stringify(frozen)).toBe(original);
    expect(compactFileStates(history)).toBe(0);
  });

  it("marks a mentioned file's state written in the prompt's text, and only the older of two equal mentions", () => {
    const v1 = state("b.ts", "1".repeat(64), "bee\n");
    const prompt = (words: string): Message => ({
      role: "user",
      parts: [{ text: `${words}\n\nFiles mentioned above:\n${JSON.stringify(v1)}` }],
    });
    const history: Message[] = [
      prompt("look at @b.ts"),
      { role: "assistant", parts: [{ text: "ok" }] },
      prompt("again @b.ts"),
    ];

    compactFileStates(history);

    expect((history[0]!.parts[0] as { text: string }).text).toContain("[superseded:");
    expect((history[2]!.parts[0] as { text: string }).text).toContain(JSON.stringify(v1));
  });

  it("keeps a full state when a later ranged read of the same sha256 shows only part of it; a changed file supersedes both", () => {
    const full = state("c.ts", "1".repeat(64), "l1\nl2\nl3\n");
    const part = state("c.ts", "1".repeat(64), "l2\n", {
      start_line: 2,
      end_line: 2,
      total_lines: 3,
      truncated: true,
    });
    const history: Message[] = [response("read_file", full), response("read_file", part)];
    expect(compactFileStates(history)).toBe(0);

    history.push(
      response("safe_patch", { latest_file_state: state("c.ts", "2".repeat(64), "l1\nL2\nl3\n") }),
    );
    expect(compactFileStates(history)).toBe(2);
    expect(contents(history).filter((c) => c.includes("superseded"))).toHaveLength(2);
  });

  it("marks files inside read_many_files answers one by one, leaving other files alone", () => {
    const history: Message[] = [
      response("read_many_files", {
        files: [state("x.ts", "1".repeat(64), "x1\n"), state("y.ts", "1".repeat(64), "y1\n")],
        errors: [],
      }),
      response("write_file", { latest_file_state: state("x.ts", "2".repeat(64), "x2\n") }),
    ];
    compactFileStates(history);
    const text = JSON.stringify(history);
    expect(text).toContain('"content":"y1\\n"');
    expect(text).toContain('"content":"x2\\n"');
    expect(text).not.toContain('"content":"x1\\n"');
  });
});
