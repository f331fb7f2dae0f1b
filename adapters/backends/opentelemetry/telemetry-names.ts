/**
 * Names of what pi-fold reports to OpenTelemetry. GenAI semantic-convention names where one
 * exists (`gen_ai.*`); pi-fold's own otherwise (`pi_fold.*`). Session ids go on spans only:
 * as metric attributes they would make a series per conversation.
 */
export const METER_NAME = 'pi-fold';

export const ATTRIBUTES = {
  conversationId: 'gen_ai.conversation.id',
  operationName: 'gen_ai.operation.name',
  tokenType: 'gen_ai.token.type',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheWriteTokens: 'gen_ai.usage.cache_creation.input_tokens',
  toolName: 'gen_ai.tool.name',
  errorType: 'error.type',
  request: 'pi_fold.request',
  causes: 'pi_fold.rewrite.causes',
  commitCause: 'pi_fold.commit.cause',
  epoch: 'pi_fold.commit.epoch',
  action: 'pi_fold.action',
  outcome: 'pi_fold.action.outcome',
  storeOperation: 'pi_fold.store.operation',
  storeName: 'pi_fold.store.name',
} as const;

export const METRICS = {
  /** GenAI's own token histogram: input (the prompt the provider counted) and output. */
  tokenUsage: 'gen_ai.client.token.usage',
  promptTokens: 'pi_fold.request.prompt_tokens',
  cacheRead: 'pi_fold.request.cache_read_tokens',
  occupancy: 'pi_fold.request.occupancy',
  requests: 'pi_fold.requests',
  commits: 'pi_fold.commits',
  foldsLanded: 'pi_fold.commit.folds',
  tokensFreed: 'pi_fold.commit.tokens_freed',
  prefixRewritten: 'pi_fold.commit.prefix_rewritten_tokens',
  actions: 'pi_fold.actions',
  actionBytes: 'pi_fold.action.answer_bytes',
  storeDuration: 'pi_fold.store.duration',
} as const;
