// How a shell command's failure is read and said, once for every command: Node's
// parseArgs errors are usage errors, and their message loses the advice about `--`
// (with a quote it never closes), since the option's name is what helps.
import { commandHelp } from "./help.js";
import { errnoCode } from "../shared/errno.js";

/** The error's message, without parseArgs' advice about `--`. */
export function commandMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(
    /\. To specify a positional argument[\s\S]*$/,
    "",
  );
}

/** A malformed command line as Node's parseArgs reports it. */
export function isParseArgsError(error: unknown): boolean {
  return error instanceof Error && (errnoCode(error) ?? "").startsWith("ERR_PARSE_ARGS");
}

/** Says a command's failure on stderr: a usage error (the command's own, or parseArgs') with its help, exit 2; else exit 1. */
export function reportFailure(
  command: string,
  error: unknown,
  usage: boolean,
  stderr: (s: string) => void,
): number {
  const message = commandMessage(error);
  if (usage || isParseArgsError(error)) {
    stderr(`lockstep ${command}: ${message}\n\n${commandHelp(command) ?? ""}\n`);
    return 2;
  }
  stderr(`lockstep ${command}: ${message}\n`);
  return 1;
}
