export { type LoadedCatalog, loadModelCatalog } from './load-pi-ai-catalog.ts';
export { catalogFromPiAiModels } from './pi-ai-model-catalog.ts';
export { catalogModelOf, type PiAiModel } from './pi-ai-price-list.ts';
