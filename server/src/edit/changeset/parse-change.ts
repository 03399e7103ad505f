// Which spelling a change came in, read into the one change model.
import { succeed, type Outcome } from "../../shared/outcome.js";
import type { ChangeSet } from "./change.js";
import { hasEnvelope, parseEnvelope } from "./envelope-parse.js";
import { parseMultiFileDiff } from "./multi-diff.js";

/** An `apply_patch` envelope where the text holds one, else a unified diff across files. */
export function parseChange(text: string): Outcome<ChangeSet> {
  if (hasEnvelope(text)) {
    const ops = parseEnvelope(text);
    return ops.ok ? succeed({ format: "apply_patch", operations: ops.value }) : ops;
  }
  const ops = parseMultiFileDiff(text);
  return ops.ok ? succeed({ format: "unified", operations: ops.value }) : ops;
}
