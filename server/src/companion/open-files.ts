// The editor's open files as gemini-cli's `ide/contextUpdate` wants them: most
// recently opened or changed first, at most ten, only files that exist on disk
// (a new buffer not yet saved is left out), announced at most every 50 ms.
// LSP tells a server nothing about focus or cursor, so the most recent file is
// marked active and no cursor or selection is sent.
import { existsSync } from "node:fs";

export const MAX_OPEN_FILES = 10;
export const CONTEXT_DEBOUNCE_MS = 50;

export interface OpenFile {
  path: string;
  timestamp: number;
  isActive?: boolean;
}

export interface IdeContext {
  workspaceState: { openFiles: OpenFile[] };
}

export class OpenFiles {
  /** Absolute path → last time it was opened or changed; kept in that order, oldest first. */
  private readonly files = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private lastOrder = "";
  /** Announce at the next tick even if the order did not change. */
  private force = false;

  constructor(private readonly emit: (context: IdeContext) => void) {}

  /** Opened or changed: it moves to the front. A change to the front file alone announces nothing new. */
  touch(path: string): void {
    this.files.delete(path);
    this.files.set(path, Date.now());
    this.schedule(false);
  }

  closed(path: string): void {
    if (this.files.delete(path)) this.schedule(false);
  }

  /** Announce the current context even if nothing moved (an agent just connected). */
  announce(): void {
    this.schedule(true);
  }

  snapshot(): IdeContext {
    const openFiles: OpenFile[] = [];
    for (const [path, timestamp] of [...this.files].reverse()) {
      if (openFiles.length === MAX_OPEN_FILES) break;
      if (!existsSync(path)) continue;
      openFiles.push(openFiles.length === 0 ? { path, timestamp, isActive: true } : { path, timestamp });
    }
    return { workspaceState: { openFiles } };
  }

  dispose(): void {
    clearTimeout(this.timer);
  }

  private schedule(force: boolean): void {
    this.force ||= force;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const context = this.snapshot();
      const order = context.workspaceState.openFiles.map((f) => f.path).join("\n");
      if (!this.force && order === this.lastOrder) return;
      this.force = false;
      this.lastOrder = order;
      this.emit(context);
    }, CONTEXT_DEBOUNCE_MS);
    this.timer.unref();
  }
}
