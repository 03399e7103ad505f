// The prompt for a call of an MCP server's tool. A client that shows it itself
// (lockstep/approve, kind `call`: lockstep's own clients) gets the server, the tool and the
// arguments, redacted and bounded; one with window/showMessageRequest gets Allow / Always allow
// the tool / Always allow the server / Reject. Without either, or closed without a choice, the
// call is declined (a call has nothing to stage for review).
import type { Connection } from "vscode-languageserver";
import { MessageType, ShowMessageRequest } from "vscode-languageserver";
import {
  callMessage,
  type CallDecision,
  type CallPrompt,
  type CallRequest,
} from "../review/call-approval.js";
import { approveRequest, asked } from "./approval.js";
import { callApproveQuestion, parseApproveAnswer } from "./approve-details.js";

const ALLOW = "Apply";
const REJECT = "Reject";
export const alwaysToolTitle = (request: CallRequest): string => `Always allow ${request.name} this session`;
export const alwaysServerTitle = (request: CallRequest): string =>
  `Always allow server ${request.server} this session`;

/**
 * `redact`: what a question must not show (key variables' values, credential shapes); `stop`
 * ends the call's run where the client shows the question itself and the user chose to stop.
 */
export function callPrompt(
  connection: Connection,
  withDetails: () => boolean,
  redact: (text: string) => string,
  stop: (jobId: string) => void,
): CallPrompt {
  return (request, signal): Promise<CallDecision | "dismissed"> =>
    asked<CallDecision | "dismissed">(signal, "reject", "dismissed", async (token) => {
      if (withDetails()) {
        const shown = callApproveQuestion(request, redact);
        const answer = parseApproveAnswer(await connection.sendRequest(approveRequest, shown, token), shown);
        if (answer !== "stop") return answer;
        if (request.job_id !== undefined) stop(request.job_id);
        return "reject";
      }
      const actions = [
        { title: ALLOW },
        { title: alwaysToolTitle(request) },
        { title: alwaysServerTitle(request) },
        { title: REJECT },
      ];
      const picked = await connection.sendRequest(
        ShowMessageRequest.type,
        { type: MessageType.Info, message: redact(callMessage(request)), actions },
        token,
      );
      if (picked?.title === ALLOW) return "apply";
      if (picked?.title === alwaysToolTitle(request)) return "always_tool";
      if (picked?.title === alwaysServerTitle(request)) return "always_server";
      if (picked?.title === REJECT) return "reject";
      return "dismissed";
    });
}
