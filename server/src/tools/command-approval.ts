// Whether a command may run, and where: the sandbox chosen from the settings and the machine,
// then the approval. `ask`: a command every part of which the session's "always" answers or
// `allowedCommands` cover runs unasked; any other is asked about. `auto`: a command runs unasked
// inside the sandbox, and is asked about where it would run outside it. A git command that may
// write `.git/` runs outside the sandbox (which keeps `.git` read-only), is always asked about
// and never remembered; so is whatever `reviewCommand` finds hidden in the line.
import {
  coveredBy,
  findSandbox,
  reviewCommand,
  ruleOf,
  type CommandReview,
  type SandboxBackend,
} from "../commands/index.js";
import {
  ALWAYS_KEY,
  type CommandAccess,
  type CommandQuestion,
  type CommandSettings,
} from "./command-question.js";

export type SandboxChoice =
  | { backend: SandboxBackend; note: string }
  | { backend: undefined; note: string; refused?: string };

/** Where this command would run, and the one line the user reads about it. */
export async function chooseSandbox(
  settings: CommandSettings,
  review: CommandReview,
): Promise<SandboxChoice> {
  if (settings.sandbox === "off")
    return {
      backend: undefined,
      note: "Not sandboxed (sandbox: off): it can change anything your user can.",
    };
  const probe = await findSandbox();
  if (review.writesGit) {
    return {
      backend: undefined,
      note: "Not sandboxed: it writes .git/, which the sandbox keeps read-only, so it runs with your user's full access.",
    };
  }
  if (probe.kind === "none") {
    const note = `Not sandboxed: ${probe.reason}.`;
    return settings.sandbox === "on"
      ? { backend: undefined, note, refused: `sandbox is on, but there is none here: ${probe.reason}` }
      : { backend: undefined, note };
  }
  const net = settings.sandboxNetwork ? "network allowed" : "no network";
  return {
    backend: probe.backend,
    note: `Sandboxed (${probe.backend.name}): writes only inside the project (.git read-only), ${net}.`,
  };
}

export type Verdict =
  | { run: true; asked: boolean }
  | { run: false; why: "rejected"; reason?: string }
  | { run: false; why: "no_prompt" };

/** Asks where it must; remembers an "always" answer's prefixes for the session. */
export async function approveCommand(
  access: CommandAccess,
  question: CommandQuestion,
  review: CommandReview,
  signal: AbortSignal,
): Promise<Verdict> {
  const settings = access.settings();
  const sandboxed = question.sandboxed;
  if (settings.commands === "auto" && sandboxed) return { run: true, asked: false };
  if (settings.commands === "ask" && coveredBy(review, allowedRules(access)))
    return { run: true, asked: false };
  const prompt = access.prompt();
  if (prompt === undefined) return { run: false, why: "no_prompt" };
  const decision = await prompt(question, signal);
  if (signal.aborted || decision === "reject") return { run: false, why: "rejected" };
  if (typeof decision === "object") return { run: false, why: "rejected", reason: decision.reason };
  if (decision === "dismissed") return { run: false, why: "no_prompt" };
  if (decision === "always" && !review.writesGit)
    for (const p of question.prefixes) access.alwaysAllowed.add(ALWAYS_KEY + p);
  return { run: true, asked: true };
}

/** Why this command is asked about, for the question: what `reviewCommand` found, and the mode's own reason. */
export function reasonsToAsk(
  settings: CommandSettings,
  review: CommandReview,
  sandbox: SandboxChoice,
): string[] {
  const reasons = [...review.askReasons];
  if (review.writesGit) reasons.push("it may write .git/");
  if (settings.commands === "auto" && sandbox.backend === undefined && !review.writesGit)
    reasons.push("commands run unasked only inside a sandbox, and there is none");
  return reasons;
}

export function questionFor(
  command: string,
  cwd: string,
  review: CommandReview,
  sandbox: SandboxChoice,
  settings: CommandSettings,
  jobId: string | undefined,
): CommandQuestion {
  return {
    tool: "run_command",
    command,
    cwd,
    sandboxed: sandbox.backend !== undefined,
    sandbox: sandbox.note,
    reasons: reasonsToAsk(settings, review, sandbox),
    prefixes: review.writesGit ? [] : review.prefixes,
    ...(jobId !== undefined ? { job_id: jobId } : {}),
  };
}

function allowedRules(access: CommandAccess): Set<string> {
  const rules = new Set<string>();
  for (const key of access.alwaysAllowed)
    if (key.startsWith(ALWAYS_KEY)) rules.add(key.slice(ALWAYS_KEY.length));
  for (const entry of access.settings().allowedCommands) {
    const read = ruleOf(entry);
    if ("rule" in read) rules.add(read.rule);
  }
  return rules;
}

export { reviewCommand };
