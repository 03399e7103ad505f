// The stdio transport with a guard the library lacks: a frame whose header is
// broken (no Content-Length, or one that is not a number; a too-short length
// leaves the next header broken) cannot be read past, since where the next
// message starts is lost. The library reports it to no one and the server would
// sit silent forever; here it ends the process with a message on stderr, so the
// editor sees the server stop and can start it again.
import { StreamMessageReader, StreamMessageWriter, type MessageReader, type MessageWriter } from "vscode-languageserver/node.js";

export interface StdioTransport {
  reader: MessageReader;
  writer: MessageWriter;
  /** Call once the client's shutdown request arrived: the end of input is then a clean exit. */
  shutdownReceived(): void;
}

export function stdioTransport(): StdioTransport {
  const reader = new StreamMessageReader(process.stdin);
  const writer = new StreamMessageWriter(process.stdout);
  let shutdown = false;
  // As the library does for raw streams: the client closing stdin ends the server.
  const ended = (): void => process.exit(shutdown ? 0 : 1);
  process.stdin.on("end", ended);
  process.stdin.on("close", ended);
  reader.onError((error) => {
    if (!/Content-Length|header/i.test(error.message)) {
      // A body that is not JSON, in a stream still in step: reported, and reading goes on.
      process.stderr.write(`lockstep: a message from the editor could not be read (${error.message.split("\n")[0]}); it was skipped.\n`);
      return;
    }
    process.stderr.write(
      `lockstep: the editor sent a message with a broken header (${error.message.split("\n")[0]}); the stream cannot be read past it, so the server stops. Restart it; if this repeats, the client's framing is at fault.\n`,
    );
    process.exit(1);
  });
  return { reader, writer, shutdownReceived: () => (shutdown = true) };
}
