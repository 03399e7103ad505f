// Finds edit blocks in a model's reply, whole or as it streams in.
//
//   path/to/file.ext
//   ««« EDIT
//   lines as they are in the file
//   ═══════ REPL
//   lines as they should be
//   »»» EDIT END
//
// or, in the form models are trained on most (aider's), with the same meaning:
//
//   path/to/file.ext
//   <<<<<<< SEARCH
//   lines as they are in the file
//   =======
//   lines as they should be
//   >>>>>>> REPLACE
//
// The parser works line by line, so a chunk may end anywhere (inside a marker,
// between the two halves of a surrogate pair or of a CRLF): the unfinished line
// waits for the next chunk. Everything outside a block is prose and is skipped;
// a fence line between the path and the opening marker is allowed.

export interface EditBlock {
  /** 0-based order of the block in the text. */
  index: number;
  /** The path as written, without wrapping backticks, quotes or `**`. */
  file_path: string;
  /** EDIT section: lines joined with `\n`, a final `\n` when not empty; `''` creates a file. */
  old: string;
  /** REPL section, in the same form. */
  new: string;
  /** 1-based line of the path line in the parsed text. */
  line: number;
}

export interface ParseSummary {
  /** Blocks completed by the final flush. */
  blocks: EditBlock[];
  /** Blocks opened (path + `««« EDIT`) that never reached `»»» EDIT END`. */
  unterminated: number;
  /** Blocks closed out of order (END before REPL, a second REPL); never emitted. */
  malformed: number;
}

export const EDIT_MARKER = "««« EDIT";
export const REPL_MARKER = "═══════ REPL";
export const END_MARKER = "»»» EDIT END";

/** The two notations: the opening, middle and closing marker of each, as regular expressions on a trimmed line. */
type Format = "edit" | "search";
const MARKERS: Record<Format, { open: RegExp; middle: RegExp; end: RegExp }> = {
  edit: { open: /^««« EDIT$/, middle: /^═══════ REPL$/, end: /^»»» EDIT END$/ },
  search: { open: /^<{5,9} SEARCH$/, middle: /^={5,9}$/, end: /^>{5,9} REPLACE$/ },
};

function openingFormat(marker: string): Format | undefined {
  if (MARKERS.edit.open.test(marker)) return "edit";
  if (MARKERS.search.open.test(marker)) return "search";
  return undefined;
}

/** A block whose EDIT section is empty creates its file. */
export function isCreateBlock(block: EditBlock): boolean {
  return block.old === "";
}

type State =
  | { kind: "scanning"; path?: { file_path: string; line: number } }
  | { kind: "old" | "new"; format: Format; file_path: string; line: number; old: string[]; new: string[] };

export class EditBlockParser {
  private pending = "";
  private lineNo = 0;
  private nextIndex = 0;
  private unterminated = 0;
  private malformed = 0;
  private state: State = { kind: "scanning" };

  /** Feeds the next piece of text; returns the blocks whose END marker it completed. */
  push(chunk: string): EditBlock[] {
    const out: EditBlock[] = [];
    // Only the new part can hold a line break: the pending text has none.
    let from = this.pending.length;
    this.pending += chunk;
    let start = 0;
    for (;;) {
      const nl = this.pending.indexOf("\n", from);
      if (nl === -1) break;
      this.takeLine(this.pending.slice(start, nl), out);
      start = from = nl + 1;
    }
    if (start > 0) this.pending = this.pending.slice(start);
    return out;
  }

  /** Ends the stream: takes the last unfinished line and counts blocks left open. Resets the parser. */
  finish(): ParseSummary {
    const blocks: EditBlock[] = [];
    if (this.pending !== "") this.takeLine(this.pending, blocks);
    if (this.state.kind !== "scanning") this.unterminated++;
    const summary = { blocks, unterminated: this.unterminated, malformed: this.malformed };
    this.pending = "";
    this.lineNo = 0;
    this.nextIndex = 0;
    this.unterminated = 0;
    this.malformed = 0;
    this.state = { kind: "scanning" };
    return summary;
  }

