// A unified diff across files, as `git diff` and `diff -ru` write it, cut into
// one section per file. Each section keeps its own text (the patch engine reads
// it leniently, with its `index` line); this reader only decides what the
// section does: change, create, delete or rename a file.
import { fail, succeed, type Outcome } from "../../shared/outcome.js";
import type { FileOperation, PathRef } from "./change.js";

const HUNK_HEADER = /^@@+ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

interface Section {
  start: number;
  lines: string[];
  git: boolean;
}

/** A path from a header line: timestamps and quotes dropped; `/dev/null` is none. */
function headerPath(raw: string): string | undefined {
  let p = raw.split("\t")[0]!.trim();
  if (p.startsWith('"') && p.endsWith('"') && p.length > 1) p = p.slice(1, -1).replace(/\\(.)/g, "$1");
  // `diff -u` without tabs writes "path  2024-01-01 10:00:00.000 +0000".
  p = p.replace(/\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? [+-]\d{4}$/, "");
  return p === "/dev/null" || p === "" ? undefined : p;
}

function ref(raw: string, git: boolean): PathRef {
  if (git && /^[ab]\//.test(raw)) return { path: raw.slice(2) };
  if (git) return { path: raw };
  const slash = raw.indexOf("/");
  return slash > 0 ? { path: raw, stripped: raw.slice(slash + 1) } : { path: raw };
}

/** `diff --git a/x b/y`: both paths, read where the halves agree when names hold spaces. */
function gitLinePaths(line: string): [string, string] | undefined {
  const rest = line.slice("diff --git ".length);
  const m = /^"?a\/(.*?)"? "?b\/(.*?)"?$/.exec(rest);
  if (!m) return undefined;
  // With spaces in names the split is ambiguous: prefer the one where both halves are equal.
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest.slice(2, half) === rest.slice(half + 3))
    return [rest.slice(2, half), rest.slice(half + 3)];
  return [m[1]!, m[2]!];
}

/** `diff --git a/x b/x`, or the command line `diff -ru old/x new/x` that `diff -r` writes before each file. */
function isStart(line: string): boolean {
  return line.startsWith("diff --git ") || /^diff( -{1,2}[A-Za-z][^ ]*)+ \S+ \S+$/.test(line);
}

/** Cuts the text into per-file sections, walking each hunk by its counts so a removed `-- x` line is never read as a header. */
function sections(lines: string[]): Section[] {
  const out: Section[] = [];
  let current: Section | undefined;
  let oldLeft = 0;
  let newLeft = 0;
  let sawHunk = false;
  const open = (i: number, git: boolean): void => {
    current = { start: i, lines: [], git };
    out.push(current);
    oldLeft = newLeft = 0;
    sawHunk = false;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const inHunk = oldLeft > 0 || newLeft > 0;
    if (
      inHunk &&
      (line.startsWith(" ") ||
        line === "" ||
        line.startsWith("-") ||
        line.startsWith("+") ||
        line.startsWith("\\"))
    ) {
      if (!line.startsWith("\\")) {
        if (line.startsWith("-")) oldLeft--;
        else if (line.startsWith("+")) newLeft--;
        else {
          oldLeft--;
          newLeft--;
        }
      }
      current!.lines.push(line);
      continue;
    }
    if (isStart(line)) {
      open(i, line.startsWith("diff --git "));
      current!.lines.push(line);
      continue;
    }
    if (line.startsWith("--- ") && lines[i + 1]?.startsWith("+++ ") && (current === undefined || sawHunk)) {
      open(i, current?.git ?? false);
    }
    if (line.startsWith("@@") && current) {
      // Counted headers are walked line by line; a bare `@@ @@` (a model's) is read leniently by the engine.
      const header = HUNK_HEADER.exec(line);
      oldLeft = header ? (header[2] === undefined ? 1 : Number(header[2])) : 0;
      newLeft = header ? (header[4] === undefined ? 1 : Number(header[4])) : 0;
      sawHunk = true;
    }
    current?.lines.push(line);
  }
  return out;
}

