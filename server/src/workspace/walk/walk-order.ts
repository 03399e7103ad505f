// The walker's order for root-relative paths listed in any order: depth first,
// each directory's entries by name in code-unit order, files and directories
// alike (so "a/b" comes before "a.b", where plain string order puts it after).

/** Paths sorted in walk order: as strings whose separator sorts before any character a name can hold. */
export function walkOrder(paths: string[]): string[] {
  return paths
    .map((p) => p.replaceAll("/", "\0"))
    .sort()
    .map((k) => k.replaceAll("\0", "/"));
}
