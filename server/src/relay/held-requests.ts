// The editor's requests held while a restarted child initializes. Bounded in
// number and bytes: an editor that keeps asking meanwhile cannot grow lockstep
// without end; past the bound a request is answered at once instead.
export const MAX_HELD_REQUESTS = 1_000;
const MAX_HELD_BYTES = 16 * 1024 * 1024;

export class HeldRequests<T> {
  private items: T[] | undefined;
  private bytes = 0;

  /** A restart is under way: requests are held from now on. */
  get holding(): boolean {
    return this.items !== undefined;
  }

  get count(): number {
    return this.items?.length ?? 0;
  }

  start(): void {
    this.items = [];
    this.bytes = 0;
  }

  /** Keeps the request; false when the bound is reached (the caller answers it). */
  hold(item: T, bytes: number): boolean {
    if (!this.items || this.items.length >= MAX_HELD_REQUESTS || this.bytes + bytes > MAX_HELD_BYTES)
      return false;
    this.items.push(item);
    this.bytes += bytes;
    return true;
  }

  /** The child is up: what was held, in order; nothing is held any more. */
  release(): T[] {
    const items = this.items ?? [];
    this.items = undefined;
    this.bytes = 0;
    return items;
  }
}
