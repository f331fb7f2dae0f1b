import { createServer, type Socket } from 'node:net';
import type Keyv from 'keyv';
import { afterAll, describe, test } from 'vitest';
import { KeyvEvidenceStore } from '../../adapters/backends/storage-keyv/keyv-evidence-store.ts';
import { KeyvFoldStore } from '../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { evidenceStoreConformance, foldStoreConformance } from '../../testing/index.ts';
import { POSTGRES_URL_VARIABLE, REDIS_URL_VARIABLE, serverUrl } from './support/server-urls.ts';
import {
  corruptKeyvArtifact,
  corruptKeyvBlob,
  keyvDamageHooks,
  postgresKeyv,
  redisKeyv,
  runNamespace,
} from './support/storage-backends.ts';

/**
 * The generic Keyv store against real servers, the way a team shares one store across
 * machines. One connection per backend for the whole file (the stores do not own it);
 * every test uses random session ids, so a server shared with other runs is fine.
 */
const backends = [
  { name: 'redis', variable: REDIS_URL_VARIABLE, connect: redisKeyv },
  { name: 'postgres', variable: POSTGRES_URL_VARIABLE, connect: postgresKeyv },
] as const;

/**
 * A server that accepts connections and never answers (a paused Redis): the store built on
 * it must fail each call within its deadline and dispose without waiting for it.
 */
const silentSockets = new Set<Socket>();
const silentServer = createServer((socket) => {
  // Read and drop what the client sends, so its close is seen (a paused socket never ends).
  socket.resume();
  silentSockets.add(socket);
  socket.on('close', () => silentSockets.delete(socket));
});
await new Promise<void>((resolve) => silentServer.listen(0, '127.0.0.1', resolve));
const silentPort = (silentServer.address() as { port: number }).port;
afterAll(async () => {
  for (const socket of silentSockets) socket.destroy();
  await new Promise((resolve) => silentServer.close(resolve));
});

for (const backend of backends) {
  const server = serverUrl(backend.variable);
  if (server.url === undefined) {
    if (server.required)
      test(`${backend.name} server is available`, () => {
        throw new Error(server.missingReason);
      });
    else describe.skip(`${backend.name} (${server.missingReason})`, () => test('skipped', () => undefined));
    continue;
  }
  const url = server.url;
  const namespace = runNamespace();
  const keyv: Keyv = backend.connect(url, namespace);
  // A second, independent connection: what another machine sharing the store would hold.
  const secondKeyv: Keyv = backend.connect(url, namespace);
  afterAll(async () => {
    await keyv.disconnect();
    if (backend.name === 'redis') await secondKeyv.disconnect();
  });

  describe(backend.name, () => {
    foldStoreConformance({ test }, () => new KeyvFoldStore({ keyv }), {
      label: `${backend.name} FoldStore`,
      ...keyvDamageHooks,
      corruptBlob: corruptKeyvBlob,
      repairsOnPut: true,
      reopen: async () => new KeyvFoldStore({ keyv: secondKeyv }),
      ...(backend.name === 'redis'
        ? {
            unanswering: {
              open: () =>
                new KeyvFoldStore({
                  keyv: redisKeyv(`redis://127.0.0.1:${silentPort}`, namespace),
                  ownsConnection: true,
                  callTimeoutMs: 300,
                }),
              deadlineMs: 300,
            },
          }
        : {}),
    });
    evidenceStoreConformance({ test }, ({ capBytes }) => new KeyvEvidenceStore({ keyv, capBytes }), {
      label: `${backend.name} EvidenceStore`,
      corruptArtifact: (store, sessionId, sha) => corruptKeyvArtifact(keyv, store, sessionId, sha),
    });
    test(`${backend.name} store declares itself shared`, () => {
      if (new KeyvFoldStore({ keyv }).capabilities.shared !== true)
        throw new Error(`${backend.name} store should declare capabilities.shared`);
    });
  });
}
