// Which commands an "always allow" covers. A prefix is a simple command's program and its first
// argument (`npm test`, `git status`, `cargo build`, `ls -la`), with any `NAME=value` in front;
// a rule covers a simple command whose prefix is the rule, word for word, so allowing `git
// status` does not allow `git push`, and allowing `npm test` does not allow `npm publish`. A
// line of several commands is covered only when every one of them is. Whatever can hide what
// runs (a substitution, a redirection to a file, `&`, `eval`, a program that runs the command
// it is given, a variable in the first two words) is never covered and never remembered.
import { readCommandLine, type CommandLine, type SimpleCommand } from "./command-line.js";

/** Programs whose arguments are another command: allowing them would allow anything. */
const RUNS_ANOTHER = new Set([
  "eval",
  "exec",
  "source",
  ".",
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "fish",
  "csh",
  "tcsh",
  "env",
  "sudo",
  "doas",
  "su",
  "xargs",
  "nohup",
  "nice",
  "timeout",
  "command",
  "builtin",
  "setsid",
  "time",
  "stdbuf",
  "chroot",
  "unshare",
  "nsenter",
  "flock",
  "parallel",
  "watch",
  "script",
  "trap",
  "busybox",
]);

/** find's actions that run or delete. */
const FIND_ACTIONS = new Set(["-exec", "-execdir", "-ok", "-okdir", "-delete"]);

/**
 * git subcommands that only read the repository. Any other (or a git whose first argument is an
 * option, `git -C dir push`) may write `.git/`, which the sandbox keeps read-only.
 */
const GIT_READS = new Set([
  "status",
  "diff",
  "log",
  "show",
  "blame",
  "grep",
  "ls-files",
  "ls-tree",
  "rev-parse",
  "rev-list",
  "describe",
  "shortlog",
  "cat-file",
  "show-ref",
  "for-each-ref",
  "whatchanged",
  "version",
  "help",
  "count-objects",
  "check-ignore",
  "merge-base",
  "name-rev",
  "cherry",
  "diff-tree",
  "diff-files",
  "diff-index",
  "var",
]);

export interface CommandReview {
  line: CommandLine;
  /** Why this command is asked about whatever was allowed before; empty when rules may cover it. */
  askReasons: string[];
  /** Each simple command's prefix: what "always" remembers. Empty when `askReasons` is not. */
  prefixes: string[];
  /** A git command that may write `.git/`: it runs outside the sandbox, is asked, never remembered. */
  writesGit: boolean;
}

/** A command line judged for approval. Never throws. */
export function reviewCommand(text: string): CommandReview {
  const line = readCommandLine(text);
  if (line.kind === "unparsable") {
    return { line, askReasons: [`it could not be read: ${line.reason}`], prefixes: [], writesGit: false };
  }
  const reasons = new Set(line.hazards);
  for (const part of line.parts) for (const r of partHazards(part)) reasons.add(r);
  const writesGit = line.parts.some(writesDotGit);
  const askReasons = [...reasons];
  const prefixes = askReasons.length > 0 ? [] : unique(line.parts.map((p) => prefixOf(p) ?? ""));
  return { line, askReasons, prefixes, writesGit };
}

/** Whether rules the user gave (session or settings) cover the whole line. */
export function coveredBy(review: CommandReview, allowed: ReadonlySet<string>): boolean {
  if (review.askReasons.length > 0 || review.writesGit || review.prefixes.length === 0) return false;
  return review.prefixes.every((p) => allowed.has(p));
}

/** The rule an `allowedCommands` entry stands for, or why it cannot stand for one. */
export function ruleOf(entry: string): { rule: string } | { error: string } {
  const line = readCommandLine(entry);
  if (line.kind === "unparsable") return { error: `"${entry}" cannot be read as a command: ${line.reason}` };
  const [part, ...rest] = line.parts;
  if (part === undefined || rest.length > 0 || line.hazards.length > 0) {
    return { error: `"${entry}" must be one program and at most one argument, such as "npm test"` };
  }
  const prefix = prefixOf(part);
  if (prefix === undefined || part.words.length > 2) {
    return { error: `"${entry}" must be one program and at most one argument, such as "npm test"` };
  }
  return { rule: prefix };
}

/** The program and its first argument, written back as shell words; undefined when not literal. */
export function prefixOf(part: SimpleCommand): string | undefined {
  const head = part.words.slice(0, 2);
  if (head.length === 0 || head.some((w) => !w.literal)) return undefined;
  return [...part.assignments, ...head.map((w) => w.text)].map(shellWord).join(" ");
}

/** A word as a shell reads it back: bare when plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

function partHazards(part: SimpleCommand): string[] {
  const [program, ...args] = part.words;
  if (program === undefined) return [];
  if (!program.literal) return ["a program named by a variable or a pattern"];
  const out: string[] = [];
  const name = basename(program.text);
  if (RUNS_ANOTHER.has(name)) out.push(name === "eval" ? "eval" : `${name} runs the command it is given`);
  if (name === "find" && args.some((a) => FIND_ACTIONS.has(a.text)))
    out.push("find with an action that runs or deletes");
  if (args[0] !== undefined && !args[0].literal) out.push("a first argument that is a variable or a pattern");
  return out;
}

function writesDotGit(part: SimpleCommand): boolean {
  const [program, sub] = part.words;
  if (program === undefined || basename(program.text) !== "git") return false;
  return sub === undefined ? false : !GIT_READS.has(sub.text);
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}
