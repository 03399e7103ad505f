export async function runTerminalClient(command: string, _args: string[], io: { stderr: (s: string) => void }): Promise<number> {
  io.stderr(`lockstep ${command}: not available yet\n`);
  return 2;
}
