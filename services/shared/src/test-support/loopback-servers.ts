import http from 'node:http';
import net from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface LoopbackServer {
  port: number;
  /** Connections the server accepted: a guarded target must show none. */
  connections(): number;
  close(): Promise<void>;
}

export type Handler = (received: Received, res: http.ServerResponse) => void;

function listen(server: net.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

function counted(server: net.Server, port: number, closeAll: () => void): LoopbackServer {
  let connections = 0;
  server.on('connection', () => connections++);
  return {
    port,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        closeAll();
        server.close(() => resolve());
      }),
  };
}

/** An HTTP server that records every request (with its raw body bytes) before handing it to `handle`. */
export async function httpReceiver(
  handle: Handler,
  host = '127.0.0.1',
  port = 0,
): Promise<LoopbackServer & { received: Received[] }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      received.push(request);
      handle(request, res);
    });
  });
  const bound = await listen(server, host, port);
  return { ...counted(server, bound, () => server.closeAllConnections()), received };
}

/** A bare TCP server that only counts the connections reaching it. */
export async function tcpCounter(host = '127.0.0.1', port = 0): Promise<LoopbackServer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const bound = await listen(server, host, port);
  return counted(server, bound, () => sockets.forEach((s) => s.destroy()));
}

/**
 * A receiver on `allowedHost` and a counting server on `forbiddenHost` sharing one port, so one URL could reach
 * either depending only on the address the client connects to.
 */
export async function serversOnOnePort(
  handle: Handler,
  allowedHost: string,
  forbiddenHost: string,
): Promise<{ receiver: Awaited<ReturnType<typeof httpReceiver>>; counter: LoopbackServer }> {
  for (let attempt = 0; ; attempt++) {
    const receiver = await httpReceiver(handle, allowedHost);
    try {
      return { receiver, counter: await tcpCounter(forbiddenHost, receiver.port) };
    } catch (error) {
      await receiver.close();
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 5) throw error;
    }
  }
}