/** What a section does, with the text the patch engine reads for it. */
function operationOf(section: Section, texts: string[]): Outcome<FileOperation> {
  const lines = section.lines;
  const line = section.start + 1;
  const git =
    section.git || lines.some((l) => /^--- a\//.test(l)) || lines.some((l) => /^\+\+\+ b\//.test(l));
  let oldRaw: string | undefined;
  let newRaw: string | undefined;
  let oldNull = false;
  let newNull = false;
  let renameFrom: string | undefined;
  let renameTo: string | undefined;
  let newMode = false;
  let deletedMode = false;
  let hunks = 0;
  const headers = [...lines];
  for (let i = 0; i < headers.length; i++) {
    const l = headers[i]!;
    if (l.startsWith("@@")) {
      // A header the engine cannot read would leave its hunk's lines out: refused, not dropped.
      if (!HUNK_HEADER.test(l) && !/^@@+\s*(@@+.*)?$/.test(l)) {
        return fail(
          "invalid_diff",
          `Invalid Diff: \`${l.slice(0, 80)}\` (line ${section.start + i + 1}) is not a hunk header; nothing was applied.`,
          ["Write each hunk header as `@@ -OLD,COUNT +NEW,COUNT @@`, or `@@ @@` without numbers."],
        );
      }
      hunks++;
      continue;
    }
    if (hunks > 0) continue;
    if (l.startsWith("--- ") && headers[i + 1]?.startsWith("+++ ")) {
      oldRaw = headerPath(l.slice(4));
      newRaw = headerPath(headers[i + 1]!.slice(4));
      oldNull = oldRaw === undefined;
      newNull = newRaw === undefined;
      i++;
    } else if (l.startsWith("rename from ")) renameFrom = l.slice("rename from ".length);
    else if (l.startsWith("rename to ")) renameTo = l.slice("rename to ".length);
    else if (l.startsWith("new file mode")) newMode = true;
    else if (l.startsWith("deleted file mode")) deletedMode = true;
    else if (l.startsWith("copy from ") || l.startsWith("copy to ")) {
      return fail(
        "invalid_diff",
        `Invalid Diff: the section at line ${line} copies a file (\`copy from\`/\`copy to\`), which lockstep does not apply.`,
        ["Send the copy as a new file (`--- /dev/null`, `+++ b/PATH` with every line added)."],
      );
    } else if (l.startsWith("Binary files ") || l === "GIT binary patch") {
      return fail(
        "invalid_diff",
        `Invalid Diff: the section at line ${line} is a binary change, which a text diff cannot carry.`,
        ["Leave binary files out of the diff."],
      );
    }
  }
  const fromGitLine = lines[0]?.startsWith("diff --git ") ? gitLinePaths(lines[0]) : undefined;
  const oldName = renameFrom ?? (oldRaw !== undefined ? ref(oldRaw, git).path : fromGitLine?.[0]);
  const newName = renameTo ?? (newRaw !== undefined ? ref(newRaw, git).path : fromGitLine?.[1]);
  const text = texts.join("\n") + "\n";
  const body = hunks > 0 ? { kind: "diff" as const, text } : null;
  const named = (raw: string | undefined, name: string | undefined): PathRef | undefined =>
    renameFrom !== undefined || renameTo !== undefined || raw === undefined
      ? name !== undefined
        ? { path: name }
        : undefined
      : ref(raw, git);

  // A plain diff -N marks a file that is not there by the epoch and a `-0,0` hunk.
  const soleHunk = lines.map((l) => HUNK_HEADER.exec(l)).filter((m) => m !== null);
  const createsByHunk = !git && soleHunk.length === 1 && soleHunk[0]![1] === "0" && soleHunk[0]![2] === "0";
  const deletesByHunk = !git && soleHunk.length === 1 && soleHunk[0]![3] === "0" && soleHunk[0]![4] === "0";
  if (newMode || oldNull || createsByHunk) {
    const path = named(newRaw, newName);
    if (!path)
      return fail(
        "invalid_diff",
        `Invalid Diff: the section at line ${line} creates a file but names none.`,
        ["Head it with `+++ b/PATH`."],
      );
    return succeed({ op: "add", path, content: body ? { diff: text } : "", line });
  }
  if (deletedMode || newNull || deletesByHunk) {
    const path = named(oldRaw, oldName);
    if (!path)
      return fail(
        "invalid_diff",
        `Invalid Diff: the section at line ${line} deletes a file but names none.`,
        ["Head it with `--- a/PATH`."],
      );
    return succeed({ op: "delete", path, ...(body ? { diff: text } : {}), line });
  }
  const from = named(oldRaw, oldName) ?? named(newRaw, newName);
  if (!from)
    return fail("invalid_diff", `Invalid Diff: the section at line ${line} names no file.`, [
      "Head each file's section with `--- a/PATH` and `+++ b/PATH`.",
    ]);
  const to = renameTo !== undefined ? { path: renameTo } : undefined;
  if (!body && !to)
    return fail("invalid_diff", `Invalid Diff: the section for ${from.path} (line ${line}) has no hunks.`, [
      "Give it `@@` hunks, or leave it out.",
    ]);
  return succeed({ op: "update", path: from, ...(to ? { moveTo: to } : {}), body, line });
}

/**
 * Reads every file section. A section the reader cannot apply (a copy, a
 * binary change, no path) refuses the whole diff, naming it: nothing is dropped.
 */
export function parseMultiFileDiff(text: string): Outcome<FileOperation[]> {
  const lines = text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  if (lines[lines.length - 1] === "") lines.pop();
  const found = sections(lines);
  if (found.length === 0) {
    return fail(
      "invalid_diff",
      "Invalid Diff: no file sections found; a diff across files has a `diff --git` line or `---`/`+++` header pair per file.",
      ["Send `git diff` output, or head each file's hunks with `--- a/PATH` and `+++ b/PATH`."],
    );
  }
  const only = lines.find((l) => l.startsWith("Only in "));
  if (only !== undefined) {
    return fail(
      "invalid_diff",
      `Invalid Diff: the diff says \`${only}\` without that file's content, so it cannot be created or deleted from it.`,
      ["Make the diff with `diff -ruN` (or `git diff`), which writes new and removed files in full."],
    );
  }
  const ops: FileOperation[] = [];
  for (const s of found) {
    // A `diff` line of prose, or a section with nothing in it, carries no change.
    if (
      !s.lines.some(
        (l) =>
          l.startsWith("--- ") ||
          l.startsWith("@@") ||
          /^(rename|new file|deleted file|copy|Binary|GIT binary)/.test(l),
      )
    )
      continue;
    const op = operationOf(s, s.lines);
    if (!op.ok) return op;
    ops.push(op.value);
  }
  return succeed(ops);
}
