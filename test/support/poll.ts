// Waiting on what no event announces (a file appears, a process ends, a count reaches a
// number): the condition polled, with a bound generous for a loaded 2-core machine, and a
// failure that names what never happened. Wait on an event instead whenever there is one.

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once `check` holds (it may ask something: a command, a request); rejects after
 * `timeoutMs` with "timed out waiting for `what`" (a function: said as it stands then).
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string | (() => string),
  timeoutMs = 15_000,
): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > end)
      throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`);
    await sleep(20);
  }
}
