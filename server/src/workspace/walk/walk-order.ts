// The walker's order for root-relative paths listed in any order: depth first,
// each directory's entries by name in code-unit order, files and directories
// alike (so "a/b" comes before "a.b", where plain string order puts it after).

/** Below zero when `a` comes before `b` in walk order: code units, with the separator before any other. */
export function walkCompare(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x === 47) return -1;
    if (y === 47) return 1;
    return x - y;
  }
  return a.length - b.length;
}
