/**
 * The line rules of `parseFailure`, tried in order on each line (ANSI colours already removed); the
 * first that returns true consumes the line. Formats are those the tools print (see
 * test/golden/failures/logs/, captured from the real tools by scripts/failure-logs.sh).
 */
import { isLibraryPath } from '../core/library-paths.js';
import { isTestPath } from '../search/rank.js';
import type { FailureItem, FailureKind, FailureTool } from './failure-item.js';

/** The failing test a block belongs to. */
export interface TestRef {
  readonly name: string;
  readonly tool: FailureTool;
  /** The test's own function name (the last part of `name`), to recognise its frame. */
  readonly fn: string;
  readonly file?: string | undefined;
}

export interface Block {
  /** Index of the block's first item. */
  start: number;
  message: string;
  frames: number;
  test?: TestRef | undefined;
  testEmitted: boolean;
}

export interface ParseState {
  items: FailureItem[];
  block: Block;
  /** Python frames waiting for their exception line. */
  pending: number[];
  finishBlock(): void;
  prev?: string | undefined;
  /** The function named on the line before a Go or Rust frame's location. */
  frameSymbol?: { name: string; tool: FailureTool } | undefined;
  eslintFile?: string | undefined;
  rustError?: string | undefined;
  /** The next non-empty line is the block's message (after a jest/vitest header or a Rust panic). */
  messageNext?: boolean | undefined;
  mochaFailing?: boolean | undefined;
}

export type LineRule = (line: string, state: ParseState) => boolean;

