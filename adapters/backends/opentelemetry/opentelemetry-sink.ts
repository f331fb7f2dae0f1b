import type { Attributes, Span } from '@opentelemetry/api';
import type { FoldWarning } from '../../../ports/fold-warning.ts';
import type {
  ActionTelemetry,
  CommitTelemetry,
  Projection,
  ProjectionSink,
  UsageTelemetry,
} from '../../../ports/projection-sink.port.ts';
import type { OpenTelemetryApi } from './load-opentelemetry.ts';
import { ATTRIBUTES, METER_NAME, METRICS } from './telemetry-names.ts';

/**
 * A ProjectionSink that reports to OpenTelemetry: per request (tokens sent, cache read as the
 * provider reported it, occupancy), per commit (folds, tokens freed, prefix rewritten, cause)
 * and per action (counts and answer bytes), as metrics, plus a span per request (from the
 * projection to the provider's counts), per commit and per action. Hands everything on to
 * `inner` unchanged.
 *
 * Each call takes an optional `at` (epoch ms): when the event happened, for a sink that hands
 * over events it held while the API was loading (`late-telemetry.ts`); spans then start and
 * end at those times. Without it, now.
 */
export class OpenTelemetrySink implements ProjectionSink {
  readonly specificationVersion = 'v1' as const;
  private readonly instruments;
  private readonly tracer;
  /**
   * Whether the meter records: the API hands out its no-op meter, for good, while no SDK was
   * registered when the sink was built.
   */
  private readonly metering: boolean;
  /** What the API's tracer proxy delegates to while no SDK is registered. */
  private readonly noTracing: unknown;
  private openRequest: { readonly request: number; readonly span: Span } | undefined;

  constructor(
    private readonly api: OpenTelemetryApi,
    private readonly sessionId: string,
    private readonly inner?: ProjectionSink,
  ) {
    const meter = api.metrics.getMeter(METER_NAME);
    this.metering = meter !== api.createNoopMeter();
    this.tracer = api.trace.getTracer(METER_NAME);
    this.noTracing = new api.ProxyTracerProvider().getDelegate();
    this.instruments = {
      tokenUsage: meter.createHistogram(METRICS.tokenUsage, {
        unit: '{token}',
        description: 'Tokens per request as the provider counted them, by gen_ai.token.type',
      }),
      promptTokens: meter.createHistogram(METRICS.promptTokens, {
        unit: '{token}',
        description: "Prompt tokens of each request pi-fold sent (the runtime's estimate)",
      }),
      cacheRead: meter.createHistogram(METRICS.cacheRead, {
        unit: '{token}',
        description: 'Cache read the provider reported for each request',
      }),
      occupancy: meter.createHistogram(METRICS.occupancy, {
        unit: '1',
        description: 'Prompt tokens sent over the serving budget',
      }),
      requests: meter.createCounter(METRICS.requests, {
        description: 'Projections handed to the host, by whether they rewrote the window',
      }),
      commits: meter.createCounter(METRICS.commits, { description: 'Commits landed, by cause' }),
      foldsLanded: meter.createHistogram(METRICS.foldsLanded, {
        unit: '{fold}',
        description: 'Folds landed per commit',
      }),
      tokensFreed: meter.createHistogram(METRICS.tokensFreed, {
        unit: '{token}',
        description: 'Estimated tokens a commit took out of the window',
      }),
      prefixRewritten: meter.createHistogram(METRICS.prefixRewritten, {
        unit: '{token}',
        description: 'Cached prefix a commit gave up (estimated tokens)',
      }),
      actions: meter.createCounter(METRICS.actions, { description: 'Agent actions, by action and outcome' }),
      actionBytes: meter.createHistogram(METRICS.actionBytes, {
        unit: 'By',
        description: 'Bytes of each action answer handed to the agent',
      }),
    };
  }

  /**
   * Whether a tracer provider is registered now (one may be registered after the sink was
   * built, and the API's proxy then starts delegating to it). The API installed without an SDK
   * is common (libraries depend on it), and its no-op spans and metrics still cost building their
   * attributes on every request, so with nothing to receive them they are not built at all.
   */
  private tracing(): boolean {
    const provider = this.api.trace.getTracerProvider();
    return !(provider instanceof this.api.ProxyTracerProvider) || provider.getDelegate() !== this.noTracing;
  }

