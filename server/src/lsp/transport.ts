// The stdio transport with a guard the library lacks: a frame whose header is
// broken (no Content-Length, or one that is not a number) or whose body is not
// JSON (a too-short length cuts it) cannot be read past, since where the next
// message starts is lost. The library reports it to no one and the server would
// sit silent forever; here it ends the process with a message on stderr, so the
// editor sees the server stop and can start it again.
import type { Readable, Writable } from "node:stream";
import { StreamMessageReader, StreamMessageWriter, type MessageReader, type MessageWriter } from "vscode-languageserver/node.js";

export interface StdioTransport {
  reader: MessageReader;
  writer: MessageWriter;
  /** Call once the client's shutdown request arrived: the end of input is then a clean exit. */
  shutdownReceived(): void;
}

/** The editor's stdio as bytes, for the relay (wrap mode), which frames them itself. */
export interface RawStdio {
  input: Readable;
  output: Writable;
  shutdownReceived(): void;
  broken(why: string, inHeader: boolean): void;
}

/** The end of the editor's input ends the server (cleanly after shutdown); so does a stream out of step. */
function stdioLife(): { shutdownReceived(): void; broken(why: string, inHeader: boolean): never } {
  let shutdown = false;
  // As the library does for raw streams: the client closing stdin ends the server.
  const ended = (): void => process.exit(shutdown ? 0 : 1);
  process.stdin.on("end", ended);
  process.stdin.on("close", ended);
  return {
    shutdownReceived: () => (shutdown = true),
    // A body that is not JSON is most often a Content-Length too short: the rest of the body then waits as
    // the next header, and the request it belonged to would go unanswered for ever. Either way the stream is
    // out of step, so the server stops and says why; the editor sees it stop and can start it again.
    broken: (why, inHeader) => {
      process.stderr.write(
        `lockstep: the editor sent a message with a broken ${inHeader ? "header" : "body (not JSON: its Content-Length may be too short)"} (${why.split("\n")[0]}); ` +
          "the stream cannot be read past it, so the server stops. Restart it; if this repeats, the client's framing is at fault.\n",
      );
      process.exit(1);
    },
  };
}

export function stdioTransport(): StdioTransport {
  const reader = new StreamMessageReader(process.stdin);
  const writer = new StreamMessageWriter(process.stdout);
  const life = stdioLife();
  reader.onError((error) => life.broken(error.message, /Content-Length|header/i.test(error.message)));
  return { reader, writer, shutdownReceived: life.shutdownReceived };
}

export function rawStdio(): RawStdio {
  return { input: process.stdin, output: process.stdout, ...stdioLife() };
}
