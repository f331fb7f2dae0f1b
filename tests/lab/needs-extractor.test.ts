import { describe, expect, it } from 'vitest';
import { extractNeeds } from '../../lab/replay/needs/extract-needs.ts';
import { commandPieces, errorPieces, isDistinctiveIdentifier, piecesOf } from '../../lab/replay/needs/need-pieces.ts';
import { assistantEntry, toolResultEntry, userEntry } from '../../testing/synthetic-session.ts';

const call = (id: string, name: string, argumentsValue: Record<string, unknown>) => ({
  id,
  name,
  arguments: argumentsValue,
});

const needsOf = (entries: Parameters<typeof extractNeeds>[0]) =>
  extractNeeds(entries).needs.map((need) => `${need.kind}:${need.piece}@${need.response}`);

describe('the pieces a model can only have from a tool', () => {
  it('finds paths, numbers, hashes and identifiers in a tool result', () => {
    const pieces = piecesOf(
      'packages/core/src/engine.ts:120 failed after 48213 ms (commit 3f9a2c1b7e, see https://ci.example.com/run/77)\n' +
        'buildSessionProjection returned ERR_FOLD_7 for session_state_v2 in ./src/main.ts and README.md',
    );
    const byText = new Map(pieces.map((piece) => [piece.text, piece.kind]));
    expect(byText.get('packages/core/src/engine.ts')).toBe('paths');
    expect(byText.get('48213')).toBe('numbers');
    expect(byText.get('3f9a2c1b7e')).toBe('identifiers');
    expect(byText.get('https://ci.example.com/run/77')).toBe('paths');
    expect(byText.get('buildSessionProjection')).toBe('identifiers');
    expect(byText.get('ERR_FOLD_7')).toBe('identifiers');
    expect(byText.get('session_state_v2')).toBe('identifiers');
    expect(byText.get('./src/main.ts')).toBe('paths');
    expect(byText.get('README.md')).toBe('paths');
  });

  it('refuses small numbers, years, common words and vocabulary every model knows', () => {
    const pieces = piecesOf(
      'The function returns 42 items in 300 ms since 2024; use useState and toString, hash with sha256 in utf8, ' +
        'and/or I/O over JavaScript on GitHub via console.log, e.g. python3 on x86_64 for es2022.',
    ).map((piece) => piece.text);
    expect(pieces).toEqual([]);
  });

  it('takes a distinctive identifier by its spelling, not by its length alone', () => {
    expect(isDistinctiveIdentifier('AgentSession')).toBe(true);
    expect(isDistinctiveIdentifier('getElementById')).toBe(true);
    expect(isDistinctiveIdentifier('MAX_RETRY_COUNT')).toBe(true);
    expect(isDistinctiveIdentifier('TS2345')).toBe(true);
    expect(isDistinctiveIdentifier('extraordinarily')).toBe(false);
    expect(isDistinctiveIdentifier('useState')).toBe(false);
    expect(isDistinctiveIdentifier('TypeScript')).toBe(false);
  });

  it('takes error lines a tool printed, with their message, and leaves code that names an error alone', () => {
    const pieces = errorPieces(
      [
        "src/app.ts(3,1): error TS2304: Cannot find name 'widgetFactory'.",
        '} catch (error: unknown) {',
        'const message = error instanceof Error ? error.message : String(error);',
        '  error: ColorValueSchema,',
        'ok',
      ].join('\n'),
    );
    expect(pieces).toContain("src/app.ts(3,1): error TS2304: Cannot find name 'widgetFactory'.");
    expect(pieces).toContain("Cannot find name 'widgetFactory'");
    expect(pieces).toHaveLength(2);
  });

  it('takes a command of two words and twelve characters from its first line only', () => {
    expect(
      commandPieces({ command: 'cd ~/work/app && npm run test:unit -- --run\necho "git push origin main"' }),
    ).toEqual(['cd ~/work/app && npm run test:unit -- --run', 'cd ~/work/app', 'npm run test:unit -- --run']);
    expect(commandPieces({ command: 'git push' })).toEqual([]);
  });
});

describe('the needs of a recording', () => {
  it('counts each later use of a piece a tool gave first, in text and in tool-call arguments', () => {
    const entries = [
      userEntry('u1', 'find where the engine builds its window'),
      assistantEntry('a1', 'Searching.', [call('c1', 'bash', { command: 'grep -rn projection src' })]),
      toolResultEntry(
        'r1',
        'c1',
        'bash',
        "packages/core/src/engine.ts:88: buildSessionProjection(branch)\nerror TS2304: Cannot find name 'widgetFactory'.\nrun id 48213",
      ),
      assistantEntry('a2', "Found buildSessionProjection; run 48213 failed with Cannot find name 'widgetFactory'.", [
        call('c2', 'read', { path: 'packages/core/src/engine.ts' }),
      ]),
      toolResultEntry('r2', 'c2', 'read', 'export function buildSessionProjection() {}'),
      assistantEntry('a3', 'buildSessionProjection is the one.'),
    ];
    expect(needsOf(entries).sort()).toEqual(
      [
        'identifiers:buildSessionProjection@1',
        'numbers:48213@1',
        "errors:Cannot find name 'widgetFactory'@1",
        'paths:packages/core/src/engine.ts@1',
        'identifiers:buildSessionProjection@2',
      ].sort(),
    );
    const { needs } = extractNeeds(entries);
    const latest = needs.find((need) => need.response === 2)!;
    expect(latest.sources).toEqual([2, 4]);
  });

  it('refuses pieces the user or the model wrote before a tool gave them', () => {
    const entries = [
      userEntry('u1', 'open src/config/loader.ts and check MAX_RETRY_COUNT'),
      assistantEntry('a1', 'I will use handlerV2 for 91234.', [call('c1', 'read', { path: 'src/config/loader.ts' })]),
      toolResultEntry('r1', 'c1', 'read', 'src/config/loader.ts\nMAX_RETRY_COUNT = 5\nhandlerV2 at 91234'),
      assistantEntry('a2', 'src/config/loader.ts sets MAX_RETRY_COUNT; handlerV2 handles 91234.'),
    ];
    expect(needsOf(entries)).toEqual([]);
  });

  it('refuses coincidences: a number inside a longer one, a command inside a longer one, small numbers', () => {
    const entries = [
      userEntry('u1', 'go'),
      assistantEntry('a1', 'Listing.', [call('c1', 'bash', { command: 'ls -la' })]),
      toolResultEntry('r1', 'c1', 'bash', 'total 123456\ncd ~/projects/app-two\n42 files, 7 dirs'),
      assistantEntry('a2', 'There are 42 files; 1234 is not here.', [
        call('c2', 'bash', { command: 'cd ~/projects/app' }),
      ]),
    ];
    expect(needsOf(entries)).toEqual([]);
  });

  it('gives no need to a response for a piece only a later tool result holds', () => {
    const entries = [
      userEntry('u1', 'go'),
      assistantEntry('a1', 'Reading src/late/file.ts', [call('c1', 'read', { path: 'src/late/file.ts' })]),
      toolResultEntry('r1', 'c1', 'read', 'src/late/file.ts: lateIdentifier99'),
    ];
    expect(needsOf(entries)).toEqual([]);
  });
});