  private takeLine(raw: string, out: EditBlock[]): void {
    this.lineNo++;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const marker = line.trim();
    const state = this.state;

    if (state.kind === "scanning") {
      const format = openingFormat(marker);
      if (format !== undefined) {
        this.state = state.path
          ? { kind: "old", format, ...state.path, old: [], new: [] }
          : { kind: "scanning" };
      } else if (!isFence(marker)) {
        const file_path = pathFromLine(line);
        this.state =
          file_path === undefined
            ? { kind: "scanning" }
            : { kind: "scanning", path: { file_path, line: this.lineNo } };
      }
      return;
    }

    const lines = state.kind === "old" ? state.old : state.new;
    const markers = MARKERS[state.format];
    if (markers.open.test(marker)) {
      // The open block lost its closing marker; the line before may be the next block's path.
      this.unterminated++;
      const previous = lines.pop();
      const file_path = previous === undefined ? undefined : pathFromLine(previous);
      this.state =
        file_path === undefined
          ? { kind: "scanning" }
          : { kind: "old", format: state.format, file_path, line: this.lineNo - 1, old: [], new: [] };
    } else if (markers.middle.test(marker) && state.kind === "old") {
      state.kind = "new";
    } else if (markers.middle.test(marker) && state.format === "edit") {
      this.abandon(); // a second REPL marker
    } else if (markers.end.test(marker)) {
      if (state.kind === "new") {
        out.push({
          index: this.nextIndex++,
          file_path: state.file_path,
          old: joinSection(state.old),
          new: joinSection(state.new),
          line: state.line,
        });
        this.state = { kind: "scanning" };
      } else this.abandon();
    } else {
      lines.push(line);
    }
  }

  private abandon(): void {
    this.malformed++;
    this.state = { kind: "scanning" };
  }
}

/** Every complete block in a text. */
export function parseEditBlocks(text: string): EditBlock[] {
  const parser = new EditBlockParser();
  const blocks = parser.push(text);
  return blocks.concat(parser.finish().blocks);
}

/** How many complete blocks a buffer holds (for offering code actions). */
export function countEditBlocks(text: string): number {
  return parseEditBlocks(text).length;
}

function joinSection(lines: string[]): string {
  return lines.length === 0 ? "" : lines.join("\n") + "\n";
}

function isFence(trimmed: string): boolean {
  return trimmed.startsWith("```") || trimmed.startsWith("~~~");
}

const MAX_PATH_LINE = 200;
const NOT_A_PATH_PREFIXES = ["#", "//", "*", "-", ">"];
/** Root files that are commonly named without an extension. */
const EXTENSIONLESS_NAMES = new Set([
  "Makefile",
  "GNUmakefile",
  "Dockerfile",
  "Containerfile",
  "Gemfile",
  "Rakefile",
  "Procfile",
  "Jenkinsfile",
  "Vagrantfile",
  "Justfile",
  "LICENSE",
  "CODEOWNERS",
]);
const NAME_WITH_EXTENSION = /^[\w@+-][\w@+.-]*\.[A-Za-z][\w+-]*$/;
const DOTFILE = /^\.[A-Za-z][\w+.-]*$/;

/**
 * The file path a line names, or `undefined` when the line is not a path line:
 * a single token (after removing wrapping backticks, quotes or `**`) that has a
 * `/` or `\`, or looks like a file name with an extension. Comment, list and
 * quote lines (`# a/b.py`, `// src/x.ts`, `- a/b`, `> a/b`) are prose.
 */
export function pathFromLine(line: string): string | undefined {
  const trimmed = line.trim();
  if (trimmed === "" || trimmed.length >= MAX_PATH_LINE) return undefined;
  const path = unwrap(trimmed);
  if (path === "" || /\s/.test(path)) return undefined;
  if (NOT_A_PATH_PREFIXES.some((prefix) => path.startsWith(prefix))) return undefined;
  if (path.includes("/") || path.includes("\\")) return path;
  if (NAME_WITH_EXTENSION.test(path) || DOTFILE.test(path) || EXTENSIONLESS_NAMES.has(path)) return path;
  return undefined;
}

function unwrap(text: string): string {
  let s = text;
  for (;;) {
    if (s.length > 4 && s.startsWith("**") && s.endsWith("**")) s = s.slice(2, -2).trim();
    else if (s.length > 2 && /^([`"'])[^]*\1$/.test(s)) s = s.slice(1, -1).trim();
    else return s;
  }
}
