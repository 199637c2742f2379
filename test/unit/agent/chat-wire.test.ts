import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chatBody, completeBody, readChatReply, readStreamLine } from '../../../src/agent/chat-wire.js';
import { DECODING_PRESETS } from '../../../src/index.js';

describe('chat wire formats (OpenAI-compatible and Ollama, as documented)', () => {
  it('reads an OpenAI reply with native tool calls and usage', () => {
    const reply = readChatReply('openai', { choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }] } }], usage: { prompt_tokens: 7, completion_tokens: 3 } }, 1);
    expect(reply).toEqual({ content: '', toolCalls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }], usage: { prompt: 7, completion: 3 } });
  });

  it('reads an Ollama reply: object arguments become JSON text, missing ids are made up per turn', () => {
    const reply = readChatReply('ollama', { message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'list_files', arguments: { glob: '*.ts' } } }] }, prompt_eval_count: 5, eval_count: 2 }, 3);
    expect(reply).toMatchObject({ toolCalls: [{ id: 'call_3_1', function: { name: 'list_files', arguments: '{"glob":"*.ts"}' } }], usage: { prompt: 5, completion: 2 } });
  });

  it('builds request bodies with the decoding preset in each format', () => {
    const messages = [{ role: 'user' as const, content: 'hi' }];
    expect(chatBody('openai', 'm', messages, DECODING_PRESETS.qa)).toEqual({ model: 'm', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2, top_p: 0.9, max_tokens: 512, stream: false });
    expect(chatBody('ollama', 'm', messages, DECODING_PRESETS.qa)).toEqual({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: false, options: { temperature: 0.2, top_p: 0.9, num_predict: 512 } });
    expect(completeBody('ollama', 'm', 'P', DECODING_PRESETS.completion)).toEqual({ model: 'm', prompt: 'P', raw: true, stream: true, options: { temperature: 0.2, top_p: 0.9, num_predict: 128, stop: ['\n\n'], repeat_penalty: 1.05 } });
  });

  it('reads streamed lines: SSE data and [DONE], NDJSON with done, server errors', () => {
    expect(readStreamLine('openai', 'data: {"choices":[{"text":"ab","finish_reason":null}]}')).toEqual({ text: 'ab', done: false });
    expect(readStreamLine('openai', 'data: [DONE]')).toEqual({ text: '', done: true });
    expect(readStreamLine('openai', ': keep-alive')).toBeUndefined();
    expect(readStreamLine('ollama', '{"response":"x","done":true}')).toEqual({ text: 'x', done: true });
    expect(readStreamLine('ollama', '{"error":"model not loaded"}')).toEqual({ error: 'the server reported: model not loaded' });
  });

  it('never throws on arbitrary replies or lines (fuzz)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), fc.constantFrom('openai' as const, 'ollama' as const), (json, line, api) => {
        const reply = readChatReply(api, json, 1);
        expect('error' in reply || typeof reply.content === 'string').toBe(true);
        readStreamLine(api, line);
        readStreamLine(api, `data: ${JSON.stringify(json)}`);
        readStreamLine(api, JSON.stringify(json));
      }),
    );
  });
});
