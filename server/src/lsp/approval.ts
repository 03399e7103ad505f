// The approval prompts. A client that says it shows the change while it asks
// (`experimental.lockstepApproval`: lockstep's terminal, Neovim and Emacs clients) gets the
// `lockstep/approve` request with each file's diff, and answers apply / always / reject
// (with a reason) / stop; one that also lists `command` in `experimental.lockstepApprovalKinds`
// gets a command's question the same way (approve-details.ts: the line, where it runs, the
// sandbox, what "always" allows; stop ends the run). Other clients with window/showMessageRequest
// get Apply / Always allow / Reject / Stop the run for a whole change, and Run once / Always allow
// its prefix / Reject for a command. Clients without either, and a change's prompt closed without a
// choice, get the change staged for review instead (review-view.ts); a command is not run.
import type { Connection } from "vscode-languageserver";
import { CancellationTokenSource, MessageType, RequestType, ShowMessageRequest } from "vscode-languageserver";
import { approvalMessage, type ApprovalPrompt, type UserDecision } from "../review/policy.js";
import { approvalQuestion, parseAnswer } from "../review/question.js";
import { commandApproveQuestion, parseApproveAnswer } from "./approve-details.js";
import {
  alwaysTitleFor,
  commandQuestionText,
  type CommandDecision,
  type CommandPrompt,
  type CommandQuestion,
} from "../tools/command-question.js";

const APPLY = "Apply";
const REJECT = "Reject";
const STOP = "Stop the run";
const RUN_ONCE = "Run once";
const ABORTED = Symbol("aborted");
export const alwaysTitle = (tool: string): string => `Always allow ${tool} this session`;

/** The request lockstep's own clients answer, with the change (or the command, or the call) in it. */
export const approveRequest = new RequestType<unknown, unknown, void>("lockstep/approve");

export function messagePrompt(connection: Connection, withDiff: () => boolean): ApprovalPrompt {
  return (change, signal) =>
    asked<UserDecision | "dismissed">(signal, "reject", "dismissed", async (token) => {
      if (withDiff())
        return parseAnswer(await connection.sendRequest(approveRequest, approvalQuestion(change), token));
      const actions = [
        { title: APPLY },
        { title: alwaysTitle(change.tool) },
        { title: REJECT },
        { title: STOP },
      ];
      const picked = await connection.sendRequest(
        ShowMessageRequest.type,
        { type: MessageType.Info, message: approvalMessage(change), actions },
        token,
      );
      if (picked?.title === APPLY) return "apply";
      if (picked?.title === alwaysTitle(change.tool)) return "always";
      if (picked?.title === REJECT) return "reject";
      if (picked?.title === STOP) return "stop";
      // No choice (closed, or a client that cannot show the menu now): the change waits for review instead.
      return "dismissed";
    });
}

/**
 * Runs one question; a cancelled one answers `aborted` at once (the client may never answer),
 * a failed one `failed`.
 */
export async function asked<T>(
  signal: AbortSignal,
  aborted: T,
  failed: T,
  ask: (token: CancellationTokenSource["token"]) => Promise<T>,
): Promise<T> {
  if (signal.aborted) return aborted;
  const source = new CancellationTokenSource();
  let onAbort = (): void => undefined;
  const abort = new Promise<typeof ABORTED>((resolve) => {
    onAbort = () => {
      source.cancel();
      resolve(ABORTED);
    };
  });
  const cancel = (): void => onAbort();
  signal.addEventListener("abort", cancel, { once: true });
  try {
    const request = ask(source.token);
    request.catch(() => undefined);
    const answer = await Promise.race([request, abort]);
    if (signal.aborted || answer === ABORTED) return aborted;
    return answer;
  } catch {
    return failed;
  } finally {
    signal.removeEventListener("abort", cancel);
    source.dispose();
  }
}

/**
 * `withDetails`: the client shows a command's question itself (lockstep/approve, kind `command`),
 * where "stop" ends the run (`stop`).
 */
export function commandPrompt(
  connection: Connection,
  withDetails: () => boolean,
  stop: (jobId: string) => void,
): CommandPrompt {
  return async (question: CommandQuestion, signal: AbortSignal): Promise<CommandDecision | "dismissed"> => {
    if (withDetails()) {
      const shown = commandApproveQuestion(question);
      const answer = await asked<CommandDecision | "stop" | "dismissed">(
        signal,
        "reject",
        "dismissed",
        async (token) =>
          parseApproveAnswer(await connection.sendRequest(approveRequest, shown, token), shown),
      );
      if (answer !== "stop") return answer;
      if (question.job_id !== undefined) stop(question.job_id);
      return "reject";
    }
    const always = question.prefixes.length > 0 ? [alwaysTitleFor(question.prefixes)] : [];
    const picked = await pick(
      connection,
      commandQuestionText(question),
      [RUN_ONCE, ...always, REJECT],
      signal,
    );
    if (picked === "aborted" || picked === REJECT) return "reject";
    if (picked === RUN_ONCE) return "once";
    if (picked !== undefined && always.includes(picked)) return "always";
    return "dismissed";
  };
}

/** The title the user picked; undefined for no choice; "aborted" when the call was cancelled meanwhile. */
function pick(
  connection: Connection,
  message: string,
  titles: string[],
  signal: AbortSignal,
): Promise<string | undefined | "aborted"> {
  return asked<string | undefined | "aborted">(signal, "aborted", undefined, async (token) => {
    const actions = titles.map((title) => ({ title }));
    return (
      await connection.sendRequest(
        ShowMessageRequest.type,
        { type: MessageType.Info, message, actions },
        token,
      )
    )?.title;
  });
}
