// What a command printed, held within a fixed budget whatever it prints: the first characters
// and the last, with the size of what was left out between them named. Memory stays about
// head + 2 × tail characters, for 1 KB of output or 1 GB.

export interface BudgetSizes {
  /** Characters kept from the start. */
  head: number;
  /** Characters kept from the end. */
  tail: number;
}

export const DEFAULT_BUDGET: BudgetSizes = { head: 10_000, tail: 20_000 };

export class OutputBudget {
  private head = "";
  private tail: string[] = [];
  private tailLength = 0;
  private total = 0;

  constructor(private readonly sizes: BudgetSizes = DEFAULT_BUDGET) {}

  push(text: string): void {
    if (text.length === 0) return;
    this.total += text.length;
    const room = this.sizes.head - this.head.length;
    if (room > 0) {
      this.head += text.slice(0, room);
      text = text.slice(room);
      if (text.length === 0) return;
    }
    this.tail.push(text);
    this.tailLength += text.length;
    // Compacted only once it holds twice the budget, so each character is copied a bounded number of times.
    if (this.tailLength > 2 * this.sizes.tail) this.compact();
  }

  /** Characters printed but not kept. */
  get omitted(): number {
    this.compact();
    return this.total - this.head.length - this.tailLength;
  }

  /** Head, the size of the middle left out, tail. */
  text(): string {
    return this.kept().text;
  }

  /**
   * The text and what it leaves out; with `edges`, the head's last and the tail's first partial
   * words at the cut are left out too (`token-shapes.ts`: a cut token is no longer recognisable).
   */
  kept(edges?: (head: string, tail: string) => { head: string; tail: string; dropped: number }): {
    text: string;
    omitted: number;
  } {
    let omitted = this.omitted;
    let [head, tail] = [this.head, this.tail.join("")];
    if (omitted === 0) return { text: head + tail, omitted };
    if (edges) {
      const trimmed = edges(head, tail);
      [head, tail, omitted] = [trimmed.head, trimmed.tail, omitted + trimmed.dropped];
    }
    const marker = `\n[… ${omitted.toLocaleString("en-US")} characters of output left out here …]\n`;
    return { text: head + marker + tail, omitted };
  }

  private compact(): void {
    if (this.tailLength <= this.sizes.tail) return;
    const all = this.tail.join("");
    const joined = all.slice(all.length - this.sizes.tail);
    this.tail = [joined];
    this.tailLength = joined.length;
  }
}

/**
 * Secret values replaced as text streams through, even when one is split across chunks: the last
 * characters that could begin a secret are held back until the next chunk (or the end) shows
 * whether they do.
 */
export class StreamRedactor {
  private held = "";
  private readonly keep: number;

  constructor(private readonly secrets: readonly { name: string; value: string }[]) {
    this.keep = Math.max(0, ...secrets.map((s) => s.value.length - 1));
  }

  push(text: string): string {
    if (this.secrets.length === 0) return text;
    const all = redact(this.held + text, this.secrets);
    const cut = Math.max(0, all.length - this.keep);
    this.held = all.slice(cut);
    return all.slice(0, cut);
  }

  end(): string {
    const rest = this.held;
    this.held = "";
    return rest;
  }
}

export function redact(text: string, secrets: readonly { name: string; value: string }[]): string {
  let out = text;
  for (const s of secrets) {
    if (out.includes(s.value)) out = out.split(s.value).join(`[${s.name} redacted]`);
  }
  return out;
}
