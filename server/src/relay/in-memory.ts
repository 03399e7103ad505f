// lockstep's own server behind the relay: a reader and writer that hand message
// objects over in memory, so what the relay routes to lockstep is never
// serialised and parsed a second time.
import {
  AbstractMessageReader,
  AbstractMessageWriter,
  Disposable,
  type DataCallback,
  type Message,
  type MessageReader,
  type MessageWriter,
} from "vscode-jsonrpc";

class MemoryReader extends AbstractMessageReader implements MessageReader {
  private callback: DataCallback | undefined;
  private readonly early: Message[] = [];

  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    for (const message of this.early.splice(0)) callback(message);
    return Disposable.create(() => (this.callback = undefined));
  }

  deliver(message: Message): void {
    if (this.callback) this.callback(message);
    else this.early.push(message);
  }
}

class MemoryWriter extends AbstractMessageWriter implements MessageWriter {
  constructor(private readonly receive: (message: Message) => void) {
    super();
  }

  write(message: Message): Promise<void> {
    this.receive(message);
    return Promise.resolve();
  }

  end(): void {}
}

export interface MemoryChannel {
  /** What lockstep's connection reads. */
  reader: MessageReader;
  /** What lockstep's connection writes to. */
  writer: MessageWriter;
  /** Hands a message to lockstep. */
  deliver(message: Message): void;
}

/** A channel whose writes go to `fromServer`. */
export function memoryChannel(fromServer: (message: Message) => void): MemoryChannel {
  const reader = new MemoryReader();
  return { reader, writer: new MemoryWriter(fromServer), deliver: (m) => reader.deliver(m) };
}