  accept(projection: Projection, at?: number): void {
    this.inner?.accept(projection);
    const row = projection.ledger;
    this.endOpenRequest(at);
    const rewrite = row.causes.length > 0;
    if (this.metering) {
      this.instruments.requests.add(1, { [ATTRIBUTES.causes]: rewrite ? row.causes.join(',') : 'append' });
      this.instruments.promptTokens.record(row.estimatedTokens);
      this.instruments.occupancy.record(row.budgetTokens > 0 ? row.estimatedTokens / row.budgetTokens : 0);
    }
    if (!this.tracing()) return;
    const span = this.tracer.startSpan('pi_fold.request', {
      ...startedAt(at),
      attributes: {
        [ATTRIBUTES.conversationId]: this.sessionId,
        [ATTRIBUTES.operationName]: 'chat',
        [ATTRIBUTES.request]: row.request,
        [ATTRIBUTES.causes]: row.causes.join(','),
        'pi_fold.request.estimated_tokens': row.estimatedTokens,
        'pi_fold.request.budget_tokens': row.budgetTokens,
        'pi_fold.request.folds_landed': row.foldsLanded,
      },
    });
    this.openRequest = { request: row.request, span };
  }

  acceptUsage(event: UsageTelemetry, at?: number): void {
    this.inner?.acceptUsage?.(event);
    const prompt = event.input + event.cacheRead + event.cacheWrite;
    if (this.metering) {
      this.instruments.tokenUsage.record(prompt, {
        [ATTRIBUTES.tokenType]: 'input',
        [ATTRIBUTES.operationName]: 'chat',
      });
      this.instruments.tokenUsage.record(event.output, {
        [ATTRIBUTES.tokenType]: 'output',
        [ATTRIBUTES.operationName]: 'chat',
      });
      this.instruments.cacheRead.record(event.cacheRead);
    }
    if (this.openRequest?.request === event.request) {
      this.openRequest.span.setAttributes({
        [ATTRIBUTES.inputTokens]: prompt,
        [ATTRIBUTES.outputTokens]: event.output,
        [ATTRIBUTES.cacheReadTokens]: event.cacheRead,
        [ATTRIBUTES.cacheWriteTokens]: event.cacheWrite,
      });
      this.endOpenRequest(at);
    }
  }

  acceptCommitTelemetry(event: CommitTelemetry, at?: number): void {
    this.inner?.acceptCommitTelemetry?.(event);
    const attributes: Attributes = { [ATTRIBUTES.commitCause]: event.causes.join(',') || 'commit' };
    if (event.phase === 'landed' && this.metering) {
      this.instruments.commits.add(1, attributes);
      this.instruments.foldsLanded.record(event.foldsLanded, attributes);
      this.instruments.tokensFreed.record(
        Math.max(0, event.estimatedTokensBefore - event.estimatedTokensAfter),
        attributes,
      );
      this.instruments.prefixRewritten.record(event.prefixTokensRewritten, attributes);
    }
    if (!this.tracing()) return;
    const span = this.tracer.startSpan(`pi_fold.commit.${event.phase}`, {
      ...startedAt(at),
      attributes: {
        ...attributes,
        [ATTRIBUTES.conversationId]: this.sessionId,
        [ATTRIBUTES.epoch]: event.epoch,
        [ATTRIBUTES.request]: event.request,
        'pi_fold.commit.folds': event.foldsLanded,
        'pi_fold.commit.tokens_before': event.estimatedTokensBefore,
        'pi_fold.commit.tokens_after': event.estimatedTokensAfter,
        'pi_fold.commit.prefix_rewritten_tokens': event.prefixTokensRewritten,
        ...(event.providerCacheRead === undefined ? {} : { [ATTRIBUTES.cacheReadTokens]: event.providerCacheRead }),
      },
    });
    span.end(at);
  }

  acceptWarning(warning: FoldWarning): void {
    this.inner?.acceptWarning?.(warning);
  }

  acceptAction(event: ActionTelemetry, at?: number): void {
    this.inner?.acceptAction?.(event);
    const attributes: Attributes = {
      [ATTRIBUTES.action]: event.action,
      [ATTRIBUTES.outcome]: event.outcome,
      ...(event.code === undefined ? {} : { [ATTRIBUTES.errorType]: event.code }),
    };
    if (this.metering) {
      this.instruments.actions.add(1, attributes);
      this.instruments.actionBytes.record(event.answerBytes, { [ATTRIBUTES.action]: event.action });
    }
    if (!this.tracing()) return;
    const span = this.tracer.startSpan(`pi_fold.action ${event.action}`, {
      ...startedAt(at),
      attributes: {
        ...attributes,
        [ATTRIBUTES.conversationId]: this.sessionId,
        'pi_fold.action.answer_bytes': event.answerBytes,
      },
    });
    if (event.outcome === 'refused')
      span.setStatus({
        code: this.api.SpanStatusCode.ERROR,
        ...(event.code === undefined ? {} : { message: event.code }),
      });
    span.end(at);
  }

  /** A request whose usage never came (a failed call) is closed when the next one starts. */
  private endOpenRequest(at?: number): void {
    this.openRequest?.span.end(at);
    this.openRequest = undefined;
  }
}

/** A span's start option for an event that happened at `at` (now when undefined). */
function startedAt(at: number | undefined): { startTime?: number } {
  return at === undefined ? {} : { startTime: at };
}
