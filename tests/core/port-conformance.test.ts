import { test } from 'vitest';
import { RecordingProjectionSink } from '../../adapters/backends/projection-recorder/recording-projection-sink.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import type { FoldWarning } from '../../ports/fold-warning.ts';
import type { ProjectionSink } from '../../ports/projection-sink.port.ts';
import { costModelConformance } from '../../testing/cost-model-conformance.ts';
import { MemoryTranscriptSource } from '../../testing/memory-transcript-source.ts';
import { projectionSinkConformance } from '../../testing/projection-sink-conformance.ts';
import { assistantEntry, toolResultEntry, userEntry } from '../../testing/synthetic-session.ts';
import { transcriptSourceConformance } from '../../testing/transcript-source-conformance.ts';

/** The in-memory source, with a host that appends turns and can rewrite its first message. */
function memorySubject() {
  const source = new MemoryTranscriptSource('conformance-memory');
  let turn = 0;
  return {
    source,
    advance: () => {
      turn += 1;
      const call = { id: `call${turn}`, name: 'read', arguments: { path: `f${turn}.c` } };
      source.append(
        userEntry(`u${turn}`, `turn ${turn}`),
        assistantEntry(`a${turn}`, `reading f${turn}`, [call]),
        toolResultEntry(`r${turn}`, call.id, 'read', `contents of f${turn}`),
      );
    },
    rewrite: () => source.replace([userEntry('u-edited', 'the first message, edited'), ...source.entries.slice(1)]),
  };
}

transcriptSourceConformance({ test }, memorySubject, {
  createFoldStore: () => new MemoryFoldStore(),
  label: 'MemoryTranscriptSource',
});

/** The recording sink also keeps warnings, so the suite can ask it what it heard. */
class RecordingSinkWithWarnings extends RecordingProjectionSink {
  readonly warnings: FoldWarning[] = [];
  acceptWarning(warning: FoldWarning): void {
    this.warnings.push(warning);
  }
}

projectionSinkConformance({ test }, () => new RecordingSinkWithWarnings(), {
  createFoldStore: () => new MemoryFoldStore(),
  label: 'RecordingProjectionSink',
  received: (sink: ProjectionSink) => {
    const recording = sink as RecordingSinkWithWarnings;
    return {
      requests: recording.projections.map((projection) => projection.ledger.request),
      commitTelemetry: recording.commitEvents.map((event) => `${event.phase}@${event.request}`),
      warnings: recording.warnings.map((warning) => warning.code),
    };
  },
});

costModelConformance({ test }, () => createCharsCostModel(), { label: 'chars cost model (default price list)' });
for (const priceList of Object.values(PRICE_LISTS))
  costModelConformance({ test }, () => createCharsCostModel({ priceList }), {
    label: `chars cost model (${priceList.name})`,
  });
