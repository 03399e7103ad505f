// The editor's messages read off stdin in plain mode: a MessageReader for
// vscode-languageserver over the one frame reader both modes use
// (`jsonrpc/framing.ts`), so plain mode and wrap mode share its rule for a stream
// in step, its -32600 ids and its cap on a body's size. A well-framed body that is
// not a JSON-RPC message is answered and reading goes on; a body over the cap is
// answered and read past without being held; a stream out of step ends the server.
import type { Readable } from "node:stream";
import {
  AbstractMessageReader,
  Disposable,
  type DataCallback,
  type MessageReader,
} from "vscode-languageserver/node.js";
import { readFrames } from "../jsonrpc/framing.js";

export interface FrameEvents {
  /** A whole frame that cannot be served (not JSON, not a message, over the cap): answered with this error, and reading goes on. */
  invalid(code: number, message: string, id: number | string | null): void;
  /** The stream cannot be read past this point: where the next message starts is lost. */
  broken(why: string, inHeader: boolean): void;
}

export class FrameReader extends AbstractMessageReader implements MessageReader {
  constructor(
    private readonly input: Readable,
    private readonly events: FrameEvents,
  ) {
    super();
  }

  listen(callback: DataCallback): Disposable {
    const stop = readFrames(
      this.input,
      (frame) => callback(frame.message),
      (why, inHeader) => this.events.broken(why, inHeader),
      {
        invalid: (code, message, id) => this.events.invalid(code, message, id),
        skipOversized: true,
      },
    );
    const onClose = (): void => this.fireClose();
    this.input.on("close", onClose);
    return Disposable.create(() => {
      stop();
      this.input.off("close", onClose);
    });
  }
}
