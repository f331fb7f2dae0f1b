import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the endpoint received, as pi-ai's Anthropic provider sent it. */
export interface ThreadRequest {
  /** `create`, `continue`, or undefined for a request without `thread`. */
  readonly thread: 'create' | 'continue' | undefined;
  /** How many messages the body carried (a continuation carries only the new ones). */
  readonly sentMessages: number;
  /** The whole conversation the model answered: the thread's held messages, then the sent ones. */
  readonly conversation: readonly AnthropicMessage[];
}

interface AnthropicMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string | readonly { readonly type: string; readonly text?: string }[];
}

/** What the scripted model does after seeing `conversation`: call fetch_blob once more, or answer. */
export type ThreadScript = (
  conversation: readonly AnthropicMessage[],
  requestIndex: number,
) => { readonly call?: Record<string, unknown>; readonly text?: string };

export interface AnthropicThreadServer {
  readonly baseUrl: string;
  readonly requests: ThreadRequest[];
  close(): Promise<void>;
}

/**
 * A local stand-in for the Anthropic Messages endpoint with message threads, for pi-ai's real
 * Anthropic provider code: it answers with the event stream that provider parses, keeps each
 * reply's conversation under its message id, and continues a thread only from a reply it holds
 * and has not continued yet (else a 400 with `thread_not_found`, as the real endpoint answers).
 */
export async function startAnthropicThreadServer(script: ThreadScript): Promise<AnthropicThreadServer> {
  const requests: ThreadRequest[] = [];
  const held = new Map<string, readonly AnthropicMessage[]>();
  let replies = 0;
  const server = createServer((request, response) => {
    void readJson(request).then(
      (body) => answer(body, response),
      (error: unknown) => fail(response, 500, 'api_error', String(error)),
    );
  });

  function answer(
    body: { messages: AnthropicMessage[]; thread?: { type: 'create' | 'continue'; previous_message_id?: string } },
    response: ServerResponse,
  ): void {
    let conversation = body.messages;
    if (body.thread?.type === 'continue') {
      const previous = held.get(body.thread.previous_message_id ?? '');
      if (previous === undefined)
        return fail(response, 400, 'invalid_request_error', 'thread cannot be continued', 'thread_not_found');
      held.delete(body.thread.previous_message_id!);
      conversation = [...previous, ...body.messages];
    }
    const index = requests.length;
    requests.push({ thread: body.thread?.type, sentMessages: body.messages.length, conversation });
    const step = script(conversation, index);
    replies += 1;
    const id = `msg_local_${replies}`;
    const content =
      step.call === undefined
        ? [{ type: 'text', text: step.text ?? 'done' }]
        : [{ type: 'tool_use', id: `toolu_local_${replies}`, name: 'fetch_blob', input: step.call }];
    held.set(id, [...conversation, { role: 'assistant', content: content as AnthropicMessage['content'] }]);
    const inputTokens = Math.ceil(JSON.stringify(conversation).length / 4);
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (event: string, data: unknown) =>
      response.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...(data as object) })}\n\n`);
    send('message_start', {
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: 'claude-local',
        content: [],
        stop_reason: null,
        usage: { input_tokens: inputTokens, output_tokens: 1 },
      },
    });
    const block = content[0]!;
    if (block.type === 'tool_use') {
      send('content_block_start', { index: 0, content_block: { ...block, input: {} } });
      send('content_block_delta', {
        index: 0,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(step.call) },
      });
    } else {
      send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: (block as { text: string }).text } });
    }
    send('content_block_stop', { index: 0 });
    send('message_delta', {
      delta: { stop_reason: block.type === 'tool_use' ? 'tool_use' : 'end_turn' },
      usage: { output_tokens: 12 },
    });
    send('message_stop', {});
    response.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function fail(response: ServerResponse, status: number, type: string, message: string, errorCode?: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      type: 'error',
      error: { type, message, ...(errorCode === undefined ? {} : { details: { error_code: errorCode } }) },
    }),
  );
}

async function readJson(request: IncomingMessage): Promise<never> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as never;
}
