// $/cancelRequest reaches the domain as an AbortSignal, the one cancellation type below lsp/.
import type { CancellationToken } from "vscode-languageserver";

export function signalOf(token: CancellationToken): AbortSignal {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  else token.onCancellationRequested(() => controller.abort());
  return controller.signal;
}
