// The file the safe_patch tests patch: three functions where `return a + b;` occurs twice, so
// only the context line places the hunk; its fixed form and the hunk that fixes it.
import { lines, makeWorkspace } from "../support/workspace-fixture.js";

// `return a + b;` occurs twice: only the context line places the hunk.
export const MATH = lines(
  "export function add(a: number, b: number): number {",
  "  return a + b;",
  "}",
  "",
  "export function sub(a: number, b: number): number {",
  "  return a - b;",
  "}",
  "",
  "export function mul(a: number, b: number): number {",
  "  return a + b;",
  "}",
);

export const FIXED = MATH.replace(
  "mul(a: number, b: number): number {\n  return a + b;",
  "mul(a: number, b: number): number {\n  return a * b;",
);

export const FIX_MUL_BODY = lines(
  " export function mul(a: number, b: number): number {",
  "-  return a + b;",
  "+  return a * b;",
  " }",
);

export const FILE = "src/math.ts";

export async function mathWorkspace(
  options: Parameters<typeof makeWorkspace>[1] = {},
): ReturnType<typeof makeWorkspace> {
  return makeWorkspace({ [FILE]: MATH, "src/other.ts": "export const other = 1;\n" }, options);
}