/** `file://`, backslashes and a leading `./` removed. */
export function normPath(file: string): string {
  return file.replace(/^file:\/\//, '').replace(/\\/g, '/').replace(/^(?:\.\/)+/, '');
}

/** The last part of a qualified name: `calc::tests::adds` → `adds`, `Crash.load` → `load`. */
export function lastSegment(name: string): string {
  return name.replace(/\[.*$/, '').split(/::|\.|#| › | > /).filter((s) => s !== '').pop() ?? name;
}

function setMessage(state: ParseState, message: string): void {
  const m = message.trim();
  if (m === '') return;
  if (state.block.message === '') state.block.message = m;
  else if (state.block.test === undefined && state.block.frames > 0) {
    state.finishBlock();
    state.block.message = m;
  }
}

function startTest(state: ParseState, test: TestRef): void {
  state.finishBlock();
  state.block.test = test;
}

interface Located {
  readonly file: string;
  readonly line: number;
  readonly column?: number | undefined;
  readonly symbol?: string | undefined;
  readonly message?: string | undefined;
  readonly tool: FailureTool;
}

/** Adds an item; a frame inside the block's failing test becomes that test's item. */
function emit(state: ParseState, kind: FailureKind, at: Located): number {
  const file = normPath(at.file);
  const line = Number.isSafeInteger(at.line) ? at.line : 0;
  const column = at.column !== undefined && Number.isSafeInteger(at.column) ? at.column : undefined;
  const b = state.block;
  if (kind === 'frame' || kind === 'panic') b.frames++;
  const inTest = b.test !== undefined && !b.testEmitted && (kind === 'frame' || kind === 'panic') && !isLibraryPath(file) && (isTestPath(file) || (at.symbol !== undefined && lastSegment(at.symbol) === b.test.fn));
  if (inTest) {
    b.testEmitted = true;
    state.items.push({ file, line, column, symbol: b.test!.name, message: at.message ?? '', kind: 'test', tool: b.test!.tool });
  } else state.items.push({ file, line, column, symbol: at.symbol, message: at.message ?? '', kind, tool: at.tool });
  return state.items.length - 1;
}

const int = (s: string | undefined): number | undefined => (s === undefined ? undefined : Number(s));

const headers: LineRule = (line, state) => {
  let m = /^_{3,} (\S.*?) _{3,}$/.exec(line);
  if (m) return startTest(state, { name: m[1]!, tool: 'pytest', fn: lastSegment(m[1]!) }), true;
  m = /^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)/.exec(line);
  if (m) {
    const qualified = m[2]!.endsWith(`.${m[1]}`) ? m[2]! : `${m[2]}.${m[1]}`;
    return startTest(state, { name: qualified.split('.').slice(-2).join('.'), tool: 'unittest', fn: m[1]! }), true;
  }
  m = /^\s*● (.+)$/.exec(line);
  if (m && !/^(?:Test suite failed to run|Console)$/.test(m[1]!)) {
    startTest(state, { name: m[1]!, tool: 'jest', fn: lastSegment(m[1]!) });
    return (state.messageNext = true);
  }
  m = /^\s*FAIL\s+(\S+)\s+>\s+(.+)$/.exec(line);
  if (m) {
    startTest(state, { name: m[2]!, tool: 'vitest', fn: lastSegment(m[2]!), file: normPath(m[1]!) });
    return (state.messageNext = true);
  }
  m = /^\s*--- FAIL: (\S+)/.exec(line);
  if (m) return startTest(state, { name: m[1]!, tool: 'go', fn: lastSegment(m[1]!) }), true;
  m = /^---- (\S+) stdout ----$/.exec(line);
  if (m) return startTest(state, { name: m[1]!, tool: 'cargo', fn: lastSegment(m[1]!) }), true;
  return mochaHeader(line, state);
};

function mochaHeader(line: string, state: ParseState): boolean {
  if (/^\s+\d+ failing$/.test(line)) return (state.mochaFailing = true);
  if (!state.mochaFailing) return false;
  let m = /^\s+\d+\) (.+)$/.exec(line);
  if (m) return startTest(state, { name: m[1]!, tool: 'mocha', fn: m[1]! }), true;
  m = /^\s+(\S.*):$/.exec(line);
  const t = state.block.test;
  if (m && t?.tool === 'mocha' && state.block.message === '' && state.block.frames === 0 && (state.prev ?? '').trim() !== '') {
    state.block.test = { ...t, name: `${t.name} › ${m[1]}`, fn: m[1]! };
    return true;
  }
  return false;
}

/** The first non-empty line after a jest/vitest header or a Rust panic is the block's message. */
const messageNext: LineRule = (line, state) => {
  if (!state.messageNext || line.trim() === '') return false;
  state.messageNext = false;
  if (/^\s*(?:❯|at )/.test(line)) return false;
  setMessage(state, line);
  return true;
};

const pytestSummary: LineRule = (line, state) => {
  const m = /^(?:FAILED|ERROR) (\S+?\.py)::(\S+?)(?: - (.*))?$/.exec(line);
  if (!m) return false;
  const file = normPath(m[1]!);
  const name = m[2]!.split('::').join('.');
  const known = state.items.some((i) => i.kind === 'test' && i.file === file && i.symbol === name);
  if (!known) state.items.push({ file, line: 0, symbol: name, message: (m[3] ?? '').slice(0, 300), kind: 'test', tool: 'pytest' });
  return true;
};

const python: LineRule = (line, state) => {
  if (/^Traceback \(most recent call last\):$/.test(line)) {
    if (state.block.test === undefined && state.items.length > state.block.start) state.finishBlock();
    return true;
  }
  let m = /^\s*File "(.+?)", line (\d+)(?:, in (.+))?$/.exec(line);
  if (m) {
    const symbol = m[3] !== undefined && !m[3].startsWith('<') ? m[3] : undefined;
    state.pending.push(emit(state, 'frame', { file: m[1]!, line: Number(m[2]), symbol, tool: state.block.test?.tool ?? 'python' }));
    return true;
  }
  m = /^E\s+(\S.*)$/.exec(line);
  if (m && state.block.test?.tool === 'pytest') return setMessage(state, m[1]!), true;
  m = /^(\S+?\.py):(\d+):(?: in (\S+)| (\w+))?$/.exec(line);
  if (m) return emit(state, 'frame', { file: m[1]!, line: Number(m[2]), symbol: m[3], tool: 'pytest' }), true;
  if (state.pending.length > 0 && /^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Failure|Fault)(?::|$)/.test(line)) {
    for (const i of state.pending) state.items[i] = { ...state.items[i]!, message: line.slice(0, 300) };
    state.pending = [];
    setMessage(state, line);
    if (state.block.test === undefined) state.finishBlock();
    return true;
  }
  return false;
};

