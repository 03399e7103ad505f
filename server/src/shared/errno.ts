// A Node system error told apart by its code (ENOENT, EACCES, …), the one way every
// folder reads it: `"code" in error` written out each time drifted (a String() here, an
// `as NodeJS.ErrnoException` there).

/** The `code` of a Node system error (`ENOENT`, `EACCES`, …), if it is one. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}
