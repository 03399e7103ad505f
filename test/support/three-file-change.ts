// One change across three files, as the apply_patch tests of each door send it: a.py and b.py
// updated, c.py added, in one `*** Begin Patch` envelope, and the model's turns that read the
// two files, send the envelope and then answer. Knows nothing of the door that runs it.
export const A_PY = "def f():\n    return 1\n";
export const B_PY = "B = 1\n";
export const C_PY = "c = 3\n";

export const THREE_FILE_ENVELOPE = [
  "*** Begin Patch",
  "*** Update File: a.py",
  "@@ def f():",
  "-    return 1",
  "+    return 2",
  "*** Update File: b.py",
  "@@",
  "-B = 1",
  "+B = 2",
  "*** Add File: c.py",
  "+c = 3",
  "*** End Patch",
].join("\n");

/** The model's turns: read a.py and b.py, send the envelope, then say `last`. */
export const threeFileTurns = (
  last: string,
): ({ calls: { name: string; args: Record<string, unknown> }[] } | { text: string[] })[] => [
  { calls: [{ name: "read_many_files", args: { file_paths: ["a.py", "b.py"] } }] },
  { calls: [{ name: "apply_patch", args: { input: THREE_FILE_ENVELOPE } }] },
  { text: [last] },
];
