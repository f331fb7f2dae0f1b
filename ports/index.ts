export type * from './cost-model.port.ts';
export type * from './evidence-store.port.ts';
export type * from './fold-records.ts';
export type * from './fold-store.port.ts';
export type * from './projection-sink.port.ts';
export type * from './request-log.ts';
export type * from './shared-types.ts';
export type * from './transcript-source.port.ts';
