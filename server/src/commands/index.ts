// Running a command for the model: its own room beside tools/. It reads a command line for
// approval (`command-line.ts`, `prefix-rules.ts`), runs it to its end in a process group with
// a budget, a timeout and cancel (`runner.ts`, `output-budget.ts`, `environment.ts`), and in a
// sandbox where the machine has one (`sandbox/`: the backend interface, bubblewrap, and which
// one is here). Knows nothing of the model, of approval prompts or of any protocol: the
// `run_command` tool is a thin entry over it in the one registry.
export { readCommandLine, type CommandLine, type SimpleCommand, type Word } from "./command-line.js";
export { coveredBy, prefixOf, reviewCommand, ruleOf, type CommandReview } from "./prefix-rules.js";
export { DEFAULT_BUDGET, OutputBudget, redact, StreamRedactor, type BudgetSizes } from "./output-budget.js";
export { commandEnvironment } from "./environment.js";
export { ShapeStream, trimCutEdges } from "./token-shapes.js";
export { clientStart, commandArgv, type ClientStart } from "./client-start.js";
export {
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  runCommand,
  SHELL,
  type RunRequest,
  type RunResult,
} from "./runner.js";
export type {
  SandboxBackend,
  SandboxPolicy,
  SandboxProbe,
  SandboxedStart,
} from "./sandbox/sandbox-backend.js";
export { bubblewrapArgs, probeBubblewrap } from "./sandbox/bubblewrap.js";
export { findSandbox } from "./sandbox/find-sandbox.js";
