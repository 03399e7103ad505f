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
    private readonly kept: string[] | undefined,
  ) {}

  static of(output: Buffer, include: ((rel: string) => boolean) | undefined): Listing {
    if (include !== undefined) {
      const kept = [...namesIn(output)].filter(include);
      return new Listing(output, kept.length, kept);
    }
    let count = 0;
    for (let at = output.indexOf(0); at !== -1; at = output.indexOf(0, at + 1)) count++;
    return new Listing(output, count, undefined);
  }

  /** The names, decoded one at a time as they are asked for (none is kept: they die young). */
  names(): Iterable<string> {
    return this.kept ?? namesIn(this.bytes);
  }
}

function* namesIn(output: Buffer): Generator<string> {
  let from = 0;
  for (let at = output.indexOf(0); at !== -1; from = at + 1, at = output.indexOf(0, from)) {
    yield relOf(output.toString("utf8", from, at));
  }
}

/** A name as rg prints it, root-relative (rg names the files below "." as "./…"). */
export function relOf(name: string): string {
  return name.startsWith("./") ? name.slice(2) : name;
}
