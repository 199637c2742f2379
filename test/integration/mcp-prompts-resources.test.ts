/**
 * MCP prompts and resources of `scry mcp` (issue 20), exercised as a client starts the server:
 * the BUILT bin/scry.js spawned over stdio by the SDK's StdioClientTransport, a real index and a
 * real file watcher. Prompts carry evidence from retrieve_context; resources follow read_file's
 * path rules; a subscription is notified when the watcher re-indexes the file.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError, ResourceUpdatedNotificationSchema, type GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { SMALL_REPO, writeSmallRepo } from '../helpers/fixture-repo.js';
import { BIN, ensureFreshDist } from '../helpers/fresh-dist.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

const GENERATED = 130; // more than one resources/list page (100)
let t: ReturnType<typeof tempDir>;
let root: string;
let client: Client;
let stderr = '';
const updated: string[] = [];
const waiters: Array<() => void> = [];

const textOf = (r: GetPromptResult): string => r.messages.map((m) => (m.content.type === 'text' ? m.content.text : '')).join('\n');

async function rejection(p: Promise<unknown>): Promise<McpError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'expected the request to fail').toBeInstanceOf(McpError);
  return err as McpError;
}

beforeAll(async () => {
  ensureFreshDist();
  t = tempDir('scry-mcp-prompts-');
  root = join(t.dir, 'repo');
  const extra: Record<string, string> = {};
  for (let i = 0; i < GENERATED; i++) extra[`gen/file${String(i).padStart(3, '0')}.ts`] = `export const value${i} = ${i};\n`;
  writeSmallRepo(root, extra);
  writeFileSync(join(root, '.env'), 'API_TOKEN=sk-live-abcdefabcdefabcdefabcdef\n');
  writeFileSync(join(t.dir, 'outside.txt'), 'not part of the project\n');
  mkdirSync(join(root, 'links'));
  symlinkSync(join(t.dir, 'outside.txt'), join(root, 'links', 'escape.txt'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--root', root],
    env: { PATH: process.env.PATH ?? '', ...isolatedEnv(t.dir) },
    cwd: t.dir,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  client = new Client({ name: 'scry-prompts-test', version: '0' });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updated.push(n.params.uri);
    for (const w of waiters.splice(0)) w();
  });
  await client.connect(transport);
}, 180_000);

afterAll(async () => {
  await client?.close();
  t?.cleanup();
});

describe('MCP prompts', () => {
  it('declares prompts, resources with subscribe, completions and logging', () => {
    expect(client.getServerCapabilities()).toMatchObject({ prompts: {}, resources: { subscribe: true }, completions: {}, logging: {}, tools: {} });
  });

  it('lists the five templates with their arguments', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['repo_qa', 'explain_diagnostic', 'refactor', 'fim_completion', 'system_prompt']);
    const qa = prompts.find((p) => p.name === 'repo_qa');
    expect(qa?.arguments?.filter((a) => a.required).map((a) => a.name)).toEqual(['question']);
  });

  it('repo_qa fills evidence through retrieve_context, cited path:start-end', async () => {
    const result = await client.getPrompt({ name: 'repo_qa', arguments: { question: 'where do we retry with exponential backoff?' } });
    const text = textOf(result);
    expect(text).toContain('User question:\nwhere do we retry with exponential backoff?');
    expect(text).toMatch(/\[1\] src\/http\/retry_policy\.py:\d+-\d+/);
    expect(text).toContain('def retry_with_backoff');
    expect(result._meta?.cited).toEqual(expect.arrayContaining([expect.stringMatching(/^src\/http\/retry_policy\.py:/)]));
  });

  it('explain_diagnostic shows the diagnostic and the code around it', async () => {
    const result = await client.getPrompt({ name: 'explain_diagnostic', arguments: { path: 'src/parse/configLoader.ts', line: '4', message: "Unsafe assignment of an `any` value", code: 'no-unsafe-assignment', source: 'eslint' } });
    const text = textOf(result);
    expect(text).toContain('"path":"src/parse/configLoader.ts","line":4');
    expect(text).toContain('const value = JSON.parse(text);');
  });

  it('refactor cites its target lines and asks for a unified diff', async () => {
    const result = await client.getPrompt({ name: 'refactor', arguments: { instruction: 'rename openDatabase to openDb', path: 'src/db/open-database.ts', start_line: '3', end_line: '9' } });
    const text = textOf(result);
    expect(text).toContain('src/db/open-database.ts:3-9');
    expect(text).toContain('Output only a unified diff.');
  });

  it('fim_completion splits the file at the cursor between FIM markers', async () => {
    const result = await client.getPrompt({ name: 'fim_completion', arguments: { path: 'src/parse/configLoader.ts', line: '4', column: '3' } });
    const text = textOf(result);
    expect(text).toContain('File: src/parse/configLoader.ts');
    expect(text).toMatch(/<\|fim_prefix\|>[\s\S]*parseConfigFile[\s\S]*\n {2}<\|fim_suffix\|>const value = JSON\.parse\(text\);[\s\S]*<\|fim_middle\|>$/);
    expect(result._meta?.decoding).toMatchObject({ stop: ['\n\n'], max_tokens: 128 });
  });

  it('system_prompt renders the native or the JSON tool-call variant', async () => {
    expect(textOf(await client.getPrompt({ name: 'system_prompt', arguments: { tool_calls: 'json' } }))).toContain('{"type":"tool_call"');
    expect(textOf(await client.getPrompt({ name: 'system_prompt' }))).toContain('through the tool interface');
  });

  it('answers bad prompt requests with InvalidParams naming the problem', async () => {
    const missing = await rejection(client.getPrompt({ name: 'repo_qa', arguments: {} }));
    expect(missing.code).toBe(-32602);
    expect(missing.message).toContain('"question"');
    expect((await rejection(client.getPrompt({ name: 'no_such_prompt' }))).message).toContain('unknown prompt');
    expect((await rejection(client.getPrompt({ name: 'repo_qa', arguments: { question: 'x', bogus: '1' } }))).message).toContain('"bogus"');
    expect((await rejection(client.getPrompt({ name: 'explain_diagnostic', arguments: { path: 'a.ts', line: 'ten', message: 'm' } }))).message).toContain('"line"');
    const outside = await rejection(client.getPrompt({ name: 'refactor', arguments: { instruction: 'x', path: '../outside.txt' } }));
    expect(outside.message).toContain('PATH_OUTSIDE_ROOT');
    expect(outside.message).not.toContain('not part of the project');
  });
});

describe('MCP resources', () => {
  it('lists every indexed file once across pages, secrets never', async () => {
    const first = await client.listResources();
    expect(first.resources).toHaveLength(100);
    expect(first.nextCursor).toBeTypeOf('string');
    const uris = first.resources.map((r) => r.uri);
    for (let cursor = first.nextCursor; cursor !== undefined; ) {
      const page = await client.listResources({ cursor });
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
    }
    expect(new Set(uris).size).toBe(uris.length);
    for (const path of Object.keys(SMALL_REPO)) expect(uris).toContain(`scry://file/${path}`);
    expect(uris.filter((u) => u.startsWith('scry://file/gen/'))).toHaveLength(GENERATED);
    expect(uris.some((u) => u.includes('.env'))).toBe(false);
    expect(uris.some((u) => u.includes('escape.txt'))).toBe(false);
    expect((await rejection(client.listResources({ cursor: 'not-a-cursor' }))).code).toBe(-32602);
  });

  it('offers the scry://file/{path} template', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(['scry://file/{path}']);
  });

  it('reads a file whole, as it is on disk', async () => {
    const { contents } = await client.readResource({ uri: 'scry://file/src/db/open-database.ts' });
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri: 'scry://file/src/db/open-database.ts', mimeType: 'text/plain' });
    expect((contents[0] as { text: string }).text).toBe(SMALL_REPO['src/db/open-database.ts']);
  });

  it('refuses secrets, paths outside the root and links out of it, like read_file', async () => {
    const secret = await rejection(client.readResource({ uri: 'scry://file/.env' }));
    expect(secret.message).toContain('PATH_DENIED');
    expect(secret.message).not.toContain('sk-live');
    for (const uri of ['scry://file/..%2Foutside.txt', 'scry://file/../outside.txt', 'scry://file/links/escape.txt']) {
      const err = await rejection(client.readResource({ uri }));
      expect(err.message, uri).toMatch(/PATH_OUTSIDE_ROOT|PATH_DENIED/);
      expect(err.message, uri).not.toContain('not part of the project');
    }
    expect((await rejection(client.readResource({ uri: 'scry://file/src/none.ts' }))).code).toBe(-32002);
    expect((await rejection(client.readResource({ uri: 'file:///etc/passwd' }))).code).toBe(-32602);
  });

  it('completes template and prompt path arguments from the index', async () => {
    const byTemplate = await client.complete({ ref: { type: 'ref/resource', uri: 'scry://file/{path}' }, argument: { name: 'path', value: 'src/d' } });
    expect(byTemplate.completion.values).toEqual(['src/db/open-database.ts']);
    const byPrompt = await client.complete({ ref: { type: 'ref/prompt', name: 'system_prompt' }, argument: { name: 'tool_calls', value: 'j' } });
    expect(byPrompt.completion.values).toEqual(['json']);
  });

  it('accepts logging/setLevel', async () => {
    await expect(client.setLoggingLevel('warning')).resolves.toBeDefined();
  });

  it('notifies a subscriber when the watcher re-indexes the file, and only that file', async () => {
    await client.subscribeResource({ uri: 'scry://file/src/parse/configLoader.ts' });
    const seen = new Promise<void>((resolve) => waiters.push(resolve));
    writeFileSync(join(root, 'gen', 'file000.ts'), 'export const value0 = 1000;\n');
    writeFileSync(join(root, 'src', 'parse', 'configLoader.ts'), `${SMALL_REPO['src/parse/configLoader.ts']}\nexport const DEFAULT_PORT = 8080;\n`);
    await seen;
    expect(updated).toEqual(['scry://file/src/parse/configLoader.ts']);
    const { contents } = await client.readResource({ uri: 'scry://file/src/parse/configLoader.ts' });
    expect((contents[0] as { text: string }).text).toContain('DEFAULT_PORT');
    await client.unsubscribeResource({ uri: 'scry://file/src/parse/configLoader.ts' });
  }, 60_000);
});
