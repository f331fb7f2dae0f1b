import { describe, expect, it, vi } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { openScriptedPi, settle } from '../../testing/pi/scripted-pi.ts';

// Counts evaluations of the optional peer: pi-fold imports it only dynamically, so the count
// says when (and how often) it was loaded.
const { loads } = vi.hoisted(() => ({ loads: { count: 0 } }));
vi.mock('@opentelemetry/api', async (importOriginal) => {
  loads.count += 1;
  return importOriginal();
});

describe('optional peers are loaded when pi-fold registers, not inside the first request', () => {
  it('@opentelemetry/api is loaded once before any request, and the first request does not load it', async () => {
    const pi = await openScriptedPi({
      script: (request) =>
        request.index >= 2
          ? { kind: 'text', text: 'done' }
          : { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: 2_000 } }] },
      fold: { foldStore: new MemoryFoldStore(), settingsPath: '/nonexistent/pi-fold/settings.json' },
    });
    try {
      expect(pi.requests).toHaveLength(0);
      await vi.waitFor(() => expect(loads.count, 'loaded at registration').toBe(1), { timeout: 5_000 });
      await pi.session.prompt('Read two blobs.');
      await settle(pi.session);
      expect(pi.requests.length).toBeGreaterThan(1);
      expect(pi.ledger.length, 'pi-fold projected the requests').toBe(pi.requests.length);
      expect(loads.count, 'not loaded again by a request').toBe(1);
    } finally {
      pi.session.dispose();
    }
  });
});
