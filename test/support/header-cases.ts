// The headers models write on a diff for one file: generic names, git's a/ b/,
// before/after pairs, the right name in the wrong folder. Each names no file that
// is there, so the path the caller gives decides and the diff applies. Shared by
// the CLI and server tests, so the rule is checked where users meet it.
import { lines } from "./workspace-fixture.js";

export const UTIL = lines("def add(a, b):", "    return a + b", "", "", "def sub(a, b):", "    return a - b");
export const UTIL_FIXED = UTIL.replace("return a - b", "return a - b  # checked");

/** One hunk fixing UTIL, under the header lines given. */
export function utilDiff(oldHeader: string, newHeader: string): string {
  return lines(
    `--- ${oldHeader}`,
    `+++ ${newHeader}`,
    "@@ -4,3 +4,3 @@",
    " ",
    " def sub(a, b):",
    "-    return a - b",
    "+    return a - b  # checked",
  );
}

export interface HeaderCase {
  name: string;
  /** The file the caller names (holding UTIL). */
  target: string;
  oldHeader: string;
  newHeader: string;
}

export const HINT_HEADERS: HeaderCase[] = [
  { name: "original / modified", target: "f.txt", oldHeader: "original", newHeader: "modified" },
  { name: "a/file / b/file", target: "f.txt", oldHeader: "a/file", newHeader: "b/file" },
  { name: "before.c / after.c", target: "main.c", oldHeader: "before.c", newHeader: "after.c" },
  {
    name: "patched_before.java",
    target: "Main.java",
    oldHeader: "patched_before.java",
    newHeader: "patched_before.java",
  },
  {
    name: "the right name in the wrong folder",
    target: "src/util.py",
    oldHeader: "a/lib/util.py",
    newHeader: "b/lib/util.py",
  },
  {
    name: "timestamps after the names",
    target: "f.txt",
    oldHeader: "f.orig\t2024-01-01 10:00:00",
    newHeader: "f.new\t2024-01-01 10:01:00",
  },
];
