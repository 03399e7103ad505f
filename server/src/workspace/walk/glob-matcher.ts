// A glob compiled to a matcher that never backtracks: a Thompson automaton
// (states that read one character, joined by empty moves) run over the name
// with the set of live states, so a test costs at most states × name length,
// whatever the pattern. A regular expression built from `*****x` backtracks
// exponentially in the stars; this cannot. Runs of `*` are one star here, and
// the sets of live states met are cached with their transitions (a bounded,
// lazily built deterministic automaton), so a common glob costs about a map
// lookup per character of the name.
//
// The language is the glob the walker always had: `*` and `?` stay within a
// name, `**` spans directories (`**/` at a name's start: any directories),
// `[...]` and `[!...]` are one character other than `/`, `{a,b}` nests and may
// hold `/`; an unclosed `[` or a class that matches nothing is literal text, and
// a brace group left open closes at the end.

/** A fragment of the automaton: enter at `start`, leave from `end` (an empty state its successor is added to). */
interface Fragment {
  start: number;
  end: number;
}

type Item =
  | { kind: "test"; test: (code: number) => boolean }
  | { kind: "star"; across: boolean }
  | { kind: "dirs" }
  | { kind: "group"; options: Item[][] };

const SLASH = 47;
const notSlash = (code: number): boolean => code !== SLASH;

/** Reads a glob into items; the same reading, character for character, as the walker's glob always had. */
function parse(glob: string): Item[] {
  const root: Item[] = [];
  const stack: { options: Item[][] }[] = [];
  let seq = root;
  const push = (item: Item): void => {
    const last = seq[seq.length - 1];
    // A star beside a star is one star (the wider of the two): the run of 5,000 stars is one state.
    if (item.kind === "star" && last?.kind === "star") last.across ||= item.across;
    else if (item.kind === "dirs" && last?.kind === "dirs") return;
    else seq.push(item);
  };
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const atStart = i === 0 || glob[i - 1] === "/";
        i++;
        if (atStart && glob[i + 1] === "/") {
          push({ kind: "dirs" });
          i++;
        } else push({ kind: "star", across: true });
      } else push({ kind: "star", across: false });
    } else if (c === "?") push({ kind: "test", test: notSlash });
    else if (c === "[") {
      const cls = classAt(glob, i);
      if (cls) {
        push({ kind: "test", test: cls.test });
        i = cls.close;
      } else push(literal(c));
    } else if (c === "{" && glob.indexOf("}", i) !== -1) {
      const group: Item & { kind: "group" } = { kind: "group", options: [[]] };
      seq.push(group);
      stack.push(group);
      seq = group.options[0]!;
    } else if (c === "}" && stack.length > 0) {
      stack.pop();
      seq = lastOpen(root, stack);
    } else if (c === "," && stack.length > 0) {
      const group = stack[stack.length - 1]!;
      group.options.push([]);
      seq = group.options.at(-1)!;
    } else push(literal(c));
  }
  return root;
}

/** The sequence items go into: the last option of the innermost open group, or the top. */
function lastOpen(root: Item[], stack: readonly { options: Item[][] }[]): Item[] {
  return stack.length > 0 ? stack[stack.length - 1]!.options.at(-1)! : root;
}

function literal(c: string): Item {
  const code = c.charCodeAt(0);
  return { kind: "test", test: (x) => x === code };
}

/** `[...]` at `i` as a one-character test (never `/`), or undefined where the walker reads `[` as text. */
function classAt(glob: string, i: number): { test: (code: number) => boolean; close: number } | undefined {
  const close = glob.indexOf("]", i + 2);
  if (close === -1) return undefined;
  let body = glob.slice(i + 1, close);
  const negate = body.startsWith("!") || body.startsWith("^");
  if (negate) body = body.slice(1);
  let regex: RegExp;
  try {
    // One character against one class: nothing here can backtrack.
    regex = new RegExp(`^[${negate ? "^" : ""}${body.replace(/[\\\]^]/g, "\\$&")}]$`);
  } catch {
    return undefined; // a class such as [z-a] matches nothing in a shell either; here it is literal text
  }
  return { test: (code) => code !== SLASH && regex.test(String.fromCharCode(code)), close };
}

/** The automaton: per state, the test it reads a character with (none for an empty move), and where it goes. */
class Automaton {
  readonly tests: (((code: number) => boolean) | undefined)[] = [];
  readonly next: number[][] = [];

