// Commands waiting for the user where the editor cannot show a prompt (Helix 25.07): each is
// offered as code actions on every document (run once, always allow its prefix, reject), the
// way a staged change is, and decided through lockstep.decide with the command's id. The
// model's call waits until then, or until its job is cancelled.
import { CodeActionKind, type CodeAction } from "vscode-languageserver";
import {
  alwaysTitleFor,
  commandTitle,
  type CommandDecision,
  type CommandPrompt,
  type CommandQuestion,
} from "../tools/command-question.js";
import { errorEnvelope, okEnvelope, type Envelope } from "../tools/envelope.js";
import { COMMAND_PREFIX } from "./commands.js";

interface Waiting {
  question: CommandQuestion;
  settle: (decision: CommandDecision | "dismissed") => void;
}

export type CommandChoice = "apply" | "always" | "reject";

export class PendingCommands {
  private readonly waiting = new Map<string, Waiting>();
  private next = 1;

  /** `told`: the job's status says a command waits for a code action. */
  constructor(private readonly told: (question: CommandQuestion, id: string) => void) {}

  readonly prompt: CommandPrompt = (question, signal) => {
    if (signal.aborted) return Promise.resolve("dismissed");
    const id = `command-${this.next++}`;
    return new Promise((resolve) => {
      const onAbort = (): void => settle("dismissed");
      const settle = (decision: CommandDecision | "dismissed"): void => {
        this.waiting.delete(id);
        signal.removeEventListener("abort", onAbort);
        resolve(decision);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(id, { question, settle });
      this.told(question, id);
    });
  };

  /** The decision on a waiting command, or undefined when `id` names none (a change or a hunk, then). */
  decide(id: string, choice: CommandChoice): Envelope | undefined {
    const w = this.waiting.get(id);
    if (w === undefined) return undefined;
    if (choice === "always" && w.question.prefixes.length === 0)
      return errorEnvelope(
        "invalid_argument",
        `\`${commandTitle(w.question.command)}\` cannot be allowed for the session; run it once or reject it.`,
      );
    w.settle(choice === "apply" ? "once" : choice);
    const done = {
      apply: "runs now",
      always: "runs now, and its prefix runs unasked this session",
      reject: "was rejected",
    };
    return okEnvelope({ message: `\`${commandTitle(w.question.command)}\` ${done[choice]}.` });
  }

  actions(): CodeAction[] {
    const out: CodeAction[] = [];
    for (const [id, { question: q }] of this.waiting) {
      const shown = `\`${commandTitle(q.command, 60)}\``;
      const where = `${q.cwd === "." ? "" : ` in ${q.cwd}`}${q.sandboxed ? ", sandboxed" : ", not sandboxed"}`;
      const action = (title: string, decision: CommandChoice): CodeAction => ({
        title: `lockstep: ${title}`,
        kind: CodeActionKind.QuickFix,
        command: { title, command: `${COMMAND_PREFIX}decide`, arguments: [{ id, decision }] },
      });
      out.push(action(`run ${shown}${where}`, "apply"));
      if (q.prefixes.length > 0) out.push(action(alwaysTitleFor(q.prefixes).replace(/^A/, "a"), "always"));
      out.push(action(`reject ${shown}`, "reject"));
    }
    return out;
  }
}
