import net from 'node:net';

/** Whether `port` can be listened on at `host` right now. */
export function portIsFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Refuses to start when a port the platform is about to listen on is taken (by a second
 * development stack, say), naming it and its setting in one line: a service that cannot listen
 * would otherwise be restarted for ever. `ports` maps each setting's name to its port (0: any).
 */
export async function assertPortsFree(host: string, ports: Record<string, number>): Promise<void> {
  for (const [setting, port] of Object.entries(ports)) {
    if (port === 0 || (await portIsFree(host, port))) continue;
    throw new Error(
      `Port ${port} (${setting}) is already in use on ${host}, by another Muse perhaps: ` +
        `set ${setting} to a free port.`,
    );
  }
}
