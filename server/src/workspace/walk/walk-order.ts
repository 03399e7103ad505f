// The walker's order for root-relative paths listed in any order: depth first,
// each directory's entries by name in code-unit order, files and directories
// alike (so "a/b" comes before "a.b", where plain string order puts it after).

/** Compares two `/`-separated root-relative paths as the walker would meet them. */
export function compareWalkOrder(a: string, b: string): number {
  let i = 0;
  for (;;) {
    const endA = a.indexOf("/", i);
    const endB = b.indexOf("/", i);
    const nameA = endA === -1 ? a.slice(i) : a.slice(i, endA);
    const nameB = endB === -1 ? b.slice(i) : b.slice(i, endB);
    if (nameA !== nameB) return nameA < nameB ? -1 : 1;
    if (endA === -1 || endB === -1) return endA === endB ? 0 : endA === -1 ? -1 : 1;
    if (endA !== endB) return endA < endB ? -1 : 1;
    i = endA + 1;
  }
}
