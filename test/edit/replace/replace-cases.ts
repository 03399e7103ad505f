// What the replace tests share: text written as lines, and replaceInText run
// expecting a success (its result) or a failure with a given code (its error).
import { expect } from "vitest";
import type { ErrorCode } from "../../../server/src/shared/outcome.js";
import { replaceInText, type ReplaceRequest } from "../../../server/src/edit/replace/replace.js";

/** A file: every line followed by `\n`. */
export const file = (...lines: string[]): string => lines.map((line) => `${line}\n`).join("");
/** A snippet: lines joined by `\n`, no final line break. */
export const block = (...lines: string[]): string => lines.join("\n");

export function apply(before: string, request: ReplaceRequest) {
  const outcome = replaceInText(before, request);
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value;
}

export function failure(before: string, request: ReplaceRequest, code: ErrorCode) {
  const outcome = replaceInText(before, request);
  if (outcome.ok) throw new Error(`expected ${code}, got success: ${JSON.stringify(outcome.value.content)}`);
  expect(outcome.error.code).toBe(code);
  return outcome.error;
}
