import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { KeyvFoldStore } from '../../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { sha256Hex } from '../../../core/util/hashing.ts';

/** Every file under a directory with its mode, mtime and content hash, as one comparable string. */
export async function directorySnapshot(root: string): Promise<string> {
  const lines: string[] = [];
  const walk = async (directory: string): Promise<void> => {
    for (const name of (await readdir(directory)).sort()) {
      const path = join(directory, name);
      const info = await stat(path);
      if (info.isDirectory()) await walk(path);
      else
        lines.push(
          `${path.slice(root.length)} ${info.mode.toString(8)} ${info.mtimeMs} ${sha256Hex(await readFile(path))}`,
        );
    }
  };
  await walk(root);
  return lines.join('\n');
}

/** Every key and value of a Keyv store's namespace, sorted, as one comparable string. */
export async function keyvSnapshot(store: KeyvFoldStore): Promise<string> {
  const lines: string[] = [];
  for await (const [key, value] of store.connection.entries('snapshot')) lines.push(`${key} ${JSON.stringify(value)}`);
  return lines.sort().join('\n');
}
