import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCircles, layerViolations } from './support/layer-rules.ts';

const root = resolve(import.meta.dirname, '../..');

/** A throwaway tree holding exactly the given files. */
function fixture(files: Record<string, string>): string {
  const directory = mkdtempSync(join(tmpdir(), 'pi-fold-layers-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(directory, path)), { recursive: true });
    writeFileSync(join(directory, path), text);
  }
  return directory;
}

describe('dependency rule', () => {
  it('the tree as it stands breaks no layer rule', () => {
    expect(layerViolations(root)).toEqual([]);
  });

  it('catches core and ports reaching outward, or core pulling in the DI container', () => {
    const tree = fixture({
      'core/engine.ts':
        "import { container } from 'tsyringe';\nimport { FsStore } from '../adapters/backends/storage-fs/fs-store.ts';\nconst lazy = import('../composition/root.ts');\nimport { ok } from './fine.ts';\n",
      'ports/store.port.ts':
        "import type { Engine } from '../core/engine.ts';\nimport type { Other } from './other.port.ts';\n",
    });
    expect(layerViolations(tree)).toEqual([
      'engine-imports-no-sdk-or-di: core/engine.ts imports tsyringe',
      'engine-imports-nothing-outward: core/engine.ts imports ../adapters/backends/storage-fs/fs-store.ts',
      'engine-imports-nothing-outward: core/engine.ts imports ../composition/root.ts',
      'ports-import-only-ports: ports/store.port.ts imports ../core/engine.ts',
    ]);
  });

  it('catches product code importing a bench or a test, including bin/ reaching the benches', () => {
    const tree = fixture({
      'bin/commands/verify.ts': "import { scan } from '../../bench/storage/bench-backends.ts';\n",
      'lab/replay/run.ts': "export { drive } from '../../tests/support/drive-session.ts';\n",
      'testing/helper.ts': "import { fine } from '../core/index.ts';\n",
    });
    expect(layerViolations(tree)).toEqual([
      'product-imports-no-bench-or-tests: bin/commands/verify.ts imports ../../bench/storage/bench-backends.ts',
      'product-imports-no-bench-or-tests: lab/replay/run.ts imports ../../tests/support/drive-session.ts',
    ]);
  });

  it('catches an adapter importing another adapter, but not the shared storage helpers or the SQLite preset’s base', () => {
    const tree = fixture({
      'adapters/hosts/pi/registry.ts':
        "import { FsFoldStore } from '../../backends/storage-fs/fs-fold-store.ts';\nimport { wrap } from '../../../adapters/backends/storage-memory/memory-fold-store.ts';\n",
      'adapters/backends/storage-fs/fs-fold-store.ts':
        "import { assertBlobMatches } from '../storage-shared/blob-checks.ts';\n",
      'adapters/backends/storage-sqlite/create.ts':
        "import { KeyvFoldStore } from '../storage-keyv/keyv-fold-store.ts';\n",
      'adapters/backends/storage-keyv/keyv-fold-store.ts':
        "import { createSqliteKeyv } from '../storage-sqlite/create.ts';\n",
    });
    expect(layerViolations(tree)).toEqual([
      'adapter-imports-no-other-adapter: adapters/backends/storage-keyv/keyv-fold-store.ts imports ../storage-sqlite/create.ts',
      'adapter-imports-no-other-adapter: adapters/hosts/pi/registry.ts imports ../../backends/storage-fs/fs-fold-store.ts',
      'adapter-imports-no-other-adapter: adapters/hosts/pi/registry.ts imports ../../../adapters/backends/storage-memory/memory-fold-store.ts',
    ]);
  });

  it('catches adapters that point the wrong way: a backend reaching up, the composition root importing a host', () => {
    const tree = fixture({
      'adapters/backends/storage-fs/fs-fold-store.ts':
        "import { registerPiFold } from '../../hosts/pi/register.ts';\nimport { composeFoldRuntime } from '../../../composition/create.ts';\nimport type { FoldStore } from '../../../ports/fold-store.port.ts';\n",
      'adapters/hosts/pi/register.ts':
        "import { composeFoldRuntime } from '../../../composition/create.ts';\nimport { FoldError } from '../../../core/fold-error.ts';\n",
      'composition/create.ts':
        "import { FsFoldStore } from '../adapters/backends/storage-fs/fs-fold-store.ts';\nimport { registerPiFold } from '../adapters/hosts/pi/register.ts';\n",
      'adapters/storage-redis/redis-store.ts': "import type { FoldStore } from '../../ports/fold-store.port.ts';\n",
    });
    expect(layerViolations(tree)).toEqual([
      'adapter-imports-no-other-adapter: adapters/backends/storage-fs/fs-fold-store.ts imports ../../hosts/pi/register.ts',
      'backend-imports-no-host-or-composition: adapters/backends/storage-fs/fs-fold-store.ts imports ../../hosts/pi/register.ts',
      'backend-imports-no-host-or-composition: adapters/backends/storage-fs/fs-fold-store.ts imports ../../../composition/create.ts',
      'adapter-sits-in-hosts-or-backends: adapters/storage-redis/redis-store.ts imports ../../ports/fold-store.port.ts',
      'composition-imports-no-host: composition/create.ts imports ../adapters/hosts/pi/register.ts',
    ]);
  });

  it('catches a core room importing a room above it, a root file other than the error, or an undeclared room', () => {
    const tree = fixture({
      'core/fold-error.ts': 'export class FoldError extends Error {}\n',
      'core/fold-runtime.ts': "import { run } from './request/project-request.ts';\n",
      'core/transcript/transcript-index.ts':
        "import { FoldError } from '../fold-error.ts';\nimport { sha256Hex } from '../util/hashing.ts';\nimport { FoldLattice } from '../folds/fold-lattice.ts';\n",
      'core/folds/fold-lattice.ts':
        "import { TranscriptIndex } from '../transcript/transcript-index.ts';\nimport { FoldRuntime } from '../fold-runtime.ts';\n",
      'core/request/project-request.ts': "import { plan } from '../commit/plan/planner.ts';\n",
      'core/misc/helper.ts': "import { FoldError } from '../fold-error.ts';\n",
    });
    expect(layerViolations(tree)).toEqual([
      'core-room-imports-only-the-error-from-root: core/folds/fold-lattice.ts imports ../fold-runtime.ts',
      'core-room-is-declared: core/misc/helper.ts imports ../fold-error.ts',
      'core-room-imports-only-rooms-below: core/transcript/transcript-index.ts imports ../folds/fold-lattice.ts',
    ]);
  });

  it('catches the lab importing bin/, which runs it', () => {
    const tree = fixture({
      'lab/run-lab.ts':
        "import { findInstalledPi } from '../bin/commands/pi-host-lines.ts';\nimport { arms } from './arms/arms.ts';\n",
      'bin/commands/replay-command.ts': "import { replay } from '../../lab/replay/replay-transcript.ts';\n",
    });
    expect(layerViolations(tree)).toEqual([
      'lab-imports-no-bin: lab/run-lab.ts imports ../bin/commands/pi-host-lines.ts',
    ]);
  });

  it('names every import circle, however long, and nothing that only looks like one', () => {
    const tree = fixture({
      'adapters/hosts/pi/registry.ts': "import { land } from './landing/land.ts';\n",
      'adapters/hosts/pi/landing/land.ts': "import type { Manager } from '../registry.ts';\n",
      'core/a.ts': "import { b } from './b.ts';\n",
      'core/b.ts': "import { c } from './c.js';\n",
      'core/c.ts': "export { a } from './a.ts';\n",
      'core/d.ts': "import { a } from './a.ts';\nimport { gone } from './missing.ts';\n",
      'tests/e.test.ts': "import { e } from './f.ts';\n",
      'tests/f.ts': "import { e } from './e.test.ts';\n",
    });
    expect(importCircles(tree)).toEqual([
      'import-circle: adapters/hosts/pi/landing/land.ts, adapters/hosts/pi/registry.ts',
      'import-circle: core/a.ts, core/b.ts, core/c.ts',
    ]);
  });

  it('the shipped code, the lab included, holds no import circle', () => {
    expect(importCircles(root)).toEqual([]);
  });

  it('catches a bench taking helpers from the tests or from another bench', () => {
    const tree = fixture({
      'bench/pi/run.ts':
        "import { openScriptedPi } from '../../tests/pi/support/scripted-pi.ts';\nimport { median } from '../engine/median-timing.ts';\nimport { own } from './own.ts';\nimport { scripted } from '../../testing/pi/scripted-pi.ts';\nimport { FoldRuntime } from '../../core/fold-runtime.ts';\n",
    });
    expect(layerViolations(tree)).toEqual([
      'bench-takes-from-testing-or-own-folder: bench/pi/run.ts imports ../../tests/pi/support/scripted-pi.ts',
      'bench-takes-from-testing-or-own-folder: bench/pi/run.ts imports ../engine/median-timing.ts',
    ]);
  });

  it('catches a shipped room other than composition/ importing tsyringe', () => {
    const tree = fixture({
      'adapters/hosts/pi/registry.ts':
        "import { container } from 'tsyringe';\nimport type { ComposedRuntime } from '../../../composition/index.ts';\n",
      'bin/cli.ts': "import 'reflect-metadata';\n",
      'composition/root.ts': "import 'reflect-metadata';\nimport { container } from 'tsyringe';\n",
    });
    expect(layerViolations(tree)).toEqual([
      'only-composition-imports-tsyringe: adapters/hosts/pi/registry.ts imports tsyringe',
      'only-composition-imports-tsyringe: bin/cli.ts imports reflect-metadata',
    ]);
  });

  it('catches a shipped room other than composition/ looking a port up by its token', () => {
    const tree = fixture({
      'adapters/hosts/pi/view.ts': "import { BACKING_FOLD_STORE } from '../../../composition/tokens.ts';\n",
      'lab/arms/run.ts':
        "import type { COST_MODEL } from '../../composition/tokens.ts';\nimport { createFoldRuntime } from '../../composition/index.ts';\n",
      'composition/session.ts': "import { FOLD_STORE } from './tokens.ts';\n",
      'bench/pi/run.ts': "import { EVIDENCE_STORE } from '../../composition/tokens.ts';\n",
    });
    expect(layerViolations(tree)).toEqual([
      'only-composition-resolves-tokens: adapters/hosts/pi/view.ts imports ../../../composition/tokens.ts',
      'only-composition-resolves-tokens: lab/arms/run.ts imports ../../composition/tokens.ts',
    ]);
  });

  it('catches the application layer reaching past core and the ports', () => {
    const tree = fixture({
      'application/retention/gc.ts':
        "import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';\nimport Keyv from 'keyv';\nimport { createFoldRuntime } from '../../composition/index.ts';\nimport type { FoldStore } from '../../ports/fold-store.port.ts';\nimport { FoldError } from '../../core/fold-error.ts';\nimport { join } from 'node:path';\nimport { sibling } from './sibling.ts';\n",
    });
    expect(layerViolations(tree)).toEqual([
      'application-imports-only-core-and-ports: application/retention/gc.ts imports ../../adapters/backends/storage-fs/fs-fold-store.ts',
      'application-imports-only-core-and-ports: application/retention/gc.ts imports keyv',
      'application-imports-only-core-and-ports: application/retention/gc.ts imports ../../composition/index.ts',
    ]);
  });
});
