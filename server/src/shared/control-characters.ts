// Control characters taken out of text that came from outside lockstep (an editor's
// words, a model's, a file name) before it is shown: the one class both the CLI's
// terminal text and the LSP side's editor messages strip. Knows nothing of escape
// sequences: a caller that prints on a terminal removes those first (cli/terminal-text.ts).

/** C0, DEL and C1, newline and tab among them. */
// eslint-disable-next-line no-control-regex
const ALL = /[\x00-\x1f\x7f-\x9f]+/g;
/** The same but newline and tab. */
// eslint-disable-next-line no-control-regex
const ALL_BUT_LINE_BREAKS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]+/g;

export interface ControlOptions {
  /**
   * Newline and tab stay: text printed as lines keeps its shape (the terminal). Without it they are
   * controls like the rest: text shown on one line (an editor's message in a tool result).
   */
  keepLineBreaks?: boolean;
  /**
   * What each run of control characters becomes: "" (the default) takes it out; " " keeps the words
   * on either side apart when a newline or tab between them goes too.
   */
  replaceWith?: string;
}

/** `text` with its control characters (C0, DEL, C1) taken out or replaced, run by run. */
export function withoutControls(text: string, options: ControlOptions = {}): string {
  return text.replace(options.keepLineBreaks ? ALL_BUT_LINE_BREAKS : ALL, options.replaceWith ?? "");
}
