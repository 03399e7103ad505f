// What the test client received and the waits on it: every notification and every request
// the server sent is recorded in order, and a wait is woken by each arrival (after the handler
// has answered), never by a timer; a wait that never ends fails naming what it waited for and
// what came instead. Knows nothing of LSP's methods, buffers or the server's process.

export interface RequestRecord {
  method: string;
  params: unknown;
  result?: unknown;
  error?: string;
}

export interface Message {
  method: string;
  params: unknown;
}

/**
 * How long a wait for the server gives it by default: it answers in milliseconds, but CI runs on a loaded
 * 2-core machine; a wait that never ends fails all the same, naming what it waited for.
 */
export const WAIT_MS = 15_000;

export function withTimeout<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what()}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class Inbox {
  private readonly waiters: (() => void)[] = [];

  received<T extends { method: string }>(list: T[], entry: T): void {
    list.push(entry);
    // Waiters run after the current handler has answered, so a reply is on the wire before the test goes on.
    setImmediate(() => {
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  waitFor<T extends { method: string; params: unknown }>(
    list: T[],
    method: string,
    predicate: (params: unknown) => boolean,
    timeoutMs: number,
    from: number,
    what: string,
  ): Promise<T> {
    const find = (): T | undefined =>
      list.slice(from).find((m) => m.method === method && predicate(m.params));
    const found = new Promise<T>((resolve) => {
      const check = (): void => {
        const hit = find();
        if (hit) resolve(hit);
        else this.waiters.push(check);
      };
      check();
    });
    return withTimeout(
      found,
      timeoutMs,
      () => `the ${what} ${method}; received: ${list.map((m) => m.method).join(", ") || "nothing"}`,
    );
  }
}
