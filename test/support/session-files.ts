// What the tests of session files share: a header record as lockstep writes it, and the oracle
// the list's summary (sessions/summary-fold.ts) is checked against: the whole parse a resume
// makes (parseSession), given the file without the lines the fold passes over unread
// (SKIPPED_HEADS: messages, blobs, shown diffs), and with the conversation and journal left out,
// as a summary has none. Lives with the tests: production reads a summary only through the fold.
import { parseSession, type ReadResult } from "../../server/src/sessions/session-reader.js";
import { SKIPPED_HEADS } from "../../server/src/sessions/summary-fold.js";

/** A session file's first line, format 1, for a project at /project. */
export const HEADER = {
  t: "session",
  format: 1,
  id: "20260101-000000-abcdef",
  root: "/project",
  provider: "replay",
  model: null,
  endpoint: null,
  started: "2026-01-01T00:00:00.000Z",
  title: "",
};

/**
 * Runs, turns, usage, files, time and notes as the whole parse reads them. The last line is always
 * parsed (a torn one is a note). Line numbers in a reason, and `completeBytes`, count kept lines only.
 */
export function parseSessionSummary(text: string): ReadResult {
  const lines = text.split("\n");
  const kept = lines.filter(
    (line, i) => i === lines.length - 1 || !SKIPPED_HEADS.some((head) => line.startsWith(head)),
  );
  const read = parseSession(kept.join("\n"));
  if (read.ok) {
    read.session.history = [];
    read.session.journal = [];
  }
  return read;
}
