import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@billing/testing/dist/ports';
import type { PlatformProcess } from '@billing/testing/dist/platform-process';
import { LOCAL_SERVER_START_TIMEOUT_MS, localServerProcess, type LocalServer } from './local-servers';
import { NATS_SERVER } from './nats';

/** One server of a NATS cluster started by `startNatsCluster`. */
export interface NatsClusterNode {
  /** Its `server_name`, as stream info names the servers holding a copy. */
  name: string;
  url: string;
  process: PlatformProcess;
}

/** A JetStream cluster of its own on 127.0.0.1, each server with a store of its own. */
export interface NatsCluster {
  /** Its `cluster.name`, which a stream's placement can name. */
  name: string;
  nodes: NatsClusterNode[];
  /** Stops every server and deletes their stores. */
  remove(): Promise<void>;
}

/**
 * `size` nats-servers (`-js`, Debian's binary) routed to each other as one cluster named
 * `name`, on free ports, each server tagged `node:<index>` (stream placement by tags). They
 * start together: JetStream answers on none until a majority of them has elected its meta leader.
 */
export async function startNatsCluster(name: string, size = 3): Promise<NatsCluster> {
  const clientPorts: number[] = [];
  const routePorts: number[] = [];
  for (let i = 0; i < size; i++) {
    clientPorts.push(await freePort());
    routePorts.push(await freePort());
  }
  const routes = routePorts.map((port) => `nats://127.0.0.1:${port}`).join(',');
  const dataDirs: string[] = [];
  const removeData = () => dataDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  const nodes = clientPorts.map((port, index): NatsClusterNode => {
    const serverName = `${name}-${index}`;
    const dataDir = mkdtempSync(join(tmpdir(), `${serverName}-`));
    dataDirs.push(dataDir);
    // Server tags have no command-line flag.
    const configFile = join(dataDir, 'server.conf');
    writeFileSync(configFile, `server_tags: ["node:${index}"]\n`);
    const server: LocalServer = {
      ...NATS_SERVER,
      args: (clientPort, store) => [
        '-c',
        configFile,
        ...NATS_SERVER.args(clientPort, join(store, 'jetstream')),
        '--server_name',
        serverName,
        '--cluster_name',
        name,
        '--cluster',
        `nats://127.0.0.1:${routePorts[index]}`,
        '--routes',
        routes,
      ],
    };
    const started = localServerProcess(server, port, dataDir);
    return { name: serverName, url: started.url, process: started.process };
  });
  const remove = async () => {
    await Promise.all(nodes.map((node) => node.process.stop()));
    removeData();
  };
  try {
    await Promise.all(nodes.map((node) => node.process.start(LOCAL_SERVER_START_TIMEOUT_MS)));
  } catch (err) {
    await remove();
    throw err;
  }
  return { name, nodes, remove };
}
