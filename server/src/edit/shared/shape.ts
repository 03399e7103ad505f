// The parts of a file's shape no engine may change on its own. Line endings per
// line and the final newline are kept by each engine where it writes lines; the
// byte order mark is kept here, once for all of them: an engine works on the
// text after it, and a model that copied it into its own text is not held to it.
import { succeed, type Outcome } from "../../shared/outcome.js";

const BOM = "\uFEFF";

/** Runs `edit` on the text without its BOM and puts the BOM back on the result. */
export function keepingBom<T extends { content: string }>(
  content: string,
  edit: (body: string) => Outcome<T>,
): Outcome<T> {
  if (!content.startsWith(BOM)) return edit(content);
  const result = edit(content.slice(BOM.length));
  return result.ok ? succeed({ ...result.value, content: BOM + result.value.content }) : result;
}

/** A model's text (old_string, an EDIT section) without a BOM it copied from the file's first line. */
export function withoutBom(text: string): string {
  return text.startsWith(BOM) ? text.slice(BOM.length) : text;
}

/** A diff without a BOM copied after a line's `+`, `-` or space. */
export function diffWithoutBom(diff: string): string {
  return diff.includes(BOM) ? diff.replace(/^([ +-]?)\uFEFF/gm, "$1") : diff;
}