const diagnostics: LineRule = (line, state) => {
  let m = /^(.+?)\((\d+),(\d+)\): (error|warning) (TS\d+): (.+)$/.exec(line);
  if (m) return emit(state, 'type', { file: m[1]!, line: Number(m[2]), column: int(m[3]), symbol: m[5], message: m[6], tool: 'tsc' }), true;
  m = /^\s*(.+?):(\d+):(\d+) - (error|warning)(?: (TS\d+))?: (.+)$/.exec(line);
  if (m) return emit(state, 'type', { file: m[1]!, line: Number(m[2]), column: int(m[3]), symbol: m[5], message: m[6], tool: m[5] ? 'tsc' : 'pyright' }), true;
  m = /^(.+?\.pyi?):(\d+):(?:(\d+):)? (error|warning): (.+?)(?: {2}\[([\w-]+)\])?$/.exec(line);
  if (m) return emit(state, 'type', { file: m[1]!, line: Number(m[2]), column: int(m[3]), symbol: m[6], message: m[5], tool: 'mypy' }), true;
  m = /^(.+?): line (\d+), col (\d+), (?:Error|Warning) - (.+?)(?: \(([\w@/-]+)\))?$/.exec(line);
  if (m) return emit(state, 'lint', { file: m[1]!, line: Number(m[2]), column: int(m[3]), symbol: m[5], message: m[4], tool: 'eslint' }), true;
  m = /^\s+(\d+):(\d+)\s+(?:error|warning)\s+(.+?)(?:\s{2,}([\w@/-]+))?$/.exec(line);
  if (m && state.eslintFile !== undefined) return emit(state, 'lint', { file: state.eslintFile, line: Number(m[1]), column: int(m[2]), symbol: m[4], message: m[3], tool: 'eslint' }), true;
  m = /^(error)(?:\[(E\d+)\])?: (.+)$/.exec(line);
  if (m) return (state.rustError = `${m[2] ? `[${m[2]}] ` : ''}${m[3]}`), true;
  m = /^\s*--> (.+?):(\d+):(\d+)$/.exec(line);
  if (m && state.rustError !== undefined) {
    emit(state, 'compile', { file: m[1]!, line: Number(m[2]), column: int(m[3]), message: state.rustError, tool: 'rustc' });
    state.rustError = undefined;
    return true;
  }
  m = /^(\S+?\.\w+):(\d+):(\d+): (?:fatal )?(?:error|warning): (.+)$/.exec(line);
  if (m) return emit(state, 'compile', { file: m[1]!, line: Number(m[2]), column: int(m[3]), message: m[4], tool: 'compiler' }), true;
  return false;
};

const rustAndGo: LineRule = (line, state) => {
  let m = /^thread '(.+?)'(?: \(\d+\))? panicked at (.+?):(\d+):(\d+):$/.exec(line);
  if (m) {
    emit(state, 'panic', { file: m[2]!, line: Number(m[3]), column: int(m[4]), tool: 'rust' });
    return (state.messageNext = true);
  }
  m = /^thread '(.+?)' panicked at '(.*)', (.+?):(\d+):(\d+)$/.exec(line);
  if (m) return setMessage(state, m[2]!), emit(state, 'panic', { file: m[3]!, line: Number(m[4]), column: int(m[5]), tool: 'rust' }), true;
  m = /^\s+\d+: (\S.*)$/.exec(line);
  if (m) {
    state.frameSymbol = { name: m[1]!.replace(/::\{\{closure\}\}/g, '').replace(/::<.*>$/, '').replace(/::h[0-9a-f]{16}$/, ''), tool: 'rust' };
    return true;
  }
  m = /^panic: (.+?)(?: \[recovered\])?$/.exec(line);
  if (m) return setMessage(state, `panic: ${m[1]}`), true;
  m = /^\t(.+?\.go):(\d+)(?: \+0x[0-9a-f]+)?$/.exec(line);
  if (m) {
    const symbol = state.frameSymbol?.tool === 'go' ? state.frameSymbol.name : undefined;
    state.frameSymbol = undefined;
    return emit(state, 'frame', { file: m[1]!, line: Number(m[2]), symbol, tool: 'go' }), true;
  }
  m = /^([\w.\-/]*[\w)]\.\(?\*?[\w]+\)?(?:\.[\w]+)*)\(.*\)$/.exec(line);
  if (m && !line.startsWith(' ')) {
    state.frameSymbol = { name: m[1]!.split('/').pop()!, tool: 'go' };
    return true;
  }
  m = /^\s{4,}(\S+_test\.go):(\d+): (.+)$/.exec(line);
  if (m && state.block.test?.tool === 'go') {
    setMessage(state, m[3]!);
    return emit(state, 'frame', { file: m[1]!, line: Number(m[2]), symbol: state.block.test.fn, message: m[3], tool: 'go' }), true;
  }
  return false;
};

