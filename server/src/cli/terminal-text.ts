// Text from outside lockstep (the model's words, file names, settings values) made
// safe to print on a terminal: escape sequences that did not come from lockstep
// (a title set with ESC ] 0;…, a screen cleared, a line rewritten with a bare CR)
// are taken out before lockstep adds its own colours around it.

import { withoutControls } from "../shared/control-characters.js";

/**
 * ESC sequences (CSI `ESC [ … final`, OSC / DCS / APC / PM / SOS strings up to BEL or ST, and two-byte
 * ones); every other control character but newline and tab (C0, DEL, C1) goes after them.
 */
// Matching control characters is the point of this pattern.
const SEQUENCES =
  // eslint-disable-next-line no-control-regex
  /\x1b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_]|.?)|\x9b[0-?]*[ -/]*[@-~]|[\x90\x9d-\x9f][^\x07\x9c]*[\x07\x9c]?/gs;

/** `text` without escape sequences or control characters, newlines and tabs kept. */
export function terminalSafe(text: string): string {
  return withoutControls(text.replace(SEQUENCES, ""), { keepLineBreaks: true });
}

/** One line of it: a value or a name that holds a newline shows the newline as `\n`, not a line of its own. */
export function oneLine(text: string): string {
  return terminalSafe(text.replace(/\r/g, "\\r").replace(/\n/g, "\\n"));
}
