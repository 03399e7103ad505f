// A shell command line read into the simple commands it runs, and what in it must always be
// asked about. Reading only: nothing here runs anything. `shell-quote` splits the words and
// operators; a small scan of the raw text first catches what it lets through quietly (an
// unterminated quote, backticks, `$(` inside double quotes, several lines). When in doubt the
// answer is a hazard or "unparsable", both of which mean: ask the user.
import { parse } from "shell-quote";

/** One word of a simple command; `literal` false for a variable or a glob (its value is unknown). */
export interface Word {
  text: string;
  literal: boolean;
}

/** One simple command of a line (`npm test` in `npm test && npm run lint`). */
export interface SimpleCommand {
  /** Leading `NAME=value` words, which change what the program does. */
  assignments: string[];
  /** The program and its arguments; empty for a part that only assigns variables. */
  words: Word[];
}

export type CommandLine =
  | { kind: "parsed"; parts: SimpleCommand[]; hazards: string[] }
  | { kind: "unparsable"; reason: string };

/** Operators between simple commands; each side is judged on its own. */
const SEPARATORS = new Set(["&&", "||", ";", "|", "|&"]);
/** Operators that write to what follows them (unless it is /dev/null or a descriptor). */
const OUTPUT_REDIRECTS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);
/** Operators that only duplicate or close a descriptor when followed by a number or `-`. */
const DUPLICATIONS = new Set([">&", "<&"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

type Token = ReturnType<typeof tokens>[number];

/** A command line read for approval. Never throws. */
export function readCommandLine(text: string): CommandLine {
  const scan = scanQuoting(text);
  if (scan.unterminated) return { kind: "unparsable", reason: `an unterminated ${scan.unterminated}` };
  let list: Token[];
  try {
    list = tokens(text);
  } catch (e) {
    return {
      kind: "unparsable",
      reason: `the shell syntax could not be read (${e instanceof Error ? e.message : String(e)})`,
    };
  }
  const hazards = new Set(scan.hazards);
  const parts: SimpleCommand[] = [];
  let current: Word[] = [];
  const flush = (): void => {
    if (current.length > 0) parts.push(splitAssignments(current));
    current = [];
  };
  for (let i = 0; i < list.length; i++) {
    const t = list[i]!;
    if (typeof t === "string") current.push({ text: t, literal: true });
    else if ("comment" in t) continue;
    else if ("var" in t) {
      const next = list[i + 1];
      if (t.var === "" && isOp(next, "(")) {
        hazards.add("command substitution");
        i = closingParen(list, i + 1);
      } else current.push({ text: t.var === "" ? "$" : `$${t.var}`, literal: t.var === "" });
    } else if (t.op === "glob") current.push({ text: t.pattern, literal: false });
    else if (SEPARATORS.has(t.op)) flush();
    else if (t.op === "&") {
      hazards.add("a command run in the background (&)");
      flush();
    } else if (OUTPUT_REDIRECTS.has(t.op) || DUPLICATIONS.has(t.op)) {
      dropDescriptorNumber(current);
      const target = list[i + 1];
      const name = typeof target === "string" ? target : undefined;
      if (name !== undefined) i++;
      const harmless = DUPLICATIONS.has(t.op)
        ? name !== undefined && /^(\d+|-)$/.test(name)
        : name === "/dev/null";
      if (!harmless) hazards.add("redirection to a file");
    } else if (t.op === "<") {
      // Reading a file is no more than the command could do by naming it.
      dropDescriptorNumber(current);
      if (typeof list[i + 1] === "string") i++;
    } else if (t.op === "<(" || t.op === ">(") {
      hazards.add("process substitution");
      i = closingParen(list, i);
    } else if (t.op === "<<" || t.op === "<<-" || t.op === "<<<") hazards.add("a here-document");
    else if (t.op === "(" || t.op === ")") hazards.add("a subshell");
    else hazards.add(`the shell operator ${t.op}`);
  }
  flush();
  for (const p of parts) {
    if (p.words.length === 0) hazards.add("a shell variable set for the commands after it");
  }
  if (parts.length === 0) return { kind: "unparsable", reason: "no command in it" };
  return { kind: "parsed", parts, hazards: [...hazards] };
}

function tokens(text: string) {
  // A variable comes back as an object, so it stays apart from the literal words around it.
  return parse<{ var: string }>(text, (name) => ({ var: name }));
}

/** The index of the `)` that closes the parenthesis opened at `open` (the last token when none does). */
function closingParen(list: readonly Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < list.length; i++) {
    const t = list[i]!;
    if (typeof t !== "object" || !("op" in t)) continue;
    if (t.op === "(" || t.op === "<(" || t.op === ">(") depth++;
    else if (t.op === ")" && --depth === 0) return i;
  }
  return list.length - 1;
}

function isOp(t: Token | undefined, op: string): boolean {
  return t !== undefined && typeof t === "object" && "op" in t && t.op === op;
}

/** `2>&1` reads as the word `2` before the operator: it is the descriptor, not an argument. */
function dropDescriptorNumber(words: Word[]): void {
  const last = words[words.length - 1];
  if (words.length > 1 && last !== undefined && last.literal && /^\d+$/.test(last.text)) words.pop();
}

function splitAssignments(words: Word[]): SimpleCommand {
  let i = 0;
  while (i < words.length && words[i]!.literal && ASSIGNMENT.test(words[i]!.text)) i++;
  return { assignments: words.slice(0, i).map((w) => w.text), words: words.slice(i) };
}

interface QuotingScan {
  unterminated?: "single quote" | "double quote" | "backslash";
  hazards: string[];
}

/** What the raw text shows that the word splitter hides: quoting left open, substitutions, new lines. */
export function scanQuoting(text: string): QuotingScan {
  const hazards = new Set<string>();
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      continue;
    }
    if (c === "\\") {
      if (i + 1 >= text.length) return { unterminated: "backslash", hazards: [...hazards] };
      if (text[i + 1] === "\n") hazards.add("several lines");
      i++;
      continue;
    }
    if (c === "`") hazards.add("command substitution");
    else if (c === "$" && text[i + 1] === "(") hazards.add("command substitution");
    else if (c === '"') quote = quote === '"' ? undefined : '"';
    else if (c === "'" && quote === undefined) quote = "'";
    else if ((c === "\n" || c === "\r") && quote === undefined) hazards.add("several lines");
  }
  if (quote !== undefined)
    return { unterminated: quote === "'" ? "single quote" : "double quote", hazards: [...hazards] };
  return { hazards: [...hazards] };
}
