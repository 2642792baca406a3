import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFaultProxy, type FaultProxy } from '../src/chaos/fault-proxy';

/** A real TCP server that answers every chunk with the same bytes. */
async function echoServer(): Promise<{ server: Server; port: number; connections: Set<Socket> }> {
  const connections = new Set<Socket>();
  const server = createServer((socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    socket.on('data', (chunk) => socket.write(chunk));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as { port: number }).port, connections };
}

/** A client of the proxy that collects what comes back. */
async function client(proxy: FaultProxy): Promise<{ socket: Socket; received: () => string }> {
  const socket = createConnection(proxy.address);
  await once(socket, 'connect');
  let text = '';
  socket.on('data', (chunk) => (text += chunk.toString()));
  return { socket, received: () => text };
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const by = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > by) throw new Error('condition not met in time');
    await sleep(10);
  }
}

describe('fault proxy (the chaos run between billing and NATS)', () => {
  let echo: Awaited<ReturnType<typeof echoServer>>;
  let proxy: FaultProxy;
  const sockets: Socket[] = [];

  beforeEach(async () => {
    echo = await echoServer();
    proxy = await startFaultProxy({ host: '127.0.0.1', port: echo.port });
  });

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await proxy.close();
    echo.server.close();
  });

  const open = async () => {
    const c = await client(proxy);
    sockets.push(c.socket);
    return c;
  };

  it('forwards both ways', async () => {
    const c = await open();
    c.socket.write('hello');
    await until(() => c.received() === 'hello');
    expect(proxy.connections()).toBe(1);
  });

  it('holds every byte the delay in each direction', async () => {
    const c = await open();
    proxy.delay(150);
    const sent = Date.now();
    c.socket.write('a');
    await until(() => c.received() === 'a');
    // There (150 ms) and back (150 ms); a timer may fire a millisecond early by the clock.
    expect(Date.now() - sent).toBeGreaterThanOrEqual(298);
  });

  it('never lets a chunk overtake an earlier one when the delay shrinks', async () => {
    const c = await open();
    proxy.delay(200);
    c.socket.write('a');
    await sleep(20);
    proxy.delay(0);
    c.socket.write('b');
    await until(() => c.received().length === 2);
    expect(c.received()).toBe('ab');
  });

  it('lets nothing cross a partition, not even a new connection, and delivers it all in order after the heal', async () => {
    const before = await open();
    proxy.partition();
    before.socket.write('one,');
    before.socket.write('two');
    const during = await open();
    during.socket.write('three');
    await sleep(300);
    expect(before.received()).toBe('');
    expect(during.received()).toBe('');
    // The connection opened during the partition has not reached the server.
    expect(echo.connections.size).toBe(1);
    proxy.heal();
    await until(() => before.received() === 'one,two' && during.received() === 'three');
    expect(echo.connections.size).toBe(2);
  });

  it('closes the client when the server goes away, and the server side when the client does', async () => {
    const c = await open();
    c.socket.write('x');
    await until(() => c.received() === 'x');
    for (const socket of echo.connections) socket.destroy();
    await once(c.socket, 'close');
    await until(() => proxy.connections() === 0);

    const second = await open();
    second.socket.write('y');
    await until(() => second.received() === 'y' && echo.connections.size === 1);
    second.socket.destroy();
    await until(() => echo.connections.size === 0);
  });
});
