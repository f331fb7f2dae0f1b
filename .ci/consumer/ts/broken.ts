// The deliberate type error of check (b): a session id must be a string. `tsc` must reject this file.
import { createFoldRuntime } from 'pi-fold/runtime';

await createFoldRuntime({ sessionId: 42, store: 'memory' });
