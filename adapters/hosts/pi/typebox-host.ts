import type * as TypeBoxModule from 'typebox';
import { FoldError } from '../../../core/fold-error.ts';

/**
 * typebox, which builds the fold tool's parameter schema, loaded when `pi-fold/pi` is imported.
 * Pi brings its own copy and its loader hands it to extensions under this name; an application
 * that imports `pi-fold/pi` without Pi gets FoldError `HOST.PACKAGE_MISSING` naming what to
 * install, not Node's bare "Cannot find package". The import is dynamic for that reason: a
 * static one fails while Node links the module graph, before any pi-fold code runs.
 */

/** The install lines named when typebox (and so Pi) is missing. */
export const PI_HOST_INSTALL_HINT =
  'npm install @mariozechner/pi-coding-agent@0.73.1 (Node ≥ 20.6) or npm install @earendil-works/pi-coding-agent@1.6.0 (Node ≥ 22.19); each brings typebox';

async function loadTypebox(): Promise<typeof TypeBoxModule> {
  try {
    return await import('typebox');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error;
    throw new FoldError(
      'HOST.PACKAGE_MISSING',
      `pi-fold/pi runs inside Pi and needs the package typebox, which Pi provides; it could not be loaded (${(error as Error).message.split('\n')[0]}); install Pi beside pi-fold: ${PI_HOST_INSTALL_HINT}`,
      { cause: error, details: { package: 'typebox' } },
    );
  }
}

export const { Type } = await loadTypebox();