/** JVM classes that are the runtime or a test framework, not the project. */
const JVM_LIBRARY_RE = /^(?:java|javax|jdk|sun|com\.sun|kotlin|kotlinx|scala|org\.junit|junit|org\.gradle|org\.apache\.maven|worker\.org\.gradle)\./;

const jvm: LineRule = (line, state) => {
  let m = /^\s*at (?:[\w.-]+(?:@[\w.-]+)?\/)?([\w$.]+)\.([\w$<>-]+)\(([\w$.-]+\.(?:java|kt|kts|scala|groovy)):(\d+)\)$/.exec(line);
  if (m) {
    if (JVM_LIBRARY_RE.test(m[1]!)) return true;
    const parts = m[1]!.split('.');
    const cls = parts.pop()!.split('$')[0]!;
    return emit(state, 'frame', { file: [...parts, m[3]!].join('/'), line: Number(m[4]), symbol: `${cls}.${m[2]}`, tool: 'java' }), true;
  }
  m = /^(?:Exception in thread ".*?" |Caused by: )((?:[\w$]+\.)+[\w$]+(?:: .*)?)$/.exec(line);
  if (m) {
    if (line.startsWith('Caused by') && state.block.test === undefined) state.finishBlock();
    return setMessage(state, m[1]!), true;
  }
  return false;
};

const v8: LineRule = (line, state) => {
  let m = /^\s*at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$/.exec(line);
  if (m) {
    const file = m[2]!;
    const rust = state.frameSymbol?.tool === 'rust' ? state.frameSymbol.name : undefined;
    state.frameSymbol = undefined;
    if (/^(?:node:|internal\/|<anonymous>|native$)/.test(file) || file.startsWith('/rustc/')) return true;
    const fn = m[1]?.replace(/^(?:async |new )/, '').replace(/ \[as [^\]]+\]$/, '').replace(/^(?:Object|Context|Module)\./, '');
    const symbol = rust ?? (fn === undefined || fn.includes('<anonymous>') ? undefined : fn);
    return emit(state, 'frame', { file, line: Number(m[3]), column: int(m[4]), symbol, tool: rust !== undefined ? 'rust' : (state.block.test?.tool ?? 'node') }), true;
  }
  m = /^\s*❯ (?:(\S+) )?(\S+?):(\d+):(\d+)$/.exec(line);
  if (m) return emit(state, 'frame', { file: m[2]!, line: Number(m[3]), column: int(m[4]), symbol: m[1], tool: 'vitest' }), true;
  m = /^\s*((?:[\w$.]*(?:Error|Exception)(?: \[\w+\])?)(?::.*)?)$/.exec(line);
  if (m && /^\s*[A-Z]/.test(line)) return setMessage(state, m[1]!), true;
  return false;
};

/** A line that is only a path (eslint's stylish format heads each file's problems with one). */
const eslintHeader: LineRule = (line, state) => {
  if (/^(?:\/|[A-Za-z]:[\\/]|[\w@.-])[^\s:]*\.\w+$/.test(line)) state.eslintFile = line;
  else if (line !== '' && !/^\s/.test(line)) state.eslintFile = undefined;
  return false;
};

export const FAILURE_RULES: readonly LineRule[] = [headers, messageNext, pytestSummary, python, diagnostics, rustAndGo, jvm, v8, eslintHeader];
