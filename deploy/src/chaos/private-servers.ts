import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findBinary, probeNats, probeRedis, sleep, stopChild } from '../infrastructure';
import { freePort } from '../ports';

/**
 * A nats-server or redis-server of the chaos run's own, on a free port: the run restarts it,
 * which it must never do to the servers other developers of this machine use.
 */
export class PrivateServer {
  private child?: ChildProcess;

  private constructor(
    readonly name: 'nats-server' | 'redis-server',
    private readonly binary: string,
    private readonly args: string[],
    readonly url: string,
    private readonly probe: (url: string) => Promise<string | undefined>,
    private readonly dataDir: string,
  ) {}

  /** JetStream keeps its store in a directory of its own, so a restart finds the stream again. */
  static async nats(): Promise<PrivateServer> {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'chaos-nats-'));
    const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir];
    return new PrivateServer('nats-server', need('nats-server'), args, `nats://127.0.0.1:${port}`, probeNats, dir);
  }

  /** Rate-limit counters only: nothing saved to disk. */
  static async redis(): Promise<PrivateServer> {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'chaos-redis-'));
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
    return new PrivateServer('redis-server', need('redis-server'), args, `redis://127.0.0.1:${port}`, probeRedis, dir);
  }

  async start(): Promise<void> {
    const child = spawn(this.binary, this.args, { stdio: 'ignore' });
    this.child = child;
    const deadline = Date.now() + 20_000;
    while (await this.probe(this.url)) {
      if (child.exitCode !== null) throw new Error(`${this.name} exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error(`${this.name} did not answer at ${this.url} within 20 s`);
      await sleep(100);
    }
  }

  async stop(): Promise<void> {
    if (this.child) await stopChild(this.child, 'SIGTERM', 10_000);
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async remove(): Promise<void> {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

function need(name: 'nats-server' | 'redis-server'): string {
  const binary = findBinary(name);
  if (!binary) throw new Error(`${name} is not installed (apt-get install ${name})`);
  return binary;
}
