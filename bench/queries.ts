/**
 * The query set of bench/query-latency.ts: what agents and people type at a code search engine
 * over the pinned corpus (bench/corpus.ts). Fixed and deterministic so runs compare.
 */

export type QueryKind = 'identifier' | 'natural' | 'path' | 'phrase' | 'stacktrace' | 'issue' | 'rare';

export interface BenchQuery {
  readonly kind: QueryKind;
  readonly text: string;
}

const IDENTIFIERS = [
  'createElement', 'Observable', 'switchMap', 'mergeMap', 'BufferGeometry', 'WebGLRenderer', 'Vector3',
  'PutObjectCommand', 'GetObjectCommand', 'DescribeInstancesCommand', 'createProgram', 'SyntaxKind',
  'getTypeChecker', 'CompilerOptions', 'HotModuleReplacementPlugin', 'SourceMapDevToolPlugin', 'RuleTester',
  'ChangeDetectorRef', 'NgZone', 'initializeApp', 'getFirestore', 'onSnapshot', 'formatDistance', 'parseISO',
  'cloneDeep', 'debounce', 'createTheme', 'Effect.gen', 'max_retries', '__esModule',
];

const NATURAL = [
  'parse json configuration file',
  'retry failed http request with exponential backoff',
  'convert date to ISO string with timezone',
  'resolve module path relative to the current file',
  'render scene with perspective camera',
  'deep clone an object',
  'how are source maps generated',
  'read credentials from environment variables',
  'upload file to s3 bucket in multiple parts',
  'dependency injection token',
];

const PATHS = ['src/internal/Observable.ts', 'webpack/lib/Compiler.js', 'three/src/math/Vector3.js', 'eslint/lib/linter', 'date-fns/locale/fr'];

const PHRASES = ['"Maximum call stack size exceeded"', '"unexpected token"', 'function return value'];

const STACK_TRACE = `TypeError: Cannot read properties of undefined (reading 'subscribe')
    at SwitchMapSubscriber._innerSub (node_modules/rxjs/src/internal/operators/switchMap.ts:87:21)
    at OperatorSubscriber._next (node_modules/rxjs/src/internal/operators/OperatorSubscriber.ts:70:13)
    at Subscriber.next (node_modules/rxjs/src/internal/Subscriber.ts:75:12)
    at Compiler.compile (node_modules/webpack/lib/Compiler.js:1284:28)
    at Watching._go (node_modules/webpack/lib/Watching.js:229:20)
    at processTicksAndRejections (node:internal/process/task_queues:95:5)`;

/** A GitHub-issue-like text of about `bytes` bytes: prose, a config snippet, a log, repeated with variations. */
export function issueText(bytes = 5 * 1024): string {
  const parts = [
    '### Describe the bug\nAfter upgrading webpack to the latest version, the dev server crashes when a TypeScript file that',
    'imports an RxJS Observable is changed while watch mode is running. The HotModuleReplacementPlugin reports that the module',
    'graph is invalid and the compilation never finishes. It only happens with source maps enabled (devtool: "eval-source-map").\n',
    '### To reproduce\n1. Create a project with webpack, ts-loader and rxjs.\n2. Enable hot module replacement in webpack.config.js.',
    '3. Edit src/app/store.ts and save twice quickly.\n\n```js\nmodule.exports = {\n  mode: "development",\n  devtool: "eval-source-map",',
    '  entry: "./src/index.ts",\n  module: { rules: [{ test: /\\.tsx?$/, use: "ts-loader" }] },\n  plugins: [new webpack.HotModuleReplacementPlugin()],\n};\n```\n',
    '### Expected behavior\nThe changed module is rebuilt and the browser receives the update without a full reload.\n',
    '### Logs\n```\n[webpack-dev-server] Compilation failed: Cannot read properties of undefined (reading "hash")',
    '    at SourceMapDevToolPlugin.apply (webpack/lib/SourceMapDevToolPlugin.js:180:29)\n    at Compilation.seal (webpack/lib/Compilation.js:2954:10)\n```\n',
    '### Environment\nOS: Linux, Node 20, webpack 5, TypeScript 5.9, rxjs 7.8. We also use date-fns formatDistance for timestamps',
    'and lodash cloneDeep in the reducer, in case that matters. Retrying the request with exponential backoff did not help.\n',
  ];
  let out = '';
  for (let round = 0; Buffer.byteLength(out) < bytes; round++) {
    for (const p of parts) out += round === 0 ? `${p}\n` : `${p.replace(/\b(\w+)\b/, `$1 (again, run ${round})`)}\n`;
  }
  return out.slice(0, bytes);
}

/** About 50 queries, in a fixed order. */
export function benchQueries(): BenchQuery[] {
  return [
    ...IDENTIFIERS.map((text) => ({ kind: 'identifier' as const, text })),
    ...NATURAL.map((text) => ({ kind: 'natural' as const, text })),
    ...PATHS.map((text) => ({ kind: 'path' as const, text })),
    ...PHRASES.map((text) => ({ kind: 'phrase' as const, text })),
    { kind: 'stacktrace', text: STACK_TRACE },
    { kind: 'issue', text: issueText() },
    { kind: 'rare', text: 'zzqxjkvw nonexistentidentifierxyz' },
  ];
}

/** The queries the CLI timing runs (each spawns a process, so only a few). */
export const CLI_QUERIES: readonly string[] = ['createElement', 'parse json configuration file', 'webpack/lib/Compiler.js'];