  state(test?: (code: number) => boolean): number {
    this.tests.push(test);
    this.next.push([]);
    return this.tests.length - 1;
  }

  one(test: (code: number) => boolean): Fragment {
    const start = this.state(test);
    const end = this.state();
    this.next[start]!.push(end);
    return { start, end };
  }

  empty(): Fragment {
    const s = this.state();
    return { start: s, end: s };
  }

  seq(items: readonly Item[]): Fragment {
    let whole = this.empty();
    for (const item of items) {
      const f = this.item(item);
      this.next[whole.end]!.push(f.start);
      whole = { start: whole.start, end: f.end };
    }
    return whole;
  }

  /** Zero or more of `f`. */
  repeat(f: Fragment): Fragment {
    const start = this.state();
    const end = this.state();
    this.next[start]!.push(f.start, end);
    this.next[f.end]!.push(start);
    return { start, end };
  }

  item(item: Item): Fragment {
    switch (item.kind) {
      case "test":
        return this.one(item.test);
      case "star":
        return this.repeat(this.one(item.across ? () => true : notSlash));
      case "dirs": {
        const dir = this.seq([
          { kind: "star", across: false },
          { kind: "test", test: (c) => c === SLASH },
        ]);
        return this.repeat(dir);
      }
      case "group": {
        const start = this.state();
        const end = this.state();
        for (const option of item.options) {
          const f = this.seq(option);
          this.next[start]!.push(f.start);
          this.next[f.end]!.push(end);
        }
        return { start, end };
      }
    }
  }
}

/** A set of automaton states reached after some characters, with the sets the next characters lead to. */
interface Step {
  /** The states that read a character. */
  states: number[];
  accepting: boolean;
  /** The step each ASCII character leads to, once worked out; other characters in `nextWide`. */
  next: (Step | undefined)[];
  nextWide: Map<number, Step>;
}

/** Steps kept per matcher; past this the cache starts again (the cost per character stays bounded by the states). */
const MAX_STEPS = 2048;

/**
 * Compiles `glob` to a test of a whole name. The automaton's sets of live states
 * are cached as they are met (a lazily built deterministic automaton), so a name
 * usually costs one map lookup per character, and never more than the states.
 */
export function globMatcher(glob: string): (name: string) => boolean {
  const a = new Automaton();
  const { start, end: accept } = a.seq(parse(glob));
  const { tests, next } = a;
  const seen = new Int32Array(tests.length).fill(-1);
  let generation = 0;
  let steps = new Map<string, Step>();
  /** The cache started again: the first step is worked out anew, so the old steps can go. */
  let restarted = false;

  /** The step of the states reached from `from` by empty moves: those that read a character, and whether it may end here. */
  const stepOf = (from: readonly number[]): Step => {
    const mark = ++generation;
    const states: number[] = [];
    let accepting = false;
    const stack = [...from];
    while (stack.length > 0) {
      const t = stack.pop()!;
      if (seen[t] === mark) continue;
      seen[t] = mark;
      if (t === accept) accepting = true;
      if (tests[t] !== undefined) states.push(t);
      else for (const n of next[t]!) if (seen[n] !== mark) stack.push(n);
    }
    states.sort((x, y) => x - y);
    const key = `${accepting ? "a" : ""}${states.join(",")}`;
    let step = steps.get(key);
    if (!step) {
      if (steps.size >= MAX_STEPS) {
        steps = new Map();
        restarted = true;
      }
      step = { states, accepting, next: [], nextWide: new Map() };
      steps.set(key, step);
    }
    return step;
  };
  let first = stepOf([start]);

  return (name) => {
    if (restarted) {
      restarted = false;
      first = stepOf([start]);
    }
    let step = first;
    for (let i = 0; i < name.length; i++) {
      if (step.states.length === 0) return false;
      const code = name.charCodeAt(i);
      let following = code < 128 ? step.next[code] : step.nextWide.get(code);
      if (!following) {
        const reached: number[] = [];
        for (const s of step.states) if (tests[s]!(code)) reached.push(...next[s]!);
        following = stepOf(reached);
        if (code < 128) step.next[code] = following;
        else step.nextWide.set(code, following);
      }
      step = following;
    }
    return step.accepting;
  };
}
