// Code actions that start the agent: a `lockstep: <instruction>` comment line,
// and "Fix with lockstep" for diagnostics other servers reported.
import type { CodeAction, Diagnostic, Range } from "vscode-languageserver";
import { CodeActionKind } from "vscode-languageserver";
import type { TextDocument } from "vscode-languageserver-textdocument";
import { COMMAND_PREFIX } from "./commands.js";

/** A comment (//, #, --, ;, /*, <!--) whose text starts with `lockstep:`. */
const INSTRUCTION = /^\s*(?:\/\/+|#+|--|;+|\/\*+|<!--|\*)\s*lockstep:\s*(.+?)\s*(?:\*\/|-->)?\s*$/;

export function instructionAt(line: string): string | undefined {
  return INSTRUCTION.exec(line)?.[1];
}

function ask(
  title: string,
  kind: string,
  argument: Record<string, unknown>,
  diagnostics?: Diagnostic[],
): CodeAction {
  return {
    title,
    kind,
    ...(diagnostics ? { diagnostics } : {}),
    command: { title, command: COMMAND_PREFIX + "ask", arguments: [argument] },
  };
}

export function agentActions(
  doc: TextDocument,
  filePath: string,
  range: Range,
  diagnostics: Diagnostic[],
): CodeAction[] {
  const out: CodeAction[] = [];
  for (let line = range.start.line; line <= range.end.line && line < doc.lineCount; line++) {
    const text = doc
      .getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } })
      .replace(/\r?\n$/, "");
    const instruction = instructionAt(text);
    if (instruction === undefined) continue;
    out.push(
      ask(`lockstep: ${instruction}`, CodeActionKind.RefactorRewrite, {
        prompt: instruction,
        file_path: filePath,
        range: { start: { line, character: 0 }, end: { line, character: text.length } },
        instruction_line: { line, text },
      }),
    );
  }
  for (const d of diagnostics) {
    if (d.source === "lockstep") continue;
    const message = d.message.split("\n")[0]!;
    out.push(
      ask(
        `Fix with lockstep: ${message}`,
        CodeActionKind.QuickFix,
        {
          prompt: `Fix this problem${d.source ? ` reported by ${d.source}` : ""} at line ${d.range.start.line + 1}: ${d.message}`,
          file_path: filePath,
          range: d.range,
        },
        [d],
      ),
    );
  }
  return out;
}
