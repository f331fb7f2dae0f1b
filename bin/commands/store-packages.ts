import { createRequire } from 'node:module';
import { FoldError } from '../../core/fold-error.ts';

/**
 * The Keyv drivers a maintenance command loads for a `redis://` or `postgres://` target. They
 * are the user's optional packages, so a missing one is refused with FoldError
 * `HOST.PACKAGE_MISSING` naming the package and its install line (the CLI exits 3), never with
 * Node's resolver message and its require stack.
 */
const STORE_PACKAGES = {
  '@keyv/redis': 'npm install keyv @keyv/redis@5.1.6',
  '@keyv/postgres': 'npm install keyv @keyv/postgres@2.2.3',
} as const;

export type StorePackage = keyof typeof STORE_PACKAGES;

const requireFromHere = createRequire(import.meta.url);

/** Whether `error` is the resolver saying `name` itself (not one of its files) is absent. */
function isMissing(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown })?.code;
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return false;
  const message = String((error as Error).message);
  return message.includes(`'${name}'`);
}

/** The refusal for a store package that is not installed. */
export function storePackageMissing(name: StorePackage, target: string, cause?: unknown): FoldError {
  return new FoldError(
    'HOST.PACKAGE_MISSING',
    `${target} needs the optional package ${name}, which is not installed; install it: ${STORE_PACKAGES[name]}`,
    { ...(cause === undefined ? {} : { cause }), details: { package: name } },
  );
}

/** The resolved path of a store package, for loading its own dependencies (pg). */
export function resolveStorePackage(name: StorePackage, target: string): string {
  try {
    return requireFromHere.resolve(name);
  } catch (error) {
    if (isMissing(error, name)) throw storePackageMissing(name, target, error);
    throw error;
  }
}

/** `import()` of a store package, refused by name when it is absent. */
export async function importStorePackage<Module>(
  name: StorePackage,
  target: string,
  load: () => Promise<Module>,
): Promise<Module> {
  try {
    return await load();
  } catch (error) {
    if (isMissing(error, name)) throw storePackageMissing(name, target, error);
    throw error;
  }
}

/** Whether `error` is a refusal for an optional package that is not installed (the CLI exits 3). */
export function isPackageMissing(error: unknown): error is FoldError {
  return error instanceof FoldError && error.code === 'HOST.PACKAGE_MISSING';
}
