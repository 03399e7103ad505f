// The diffing half of gemini-cli's companion contract. `openDiff` stages the
// agent's proposed text for review in the editor and answers at once; when the
// user has decided, the agent that asked hears `ide/diffAccepted` with exactly
// the text the buffer ended with, or `ide/diffRejected`. `closeDiff` withdraws
// a pending diff and answers `{"content": …}` as JSON text, the form
// gemini-cli's IDE client parses (the written spec says plain text).
import * as z from "zod";
import { describeIssues } from "../tools/registry.js";
import { errorAnswer, type CallInfo, type McpTool, type ToolAnswer } from "./tool-catalog.js";

export type DiffOutcome = { status: "accepted"; content: string } | { status: "rejected"; message: string };

export interface CurrentText {
  content: string;
  sha256: string;
}

/** What the desk needs from the editor session (the LSP layer implements it). */
export interface DiffReviewer {
  /** The file as the user sees it now; a failure message when it cannot be a diff target (outside the workspace, binary). `null` when it does not exist yet. */
  current(filePath: string): Promise<CurrentText | null | { error: string }>;
  /**
   * Stages `content` as the proposed new text of the file and resolves once the
   * user has decided every part of it. An abort withdraws whatever is still pending.
   */
  review(request: { filePath: string; content: string }, signal: AbortSignal): Promise<DiffOutcome>;
}

export type Notify = (session: string, method: string, params: Record<string, unknown>) => void;

interface OpenDiff {
  session: string;
  newContent: string;
  /** sha256 of the text when the diff was opened; `null` for a file to create. */
  baseSha: string | null;
  controller: AbortController;
  /** Withdrawn by closeDiff or a newer openDiff: the agent no longer waits for an answer. */
  withdrawn: boolean;
}

const openDiffParams = z
  .object({
    filePath: z.string().min(1, "must name a file").describe("The absolute path of the file to change."),
    newContent: z.string().describe("The proposed new content of the whole file."),
  })
  .strict();

const closeDiffParams = z
  .object({
    filePath: z
      .string()
      .min(1, "must name a file")
      .describe("The absolute path of the file whose diff to close."),
    suppressNotification: z
      .boolean()
      .optional()
      .describe("Deprecated in the spec; closing never sends a notification here."),
  })
  .strict();

function schemaOf(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  delete json["$schema"];
  return json;
}

export class DiffDesk {
  private readonly diffs = new Map<string, OpenDiff>();

  constructor(
    private readonly reviewer: DiffReviewer,
    private readonly notify: Notify,
  ) {}

  tools(): McpTool[] {
    return [
      {
        name: "openDiff",
        description:
          "Show a proposed new content of a file to the user in the editor for review (hunk by hunk). Answers at once; the outcome arrives as the notification ide/diffAccepted {filePath, content} (content: exactly the text the user kept) or ide/diffRejected {filePath}.",
        inputSchema: schemaOf(openDiffParams),
        annotations: { readOnlyHint: false, destructiveHint: false },
        call: (args, call) => this.open(args, call),
      },
      {
        name: "closeDiff",
        description:
          'Withdraw the pending review of a file. Answers {"content": text} as JSON: the proposed text when the user has not touched the diff yet, else the buffer\'s text; {"content": null} when no diff is open.',
        inputSchema: schemaOf(closeDiffParams),
        annotations: { readOnlyHint: false, destructiveHint: false },
        call: (args) => this.close(args),
      },
    ];
  }

  private async open(args: Record<string, unknown>, call: CallInfo): Promise<ToolAnswer> {
    const parsed = openDiffParams.safeParse(args);
    if (!parsed.success) return errorAnswer(describeIssues("openDiff", parsed.error));
    const { filePath, newContent } = parsed.data;
    const current = await this.reviewer.current(filePath);
    if (current !== null && "error" in current) return errorAnswer(current.error);
    // A newer proposal for the same file replaces the older one; its caller hears a rejection.
    const earlier = this.diffs.get(filePath);
    if (earlier) this.withdraw(filePath, earlier, true);
    const diff: OpenDiff = {
      session: call.session,
      newContent,
      baseSha: current?.sha256 ?? null,
      controller: new AbortController(),
      withdrawn: false,
    };
    this.diffs.set(filePath, diff);
    const finish = (outcome: DiffOutcome): void => {
      if (this.diffs.get(filePath) === diff) this.diffs.delete(filePath);
      if (diff.withdrawn) return;
      if (outcome.status === "accepted")
        this.notify(diff.session, "ide/diffAccepted", { filePath, content: outcome.content });
      else this.notify(diff.session, "ide/diffRejected", { filePath });
    };
    if (current !== null && current.content === newContent) {
      // Nothing to review: the file already holds the proposal.
      setImmediate(() => finish({ status: "accepted", content: newContent }));
    } else {
      this.reviewer
        .review({ filePath, content: newContent }, diff.controller.signal)
        .then(finish, (error: unknown) =>
          finish({ status: "rejected", message: error instanceof Error ? error.message : String(error) }),
        );
    }
    return { content: [] };
  }

  private async close(args: Record<string, unknown>): Promise<ToolAnswer> {
    const parsed = closeDiffParams.safeParse(args);
    if (!parsed.success) return errorAnswer(describeIssues("closeDiff", parsed.error));
    const { filePath } = parsed.data;
    const diff = this.diffs.get(filePath);
    if (!diff) return { content: [{ type: "text", text: JSON.stringify({ content: null }) }] };
    const current = await this.reviewer.current(filePath);
    this.withdraw(filePath, diff, false);
    // gemini-cli closes the diff when its user answers in the terminal, and on "accept" writes what
    // this returns: the proposal while the buffer is as it was, else what the buffer holds now.
    const untouched =
      current === null ? diff.baseSha === null : !("error" in current) && current.sha256 === diff.baseSha;
    const content = untouched
      ? diff.newContent
      : current !== null && !("error" in current)
        ? current.content
        : null;
    return { content: [{ type: "text", text: JSON.stringify({ content }) }] };
  }

  private withdraw(filePath: string, diff: OpenDiff, tellRejected: boolean): void {
    diff.withdrawn = true;
    this.diffs.delete(filePath);
    diff.controller.abort();
    if (tellRejected) this.notify(diff.session, "ide/diffRejected", { filePath });
  }

  /** The agent's session ended: its pending diffs are withdrawn from the editor. */
  sessionClosed(session: string): void {
    for (const [filePath, diff] of [...this.diffs])
      if (diff.session === session) this.withdraw(filePath, diff, false);
  }

  closeAll(): void {
    for (const [filePath, diff] of [...this.diffs]) this.withdraw(filePath, diff, false);
  }

  /** Files with a diff awaiting the user, for lockstep.session. */
  pending(): string[] {
    return [...this.diffs.keys()];
  }
}
