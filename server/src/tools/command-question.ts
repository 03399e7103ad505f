// What the user is asked about a command the model wants to run, and what every door needs
// to ask it: the command whole, where it runs, whether it is sandboxed and why it is asked.
// The doors (an LSP prompt, an ACP permission request, the terminal) show `commandQuestionText`
// with three answers: run it once, always allow its prefix for this session, reject.

import type { RunRequest, RunResult } from "../commands/index.js";

export interface CommandQuestion {
  tool: "run_command";
  command: string;
  /** Root-relative working directory (`.` for the root). */
  cwd: string;
  sandboxed: boolean;
  /** One line on the sandbox: what it keeps the command from, or why there is none. */
  sandbox: string;
  /** Why it is asked (beyond "nothing allowed it"): hazards, `.git` writes, no sandbox in auto. */
  reasons: string[];
  /** What "always" would remember; empty when it cannot be remembered (then "always" is not offered). */
  prefixes: string[];
  job_id?: string;
}

/** `{ reason }`: rejected, with the user's words for the model. */
export type CommandDecision = "once" | "always" | "reject" | { reason: string };

/** Asks the user; `dismissed`: closed without a choice, or the door cannot ask now (the command does not run). */
export type CommandPrompt = (
  question: CommandQuestion,
  signal: AbortSignal,
) => Promise<CommandDecision | "dismissed">;

/** The settings a command reads, whatever door holds them. */
export interface CommandSettings {
  commands: "ask" | "auto" | "off";
  allowedCommands: readonly string[];
  sandbox: "auto" | "on" | "off";
  sandboxNetwork: boolean;
  testCommand?: string | undefined;
  apiKeyEnv?: string | undefined;
}

/** What a door gives the run_command tool: its settings, its prompt, the session's "always" answers, live output. */
export interface CommandAccess {
  settings(): CommandSettings;
  /** The session's "always allow" set; a command prefix is kept in it as `run_command:<prefix>`. */
  readonly alwaysAllowed: Set<string>;
  /** The door's prompt, or undefined where it cannot ask. */
  prompt(): CommandPrompt | undefined;
  /** The command's output as it comes (already redacted), for the door to show live. */
  output?(jobId: string | undefined, text: string): void;
  /** The command, approved, starts now: the door says what runs (LSP's `$/progress`). */
  started?(jobId: string | undefined, command: string): void;
  /** Credential-shaped text replaced before output is shown, stored or sent (the assembly gives it). */
  redact?(text: string): string;
  /** Where the door runs an allowed command itself (an ACP client's terminal); else lockstep runs it. */
  run?(): ((request: RunRequest) => Promise<RunResult>) | undefined;
}

/** What a door brings for commands: how it asks, where the live output goes, and where it runs them if not here. */
export interface CommandDoor {
  prompt(): CommandPrompt | undefined;
  output?(jobId: string | undefined, text: string): void;
  started?(jobId: string | undefined, command: string): void;
  run?(): ((request: RunRequest) => Promise<RunResult>) | undefined;
}

/** A door's command port joined to the settings and the conversation's "always" answers (the assembly does this). */
export function commandAccess(
  settings: () => CommandSettings,
  alwaysAllowed: Set<string>,
  door: CommandDoor,
  redact?: (text: string) => string,
): CommandAccess {
  return {
    settings,
    alwaysAllowed,
    prompt: () => door.prompt(),
    ...(door.output ? { output: (jobId, text) => door.output?.(jobId, text) } : {}),
    ...(door.started ? { started: (jobId, command) => door.started?.(jobId, command) } : {}),
    ...(redact ? { redact } : {}),
    ...(door.run ? { run: () => door.run?.() } : {}),
  };
}

/** A command as one short line, for a progress message or a status line. */
export function commandTitle(command: string, max = 120): string {
  const line = command.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export const ALWAYS_KEY = "run_command:";

export function alwaysTitleFor(prefixes: readonly string[]): string {
  return `Always allow ${prefixes.map((p) => `\`${p}\``).join(", ")} this session`;
}

export function commandQuestionText(q: CommandQuestion): string {
  const where = q.cwd === "." ? "in the project root" : `in ${q.cwd}`;
  const lines = [`lockstep wants to run ${where}:`, `    ${q.command}`, q.sandbox];
  if (q.reasons.length > 0) lines.push(`Asked because: ${q.reasons.join("; ")}.`);
  if (q.prefixes.length === 0)
    lines.push("This command cannot be allowed for the session; it is asked about each time.");
  return lines.join("\n");
}
