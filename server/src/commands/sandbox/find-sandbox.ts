// Which sandbox this machine has, found once per process. Linux: bubblewrap. Elsewhere none
// yet (macOS's sandbox-exec is not written), and the reason says so: the approval question,
// `lockstep config` and the session facts repeat it rather than pretend.
import { probeBubblewrap } from "./bubblewrap.js";
import type { SandboxProbe } from "./sandbox-backend.js";

let found: Promise<SandboxProbe> | undefined;

export function findSandbox(): Promise<SandboxProbe> {
  found ??= probe();
  return found;
}

function probe(): Promise<SandboxProbe> {
  if (process.platform === "linux") return probeBubblewrap();
  return Promise.resolve({ kind: "none", reason: `lockstep has no sandbox for ${process.platform} yet` });
}
