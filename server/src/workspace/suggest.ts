// "Did you mean …" ranking for a name that does not exist. Pure: the sandbox
// lists the directory, this only decides which entries look like the target.

/**
 * Up to `max` candidates that look like `target`, best first: a case-insensitive
 * exact match, then names starting with the target, then names containing it,
 * then names within a small edit distance. Anything further away is dropped, so
 * an empty answer means "nothing close", not "ask again".
 */
export function closestNames(target: string, candidates: readonly string[], max = 3): string[] {
  const wanted = target.toLowerCase();
  if (wanted === "" || max <= 0) return [];
  const limit = Math.max(1, Math.floor(wanted.length / 3));
  const ranked: { name: string; tier: number; distance: number }[] = [];
  for (const name of new Set(candidates)) {
    const lower = name.toLowerCase();
    // Capped at the length difference at least, so prefix and substring matches
    // (pure insertions) still get their exact distance for ordering within a tier.
    const distance = editDistance(wanted, lower, Math.max(limit, Math.abs(lower.length - wanted.length)));
    const tier =
      lower === wanted
        ? 0
        : lower.startsWith(wanted)
          ? 1
          : lower.includes(wanted)
            ? 2
            : distance <= limit
              ? 3
              : -1;
    if (tier >= 0) ranked.push({ name, tier, distance });
  }
  ranked.sort((a, b) => a.tier - b.tier || a.distance - b.distance || compareNames(a.name, b.name));
  return ranked.slice(0, max).map((r) => r.name);
}

/**
 * Levenshtein distance between `a` and `b`, computed with two rows. Stops early
 * once every cell of a row exceeds `cap` and then answers `cap + 1`, so ranking
 * a large directory against a short name stays cheap.
 */
export function editDistance(a: string, b: string, cap = Number.POSITIVE_INFINITY): number {
  // Optimal string alignment: a swap of two neighbouring letters ("scr" for "src") is one edit.
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, before[j - 2]! + 1);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > cap) return cap + 1;
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length]!;
}

/** Code-unit order: the same on every machine, unlike localeCompare. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
