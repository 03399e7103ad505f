// The `lockstep/approve` question for what is not a change of files: a command the model wants
// to run (the whole line, where it runs, sandboxed or not, what "always" would allow) and a
// call of an MCP server's tool (the server, the tool, its arguments: redacted and bounded).
// Sent only to a client that says it shows them (`experimental.lockstepApprovalKinds`); the
// answer is parsed here, since a client is input. Knows nothing of how a client draws it.
import * as z from "zod";
import { REASON_LIMIT, withReason } from "../review/question.js";
import { callMessage, type CallRequest } from "../review/call-approval.js";
import { alwaysTitleFor, commandQuestionText, type CommandQuestion } from "../tools/command-question.js";

/** The command's question as tools/command-question.ts gives it, with what a client needs to ask it. */
export interface CommandApproveQuestion extends CommandQuestion {
  kind: "command";
  /** The same words as the plain prompt, for a client that shows only a line. */
  message: string;
  /** The title of "always" as the plain prompt words it, when offered (`prefixes` empty: not offered). */
  always?: string;
  /** `stop` is offered when the command belongs to a run (it ends the run). */
  decisions: ("once" | "always" | "reject" | "stop")[];
}

export interface CallApproveQuestion {
  kind: "call";
  message: string;
  /** The name the model called (`mcp__server__tool`): what "always allow this tool" remembers. */
  tool: string;
  server: string;
  /** The tool's own name on its server. */
  server_tool: string;
  /** The arguments as indented JSON, redacted, cut at ARGUMENTS_LIMIT characters (saying so). */
  arguments: string;
  job_id?: string;
  /** `stop` is offered when the call belongs to a run (it ends the run). */
  decisions: ("apply" | "always_tool" | "always_server" | "reject" | "stop")[];
}

/** How much of a call's arguments the question shows: enough to judge, never a flood. */
export const ARGUMENTS_LIMIT = 4000;

export function commandApproveQuestion(q: CommandQuestion): CommandApproveQuestion {
  const canAlways = q.prefixes.length > 0;
  return {
    kind: "command",
    message: commandQuestionText(q),
    tool: "run_command",
    ...(q.job_id !== undefined ? { job_id: q.job_id } : {}),
    command: q.command,
    cwd: q.cwd,
    sandboxed: q.sandboxed,
    sandbox: q.sandbox,
    reasons: [...q.reasons],
    prefixes: [...q.prefixes],
    ...(canAlways ? { always: alwaysTitleFor(q.prefixes) } : {}),
    decisions: [
      "once",
      ...(canAlways ? (["always"] as const) : []),
      "reject",
      ...(q.job_id !== undefined ? (["stop"] as const) : []),
    ],
  };
}

/** `redact`: the door's redaction (key variables' values, credential shapes). */
export function callApproveQuestion(
  request: CallRequest,
  redact: (text: string) => string,
): CallApproveQuestion {
  return {
    kind: "call",
    message: redact(callMessage(request)),
    tool: request.name,
    server: request.server,
    server_tool: request.tool,
    arguments: shownArguments(request.args, redact),
    ...(request.job_id !== undefined ? { job_id: request.job_id } : {}),
    decisions: [
      "apply",
      "always_tool",
      "always_server",
      "reject",
      ...(request.job_id !== undefined ? (["stop"] as const) : []),
    ],
  };
}

/** The arguments as a person reads them: indented, redacted, bounded. */
export function shownArguments(args: Record<string, unknown>, redact: (text: string) => string): string {
  let text: string;
  try {
    text = redact(JSON.stringify(args, null, 2) ?? "{}");
  } catch {
    text = "(arguments that cannot be shown as JSON)";
  }
  if (text.length <= ARGUMENTS_LIMIT) return text;
  return `${text.slice(0, ARGUMENTS_LIMIT)}\n… (${text.length - ARGUMENTS_LIMIT} more characters not shown)`;
}

// `reason`: the user's words with a "reject", bounded as a change's answer's.
const reason = z.string().max(REASON_LIMIT).optional();
/** What a client may answer to each kind of question: any decision that kind can offer, and a reason. */
const answers = {
  command: z.object({ decision: z.enum(["once", "always", "reject", "stop"]), reason }),
  call: z.object({
    decision: z.enum(["apply", "always_tool", "always_server", "reject", "stop"]),
    reason,
  }),
} satisfies Record<ApproveQuestion["kind"], z.ZodType>;

type ApproveQuestion = CommandApproveQuestion | CallApproveQuestion;

/**
 * The answer to a command's or a call's question (its `kind` picks the schema); anything not offered
 * is no choice: the command does not run, the call is declined.
 */
export function parseApproveAnswer<Q extends ApproveQuestion>(
  raw: unknown,
  asked: Q,
): Q["decisions"][number] | { reason: string } | "dismissed" {
  const parsed = answers[asked.kind].safeParse(raw);
  const offered: readonly string[] = asked.decisions;
  if (!parsed.success || !offered.includes(parsed.data.decision)) return "dismissed";
  // Offered, so one of this question's decisions.
  return withReason(parsed.data.decision as Q["decisions"][number], parsed.data.reason);
}
