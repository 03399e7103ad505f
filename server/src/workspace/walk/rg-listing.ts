// The walk as `rg --files --null` lists it, kept as rg's bytes: a tree of
// 16,000 files is one buffer, not 16,000 strings on the server's heap. Names are
// decoded (root-relative, without rg's "./") only when a search needs them: to
// filter by `include`, to find the open buffers among them, or to count the
// files up to where a truncated search stopped.

export class Listing {
  private constructor(
    private readonly bytes: Buffer,
    /** Files listed (those `include` keeps, when there is one). */
    readonly count: number,
    private decoded: string[] | undefined,
  ) {}

  static of(output: Buffer, include: ((rel: string) => boolean) | undefined): Listing {
    if (include !== undefined) {
      const kept = namesIn(output).filter(include);
      return new Listing(output, kept.length, kept);
    }
    let count = 0;
    for (let at = output.indexOf(0); at !== -1; at = output.indexOf(0, at + 1)) count++;
    return new Listing(output, count, undefined);
  }

  /** Whether a name ends in `/name` (rg names every file below "." or a directory). */
  holds(name: string): boolean {
    return this.bytes.includes(`/${name}\0`);
  }

  names(): string[] {
    this.decoded ??= namesIn(this.bytes);
    return this.decoded;
  }
}

function namesIn(output: Buffer): string[] {
  const names: string[] = [];
  let from = 0;
  for (let at = output.indexOf(0); at !== -1; from = at + 1, at = output.indexOf(0, from)) {
    const name = output.toString("utf8", from, at);
    names.push(name.startsWith("./") ? name.slice(2) : name);
  }
  return names;
}
