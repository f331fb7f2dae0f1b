import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPLAY_TOKENIZER } from '../../lab/peers/pi-host-lines.ts';
import { TOKENIZER_PACKAGE, TOKENIZER_VERSION } from '../../lab/provider/tokenizer-package.ts';
import { LAB_TOKENIZER } from '../../lab/provider/wire-tokens.ts';

const manifest = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};

describe('the tokenizer named once', () => {
  it('is the version the project installs, and inside the range it asks of users', () => {
    expect(manifest.devDependencies[TOKENIZER_PACKAGE]).toBe(TOKENIZER_VERSION);
    const [major] = TOKENIZER_VERSION.split('.');
    expect(manifest.peerDependencies[TOKENIZER_PACKAGE]).toBe(`^${major}.0.0`);
  });

  it('is what the install hint and the reports caption say', () => {
    expect(REPLAY_TOKENIZER).toBe(`${TOKENIZER_PACKAGE}@${TOKENIZER_VERSION}`);
    expect(LAB_TOKENIZER).toContain(`${TOKENIZER_PACKAGE} ${TOKENIZER_VERSION}`);
  });
});
