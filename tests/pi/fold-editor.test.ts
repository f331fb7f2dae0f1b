import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { FoldEditorComponent } from '../../adapters/hosts/pi/fold-editor.ts';
import { occupancyBar } from '../../adapters/hosts/pi/fold-editor-model.ts';
import { loadTerminalText } from '../../adapters/hosts/pi/host-api.ts';
import { KEEP_BLOBS_RAW, openScriptedPi, PI_HOST_SCOPE, settle } from '../../testing/pi/scripted-pi.ts';

const DOWN = '\u001b[B';
const ENTER = '\r';

async function until(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 100 && !condition(); attempt += 1)
    await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('pi: /fold-editor on a real session', () => {
  it('shows occupancy, folds, marks and entries, and its keys run the validated actions as the user', async () => {
    const pi = await openScriptedPi({
      script: (request) =>
        request.index >= 40
          ? { kind: 'text', text: 'done' }
          : { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: 24_000 } }] },
      fold: {
        foldStore: new MemoryFoldStore(),
        settingsPath: '/nonexistent/pi-fold/settings.json',
        settings: KEEP_BLOBS_RAW,
      },
    });
    await pi.session.prompt('Read blobs.');
    await settle(pi.session);
    const { runtime } = await pi.registration.sessions.forSession(pi.sessionManager);
    let closed = false;
    const editor = new FoldEditorComponent(
      { requestRender: () => undefined },
      { fg: (_color: string, text: string) => text, bold: (text: string) => text } as never,
      runtime,
      () => (closed = true),
      await loadTerminalText(PI_HOST_SCOPE),
    );
    const screen = () => editor.render(120).join('\n');
    expect(screen()).toMatch(/\[[█░|]{30}\] [\d.]+% of 183616 tokens · cost-scheduled · ≥20000 raw kept · fence 80%/);
    expect(screen()).toContain(runtime.view.visibleFolds[0]!.record.id);
    expect(screen()).toContain(runtime.view.memory.marks[0]!.id);
    // Enter on the first fold peeks it (kept, not ephemeral): its verified source header shows.
    editor.handleInput(ENTER);
    await until(() => screen().includes('source sha256'));
    expect(screen()).toContain(`fold ${runtime.view.visibleFolds[0]!.record.id}`);
    // Walk down to the newest raw entry and pin it with p: the runtime records the pin.
    const rows = runtime.view.visibleFolds.length + runtime.view.memory.marks.length;
    for (let step = 0; step < rows + 200; step += 1) editor.handleInput(DOWN);
    editor.handleInput('p');
    await until(() => runtime.view.memory.pins.size === 1 && screen().includes('📌'));
    expect(runtime.view.memory.pins.size).toBe(1);
    expect(screen()).toMatch(/📌/);
    // u on an entry row does nothing but say so; the state is unchanged.
    editor.handleInput('u');
    expect(screen()).toContain('that key does nothing on a entry row');
    editor.handleInput('\u001b');
    expect(closed).toBe(true);
    expect(occupancyBar(0.5, 0.8, 10)).toBe('[█████░░░|░]');
  }, 120_000);
});
