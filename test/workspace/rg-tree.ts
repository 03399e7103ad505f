// The tree the ripgrep paths are compared on with the walker and the JavaScript
// search: nested .gitignore, .ignore and .rgignore (a re-include, a .ignore over a
// deeper .gitignore), nested repositories (a .git directory, a .git file), hidden
// files, node_modules and .git, links to a file and a directory, binary and
// non-UTF-8 files, files over 256 KB (located lines) and over 64 MB, CRLF, a long
// line, Unicode; and an editor holding some of its files with unsaved text.
import { promises as fs } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Sandbox } from "../../server/src/workspace/sandbox.js";
import { Workspace } from "../../server/src/workspace/workspace.js";
import { tempDir, writeTree, type FileTree } from "../support/workspace-fixture.js";

function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

const WORDS = ["Needle", "needle", "NEEDLE", "naïve needle", "\u212Aey", "key", "é😀", "plain", "a.b"];

function tree(): FileTree {
  const random = lcg(38);
  const t: FileTree = {
    ".gitignore": "*.log\nbuild/\n",
    ".ignore": "!deep/kept.tmp\n",
    "deep/.gitignore": "*.tmp\n",
    "d4/.rgignore": "f1*.txt\n",
    "deep/kept.tmp": "Needle kept by the root's .ignore\n",
    "deep/dropped.tmp": "Needle dropped\n",
    "repo/.git/HEAD": "Needle in a nested .git\n",
    "repo/x.log": "Needle in a nested repository's log\n",
    "repo/build/out.txt": "Needle in a nested repository's build\n",
    ".env": "needle in a hidden file\n",
    "keep.log": "needle ignored\n",
    "build/out.txt": "Needle ignored\n",
    "src/.gitignore": "gen*.ts\n",
    "src/.ignore": "!gen-keep.ts\n",
    "src/gen-drop.ts": "Needle dropped\n",
    "src/gen-keep.ts": "Needle kept\n",
    "node_modules/pkg/index.js": "Needle in node_modules\n",
    ".git/config": "needle in .git\n",
    "sub/.git": "gitdir: needle\n",
    "sub/y.log": "Needle in a worktree's log\n",
    "a/b.txt": "Needle a/b\n",
    "a.b": "Needle a.b\n",
    "nul-early.txt": Buffer.concat([Buffer.from("Needle\n"), Buffer.from([0])]),
    "nul-late.txt": Buffer.concat([Buffer.from("x\n".repeat(5000) + "Needle late\n"), Buffer.from([0, 10])]),
    "latin1.txt": Buffer.concat([Buffer.from("Needle latin1\n"), Buffer.from([0xe9, 10])]),
    "long.js": "a".repeat(5000) + " Needle " + "b".repeat(5000) + "\r\n",
    "open.txt": "on disk only, where the buffer holds needles\n",
    "crlf.txt": "Needle one\r\nneedle two\r\n\r\nNEEDLE three",
  };
  // Over 256 KB: their lines holding the required text are located by rg (rg-judge.ts), all of
  // them, or, past the most matches wanted, the file is searched whole.
  const filler = (n: number): string =>
    Array.from({ length: n }, (_, i) => `filler line ${i} ${"é".repeat(i % 5)} ${"x".repeat(40)}`).join("\n");
  t["big/located.txt"] = [
    "Needle on the first line\r",
    filler(9000),
    "needle and Needle, CRLF\r",
    filler(9000),
    "naïve needle near the end",
    "\u212Aey Needle with no final newline",
  ].join("\n");
  t["big/bom.txt"] = Buffer.concat([
    Buffer.from([0xef, 0xbb, 0xbf]),
    Buffer.from(`Needle after a BOM\n${filler(18000)}\nNeedle last\n`),
  ]);
  t["big/invalid-late.txt"] = Buffer.concat([
    Buffer.from(`Needle early\n${filler(18000)}\n`),
    Buffer.from([0xff, 10]),
  ]);
  t["big/many.txt"] =
    Array.from({ length: 30000 }, (_, i) =>
      i % 1000 === 7 ? `Needle ${i} key` : `line ${i} ${"y".repeat(30)}`,
    ).join("\n") + "\n";
  for (let d = 0; d < 5; d++) {
    for (let f = 0; f < 30; f++) {
      const lines = Array.from({ length: 1 + Math.floor(random() * 12) }, (_, n) => {
        const w = WORDS[Math.floor(random() * WORDS.length)]!;
        return random() < 0.5 ? `${w} ${d}-${f}-${n}` : `line ${n} é`;
      });
      t[`d${d}/f${String(f).padStart(2, "0")}.${f % 3 === 0 ? "ts" : "txt"}`] = lines.join("\n") + "\n";
    }
  }
  return t;
}

export async function setUp(): Promise<{ workspace: Workspace; root: string }> {
  const root = await fs.realpath(tempDir("lockstep-rg-"));
  await writeTree(root, tree());
  await fs.symlink(path.join(root, "a.b"), path.join(root, "link.txt"));
  await fs.symlink(path.join(root, "d0"), path.join(root, "linked-dir"));
  await fs.writeFile(path.join(root, "huge.txt"), "");
  await fs.truncate(path.join(root, "huge.txt"), 65 * 1024 * 1024);
  const buffers = new Map<string, string>([
    [pathToFileURL(path.join(root, "open.txt")).href, "unsaved Needle 1\nno match\nNeedle 2\n"],
    [pathToFileURL(path.join(root, "d1/f04.txt")).href, "nothing here\n"],
    // Open, but the walk leaves them out: their unsaved text is not searched either.
    [pathToFileURL(path.join(root, "keep.log")).href, "Needle in an ignored buffer\n"],
    [pathToFileURL(path.join(root, "d4/f10.txt")).href, "Needle in a buffer .rgignore leaves out\n"],
    [pathToFileURL(path.join(root, "node_modules/pkg/index.js")).href, "Needle open in node_modules\n"],
    // Open and walked: searched by its unsaved text.
    [pathToFileURL(path.join(root, "repo/x.log")).href, "unsaved Needle in a nested repository\n"],
  ]);
  const editor = {
    document: (uri: string) => {
      const text = buffers.get(uri);
      return text === undefined ? undefined : { version: 1, text };
    },
    documentUris: () => buffers.keys(),
    applyEdit: () => Promise.resolve({ applied: false }),
    canApplyEdit: false,
    createFiles: false,
  };
  return { workspace: new Workspace(await Sandbox.create([root]), { editor }), root };
}
