import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { PiSessionRegistry } from '../../adapters/hosts/pi/session-registry.ts';
import { CONFIG_DIR_ENV, settingsFilePath } from '../../adapters/hosts/pi/settings-file.ts';
import { openScriptedPi, settle } from '../../testing/pi/scripted-pi.ts';

const FILE_THRESHOLDS = { maxTarget: 0.9, minTarget: 0.5, consolidateAfter: 10, minFoldChars: 8000 };
const CODE_THRESHOLDS = { maxTarget: 0.6, minTarget: 0.2, consolidateAfter: 7, minFoldChars: 9000 };

/** docs/pi.md "Settings": thresholds passed to registerPiFold win over the settings file's. */
describe('pi: thresholds in code and in the settings file', () => {
  it('code thresholds reach the runtime, the file is left alone, /fold-settings says which applies and refuses a change', async () => {
    const configDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-precedence-'));
    const settingsPath = join(configDirectory, 'settings.json');
    const fileText = JSON.stringify({ thresholds: FILE_THRESHOLDS });
    writeFileSync(settingsPath, fileText);
    const pi = await openScriptedPi({
      script: () => ({ kind: 'text', text: 'ok' }),
      fold: { foldStore: new MemoryFoldStore(), settingsPath, settings: { thresholds: CODE_THRESHOLDS } },
    });
    await pi.session.prompt('Hello.');
    await settle(pi.session);
    const folding = await pi.registration.sessions.forSession(pi.sessionManager);
    expect(folding.runtime.view.settings.thresholds).toEqual(CODE_THRESHOLDS);

    await pi.session.prompt('/fold-settings');
    expect(pi.notices.at(-1)).toMatch(/thresholds set in code by registerPiFold/);
    expect(pi.notices.at(-1)).toContain(JSON.stringify(CODE_THRESHOLDS));
    await pi.session.prompt('/fold-settings maxTarget=0.7 minTarget=0.3');
    expect(pi.notices.at(-1)).toMatch(/refused, nothing written: thresholds set in code win over the file/);
    expect(readFileSync(settingsPath, 'utf8')).toBe(fileText);
    expect(pi.errors).toEqual([]);
  }, 120_000);

  it('without thresholds in code the file applies, beside the other code settings', async () => {
    const configDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-precedence-'));
    const settingsPath = join(configDirectory, 'settings.json');
    writeFileSync(settingsPath, JSON.stringify({ thresholds: FILE_THRESHOLDS }));
    const pi = await openScriptedPi({
      script: () => ({ kind: 'text', text: 'ok' }),
      fold: { foldStore: new MemoryFoldStore(), settingsPath, settings: { providerInputBudget: 50_000 } },
    });
    await pi.session.prompt('Hello.');
    await settle(pi.session);
    const folding = await pi.registration.sessions.forSession(pi.sessionManager);
    expect(folding.runtime.view.settings.thresholds).toEqual(FILE_THRESHOLDS);
    expect(folding.runtime.view.settings.providerInputBudget).toBe(50_000);
  }, 120_000);

  it('impossible thresholds in code are refused by name at registration, not at the first request', () => {
    expect(() => new PiSessionRegistry({ settings: { thresholds: { ...CODE_THRESHOLDS, minTarget: 0.8 } } })).toThrow(
      /minTarget \(0.8\) must be below maxTarget \(0.6\)/,
    );
    // @ts-expect-error thresholds are typed whole; a JavaScript caller can still pass a part, and is told what is missing
    expect(() => new PiSessionRegistry({ settings: { thresholds: { maxTarget: 0.6 } } })).toThrow(
      /thresholds are set whole: missing minTarget, consolidateAfter, minFoldChars/,
    );
  });
});

/** docs/pi.md "Settings": an empty PI_FOLD_CONFIG_DIR is unset, never the current directory. */
describe('pi: the settings directory variable', () => {
  it('an empty PI_FOLD_CONFIG_DIR= reads the default file, not settings.json in the current directory', () => {
    const defaultPath = join(homedir(), '.config', 'pi-fold', 'settings.json');
    expect(settingsFilePath({ [CONFIG_DIR_ENV]: '' })).toBe(defaultPath);
    expect(settingsFilePath({})).toBe(defaultPath);
    expect(settingsFilePath({ [CONFIG_DIR_ENV]: '/tmp/pi-fold-config' })).toBe('/tmp/pi-fold-config/settings.json');
    // What registerPiFold reads when the host passes no settingsPath.
    const saved = process.env[CONFIG_DIR_ENV];
    process.env[CONFIG_DIR_ENV] = '';
    try {
      expect(new PiSessionRegistry({}).settingsPath).toBe(defaultPath);
    } finally {
      if (saved === undefined) delete process.env[CONFIG_DIR_ENV];
      else process.env[CONFIG_DIR_ENV] = saved;
    }
  });
});
