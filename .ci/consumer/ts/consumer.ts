// Consumer check (b), part 1: the engine, the ports and every store, typed against the
// installed package's .d.ts files under a strict default tsconfig. Must pass with no error.
import { FoldError, type FoldErrorCode, type FoldSettingsInput } from 'pi-fold';
import type { FoldStore, TranscriptEntry } from 'pi-fold/ports';
import { createFoldRuntime, type FoldRuntimeOptions } from 'pi-fold/runtime';
import { FsFoldStore } from 'pi-fold/storage-fs';
import { KeyvFoldStore } from 'pi-fold/storage-keyv';
import { MemoryFoldStore } from 'pi-fold/storage-memory';
import { createSqliteFoldStore } from 'pi-fold/storage-sqlite';

const options: FoldRuntimeOptions = { sessionId: 'typed', store: 'memory', settings: { providerInputBudget: 20_000 } };
// The shipped declarations keep settings a typed object: a misspelt setting must be a type error
// (tsc reports an unused directive, and this file fails, if excess-property checking is lost).
const typedSettings: FoldSettingsInput = { scheduling: 'band', blacklistAutoFoldTools: ['bash'] };
// @ts-expect-error `maxTarget` is a member of `thresholds`, not a setting
const misspelt: FoldRuntimeOptions = { sessionId: 'typed', settings: { ...typedSettings, maxTarget: 0.7 } };
const { runtime, dispose } = await createFoldRuntime(options);
const entries: TranscriptEntry[] = [
  { id: 'u1', role: 'user', text: 'Read the parser.', bytes: '{"role":"user","content":"Read the parser."}' },
];
const { messages } = await runtime.project(entries, { contextWindow: 200_000 });
const status = await runtime.act({ action: 'status' });
const firstLine: string = status.text.split('\n')[0] ?? '';
const store: FoldStore = new MemoryFoldStore();
const code: FoldErrorCode = 'HOST.PACKAGE_MISSING';
const isMissingPackage = (error: unknown): boolean => FoldError.isInstance(error) && error.code === code;

export { createSqliteFoldStore, FsFoldStore, firstLine, isMissingPackage, KeyvFoldStore, messages, misspelt, store };

await dispose();
