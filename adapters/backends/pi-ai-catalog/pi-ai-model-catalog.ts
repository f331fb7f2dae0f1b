import type { CatalogModel, ModelCatalog } from '../../../ports/cost-model.port.ts';
import { catalogModelOf, isPricedChatModel, type PiAiModel } from './pi-ai-price-list.ts';

/**
 * Providers that sell their own models, first: an id several providers list (a gateway's
 * copy of `claude-sonnet-4-5`) is priced as its maker sells it. The rest keep the registry's order.
 */
const MAKERS = ['anthropic', 'openai', 'google', 'deepseek', 'mistral', 'xai', 'moonshotai', 'zai', 'minimax'];

/** A date a provider appends to a model id: `-20250929`, `-2025-09-29`, `@20250929`. */
const DATE_SUFFIX = /[-@](?:\d{8}|\d{4}-\d{2}-\d{2})$/;

function rank(provider: string): number {
  const maker = MAKERS.indexOf(provider);
  return maker < 0 ? MAKERS.length : maker;
}

/**
 * A catalog over pi-ai registry entries. A recorded id is looked up as `provider/id`, then as
 * an id (a gateway's `deepseek/deepseek-chat` included), then by its last path part, then
 * without a date suffix, then as the longest registry id it begins with at a `-` (a dated or
 * suffixed release of a listed model). Where several providers list the match, the named
 * provider wins, else the model's maker.
 */
export function catalogFromPiAiModels(models: readonly PiAiModel[], source: string): ModelCatalog {
  const byKey = new Map<string, PiAiModel[]>();
  const add = (key: string, model: PiAiModel): void => {
    const list = byKey.get(key);
    if (list === undefined) byKey.set(key, [model]);
    else if (!list.includes(model)) list.push(model);
  };
  for (const model of models) {
    if (!isPricedChatModel(model)) continue;
    const id = model.id.toLowerCase();
    add(`${model.provider.toLowerCase()}/${id}`, model);
    add(id, model);
    add(id.split('/').at(-1)!, model);
  }
  const ids = [...byKey.keys()].filter((key) => !key.includes('/')).sort((left, right) => right.length - left.length);
  const cache = new Map<string, CatalogModel | undefined>();
  const pick = (key: string, provider: string | undefined): CatalogModel | undefined => {
    const found = byKey.get(key);
    if (found === undefined) return undefined;
    const best = [...found].sort(
      (left, right) =>
        Number(right.provider === provider) - Number(left.provider === provider) ||
        rank(left.provider) - rank(right.provider),
    )[0]!;
    return catalogModelOf(best, source);
  };
  const find = (modelId: string): CatalogModel | undefined => {
    const wanted = modelId.trim().toLowerCase();
    const slash = wanted.indexOf('/');
    const provider = slash < 0 ? undefined : wanted.slice(0, slash);
    const bare = wanted.split('/').at(-1)!;
    const undated = bare.replace(DATE_SUFFIX, '');
    for (const key of [wanted, bare, undated]) {
      const found = pick(key, provider);
      if (found !== undefined) return found;
    }
    const prefix = ids.find((id) => undated.startsWith(`${id}-`));
    return prefix === undefined ? undefined : pick(prefix, provider);
  };
  return {
    source,
    lookup(modelId) {
      if (!cache.has(modelId)) cache.set(modelId, find(modelId));
      return cache.get(modelId);
    },
  };
}
