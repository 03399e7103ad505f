// Edits lockstep delivered to the editor that it has not reported back with a
// didChange yet: what a read serves meanwhile, and for how long the claim stands.

/** A claim unconfirmed for this many pending waits is dropped: reads show the editor's own report again. */
const UNCONFIRMED_EXPIRY_FACTOR = 3;

/** Text we delivered that the editor has not reported back yet. */
export interface Pending {
  text: string;
  /** When the editor claimed it applied the edit (ms, performance.now). */
  at: number;
  /** The text the edit was computed on. */
  base: string;
  /** Buffer version the edit was based on; `null` for a file that was not open. */
  baseVersion: number | null;
  settled: Promise<void>;
  settle: () => void;
}

/** The editor's unreported edits by file URI. */
export class PendingEdits {
  private readonly claims = new Map<string, Pending>();

  /** `waitMs`: how long a second edit waits for the editor to report the first. */
  constructor(private readonly waitMs: number) {}

  get(uri: string): Pending | undefined {
    return this.claims.get(uri);
  }

  uris(): IterableIterator<string> {
    return this.claims.keys();
  }

  has(uri: string): boolean {
    return this.claims.has(uri);
  }

  /** The editor claimed it applied an edit giving `text`, computed on `base` (at `baseVersion`). */
  claim(uri: string, edit: { text: string; base: string; baseVersion: number | null }): void {
    let settle = (): void => undefined;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    this.claims.set(uri, { ...edit, at: performance.now(), settled, settle });
  }

  /**
   * An editor's claim that it applied an edit, never confirmed by a didChange
   * long after it should have come: it no longer stands for the buffer.
   */
  expired(p: Pending): boolean {
    return performance.now() - p.at > UNCONFIRMED_EXPIRY_FACTOR * this.waitMs;
  }

  /** The editor reported the file (or the claim is dropped): a read shows its report again. */
  settle(uri: string): void {
    const p = this.claims.get(uri);
    if (!p) return;
    this.claims.delete(uri);
    p.settle();
  }
}

export function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
