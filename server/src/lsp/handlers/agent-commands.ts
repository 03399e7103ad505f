// The agent's commands (lockstep.ask, job, cancel, session, reset_session,
// decide): the agent service and the session's desk behind one switch.
import * as z from "zod";
import { errorEnvelope, okEnvelope, type Envelope } from "../../tools/envelope.js";
import { VERSION } from "../../version.js";
import type { AgentCommand } from "../commands.js";
import type { ServerContext } from "../server-context.js";

const decideArgs = z.object({
  id: z.string().min(1),
  decision: z.enum(["apply", "always", "reject"]),
});

export function agentCommands(ctx: ServerContext) {
  return async (command: AgentCommand, args: unknown): Promise<Envelope> => {
    switch (command) {
      case "ask": {
        const started = ctx.agent.ask(args);
        if (started.ok) ctx.events.showTranscript();
        return started;
      }
      case "job":
        return ctx.agent.job(args);
      case "cancel":
        return ctx.agent.cancel(args);
      case "session": {
        const s = ctx.settings.current;
        return okEnvelope({
          ...ctx.session.facts(),
          project_instructions: await ctx.agent.projectInstructions(),
          provider: s.provider,
          model: s.model ?? (s.provider === "gemini" ? "gemini-2.5-flash" : null),
          baseUrl: s.baseUrl ?? null,
          key_found: ctx.settings.keyFound(),
          approval: s.approval,
          version: VERSION,
          companion: ctx.companion.facts(),
        });
      }
      case "reset_session":
        ctx.agent.cancelAll();
        ctx.desk.rejectAll();
        ctx.session.reset();
        ctx.companion.reset();
        return okEnvelope({ message: "Session cleared: history, files in context and every 'always allow' are gone." });
      case "decide": {
        const parsed = decideArgs.safeParse(args);
        if (!parsed.success) return errorEnvelope("invalid_argument", "Invalid Argument: lockstep.decide needs {id, decision: apply | always | reject}.", ["Take the id from the code action or from lockstep.review."]);
        const { id, decision } = parsed.data;
        return ctx.desk.decide(id, decision) ? okEnvelope({ id, decision }) : errorEnvelope("not_found", `No staged change ${id}; it was decided or cancelled already.`);
      }
    }
  };
}
