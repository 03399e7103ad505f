// lockstep's own state directory, where its bookkeeping lives (trust, batch journals; the
// session store by default): $XDG_STATE_HOME/lockstep, else ~/.local/state/lockstep. Never
// the working tree, and never `sessionsDir` (that setting moves the sessions only).
import os from "node:os";
import path from "node:path";

export function lockstepStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env["XDG_STATE_HOME"]?.trim();
  const home = env["HOME"]?.trim() || os.homedir();
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, ".local", "state");
  return path.join(base, "lockstep");
}
