import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILT_IN_CATALOG } from '../../../core/pricing/model-windows.ts';
import type { ModelCatalog } from '../../../ports/cost-model.port.ts';
import { catalogFromPiAiModels } from './pi-ai-model-catalog.ts';
import type { PiAiModel } from './pi-ai-price-list.ts';

/** Where each Pi line keeps its registry, and the two functions that list it. */
const REGISTRIES = [
  // Pi 1.x: the generated catalog behind `builtinModels()`.
  { entry: '@earendil-works/pi-ai/providers/all', providers: 'getBuiltinProviders', models: 'getBuiltinModels' },
  // Pi 0.73: the package's own `getProviders()` / `getModels()`.
  { entry: '@mariozechner/pi-ai', providers: 'getProviders', models: 'getModels' },
] as const;

/** The catalog a replay or the lab prices with, and why the built-in list serves where it does. */
export interface LoadedCatalog {
  readonly catalog: ModelCatalog;
  /** Set when no pi-ai registry could be read: what was tried. */
  readonly fallbackReason?: string;
}

let loading: Promise<LoadedCatalog> | undefined;

/**
 * Pi's `pi-ai` model registry as a catalog: the newer line first (its registry is the better
 * kept), then Pi 0.73's. Where neither is installed (an AI SDK user) or neither can be read,
 * the built-in list, with the reason. Loaded once per process.
 */
export function loadModelCatalog(): Promise<LoadedCatalog> {
  loading ??= readRegistries();
  return loading;
}

async function readRegistries(): Promise<LoadedCatalog> {
  const failures: string[] = [];
  for (const registry of REGISTRIES) {
    let module: Record<string, unknown>;
    try {
      // A variable specifier: the peer may be absent, and its types are not pi-fold's to require.
      const specifier: string = registry.entry;
      module = (await import(specifier)) as Record<string, unknown>;
    } catch {
      failures.push(`${registry.entry} is not installed`);
      continue;
    }
    const listProviders = module[registry.providers];
    const listModels = module[registry.models];
    if (typeof listProviders !== 'function' || typeof listModels !== 'function') {
      failures.push(`${registry.entry} has no ${registry.providers}()/${registry.models}()`);
      continue;
    }
    const models = (listProviders() as string[]).flatMap((provider) => listModels(provider) as PiAiModel[]);
    const manifest = owningManifest(fileURLToPath(import.meta.resolve(registry.entry)));
    return { catalog: catalogFromPiAiModels(models, `${manifest} model registry (${models.length} models)`) };
  }
  return { catalog: BUILT_IN_CATALOG, fallbackReason: `no pi-ai registry: ${failures.join('; ')}` };
}

/** `name version` of the package a resolved file belongs to. */
function owningManifest(file: string): string {
  for (let directory = dirname(file); dirname(directory) !== directory; directory = dirname(directory)) {
    const path = join(directory, 'package.json');
    if (!existsSync(path)) continue;
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown; version?: unknown };
    if (typeof parsed.name === 'string') return `${parsed.name} ${String(parsed.version ?? 'unknown')}`;
  }
  return 'pi-ai (version unknown)';
}
