/**
 * Placing failure items on the repository (mapFailures), and formats no tool here could print:
 * Kotlin (no compiler installable: the JVM's documented `at pkg.ClassKt.fn(File.kt:N)` frames).
 */
import { describe, expect, it } from 'vitest';
import { parseFailure, type FailureItem } from '../../../src/context/failure-log.js';
import { mapFailures } from '../../../src/context/failure-map.js';

const item = (file: string, extra: Partial<FailureItem> = {}): FailureItem => ({ file, line: 3, message: 'boom', kind: 'frame', tool: 'python', ...extra });
const FILES = ['src/app/calc.py', 'tests/test_calc.py', 'pkg/util.go', 'web/util.go', 'web/handler.go', 'app/src/main/kotlin/com/example/app/Parser.kt'];

describe('mapFailures', () => {
  it('makes absolute paths inside the root relative, and matches others by their longest unique suffix', () => {
    const { items } = mapFailures([item('/home/me/proj/src/app/calc.py'), item('/ci/build/checkout/src/app/calc.py'), item('app/calc.py'), item('C:\\work\\proj\\tests\\test_calc.py')], '/home/me/proj', FILES);
    expect(items.map((i) => i.file)).toEqual(['src/app/calc.py', 'src/app/calc.py', 'src/app/calc.py', 'tests/test_calc.py']);
  });

  it('drops installed-package and runtime frames, unknown files, and names several files share', () => {
    const got = mapFailures(
      [item('/usr/lib/python3.11/site-packages/requests/api.py'), item('node_modules/react/index.js'), item('node:internal/timers'), item('/rustc/abc/library/std/src/panicking.rs'), item('nowhere.py'), item('util.go')],
      '/r',
      FILES,
    );
    expect(got.items).toEqual([]);
    expect(got.dropped.map((d) => d.reason)).toEqual(['library', 'library', 'library', 'library', 'unknown', 'ambiguous']);
  });

  it("drops Windows Python's standard library and virtual-environment frames too (one rule with long-query tracebacks)", () => {
    const got = mapFailures([item('C:\\Python311\\Lib\\unittest\\case.py'), item('/home/me/proj/.venv/bin/pytest'), item('/opt/conda/bin/python3.11'), item('/home/me/proj/src/app/calc.py')], '/home/me/proj', FILES);
    expect(got.dropped.map((d) => d.reason)).toEqual(['library', 'library', 'library']);
    expect(got.items.map((i) => i.file)).toEqual(['src/app/calc.py']);
  });

  it('resolves a shared name to the folder where the log placed another file', () => {
    const { items } = mapFailures([item('web/handler.go'), item('util.go')], '/r', FILES);
    expect(items.map((i) => i.file)).toEqual(['web/handler.go', 'web/util.go']);
  });
});

describe('Kotlin stack traces (documented JVM format)', () => {
  it('reads package, file-class and line, and skips the runtime', () => {
    const log = [
      'Exception in thread "main" java.lang.IllegalStateException: empty input',
      '\tat com.example.app.ParserKt.parse(Parser.kt:12)',
      '\tat kotlin.collections.CollectionsKt.first(Collections.kt:40)',
      '\tat com.example.app.MainKt.main(Main.kt:5)',
    ].join('\n');
    const items = parseFailure(log);
    expect(items.map((i) => `${i.file}:${i.line} ${i.symbol}`)).toEqual(['com/example/app/Parser.kt:12 ParserKt.parse', 'com/example/app/Main.kt:5 MainKt.main']);
    expect(items[0]!.message).toBe('java.lang.IllegalStateException: empty input');
    expect(mapFailures(items, '/r', FILES).items.map((i) => i.file)).toEqual(['app/src/main/kotlin/com/example/app/Parser.kt']);
  });
});
