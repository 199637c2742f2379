/**
 * Symbols and imports per tree-sitter language: one small source each, with the definitions
 * and import statements it must yield (src/parse/languages/*).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChunkConfig } from '../../../src/config/schema.js';
import type { ParsedFile } from '../../../src/core/chunk.js';
import { createFileParser, type FileParser } from '../../../src/parse/chunker.js';
import { loadGrammars } from '../../../src/parse/grammars.js';
import { parsedLanguages } from '../../../src/parse/languages/registry.js';

const CONFIG: ChunkConfig = { windowLines: 60, overlapLines: 8, maxBytes: 4096 };

/** name, kind, container ('' for none), exported, startLine */
type Sym = [string, string, string, boolean, number];
/** source, kind */
type Imp = [string, string];

interface Case {
  readonly language: string;
  readonly path: string;
  readonly source: string;
  readonly symbols: readonly Sym[];
  readonly imports: readonly Imp[];
}

const src = (...lines: string[]): string => `${lines.join('\n')}\n`;

const CASES: readonly Case[] = [
  {
    language: 'python',
    path: 'shop/cart.py',
    source: src(
      'import os.path, json as j',
      'from .models import Item, Price as P',
      'from .. import util',
      'from typing import *',
      'MAX_ITEMS = 50',
      '_cache = {}',
      '@dataclass',
      'class Cart(Base):',
      '    LIMIT = 3',
      '    items = []',
      '    def add(self, item):',
      '        local = 1',
      '        def inner(): pass',
      '    @property',
      '    def total(self): return 0',
      'def _helper(x):',
      '    return x',
    ),
    symbols: [
      ['MAX_ITEMS', 'constant', '', true, 5],
      ['_cache', 'variable', '', false, 6],
      ['Cart', 'class', '', true, 8],
      ['LIMIT', 'constant', 'Cart', true, 9],
      ['add', 'method', 'Cart', true, 11],
      ['total', 'method', 'Cart', true, 15],
      ['_helper', 'function', '', false, 16],
    ],
    imports: [
      ['os.path', 'import'],
      ['json', 'import'],
      ['.models', 'import'],
      ['..', 'import'],
      ['typing', 'import'],
    ],
  },
  {
    language: 'go',
    path: 'server/server.go',
    source: src(
      'package server',
      'import (',
      '  "fmt"',
      '  st "example.com/shop/store"',
      ')',
      'const MaxConns = 10',
      'var started bool',
      '// Server serves.',
      'type Server struct { db *st.DB }',
      'type Handler interface { Serve() }',
      'type ID = string',
      'func (s *Server) Start() error { return nil }',
      'func (l List[T]) Len() int { return 0 }',
      'func newServer() *Server { fmt.Println(); return nil }',
    ),
    symbols: [
      ['MaxConns', 'constant', '', true, 6],
      ['started', 'variable', '', false, 7],
      ['Server', 'struct', '', true, 9],
      ['Handler', 'interface', '', true, 10],
      ['Serve', 'method', 'Handler', true, 10],
      ['ID', 'type', '', true, 11],
      ['Start', 'method', 'Server', true, 12],
      ['Len', 'method', 'List', true, 13],
      ['newServer', 'function', '', false, 14],
    ],
    imports: [
      ['fmt', 'import'],
      ['example.com/shop/store', 'import'],
    ],
  },
  {
    language: 'rust',
    path: 'src/store.rs',
    source: src(
      'use crate::store::Db;',
      'use std::{io, fmt};',
      'pub const MAX: usize = 8;',
      'static COUNT: u32 = 0;',
      'pub struct Store { db: Db }',
      'pub(crate) enum Mode { A }',
      'pub trait Save { fn save(&self); }',
      'type Res = io::Result<()>;',
      'impl Store {',
      '    pub fn new() -> Self { todo!() }',
      '    fn helper(&self) {}',
      '}',
      'impl Save for Store { fn save(&self) {} }',
      'mod inner { pub fn f() {} }',
      'fn main() {}',
    ),
    symbols: [
      ['MAX', 'constant', '', true, 3],
      ['COUNT', 'variable', '', false, 4],
      ['Store', 'struct', '', true, 5],
      ['Mode', 'enum', '', true, 6],
      ['Save', 'interface', '', true, 7],
      ['save', 'method', 'Save', true, 7],
      ['Res', 'type', '', false, 8],
      ['new', 'method', 'Store', true, 10],
      ['helper', 'method', 'Store', false, 11],
      ['save', 'method', 'Store', true, 13],
      ['inner', 'module', '', false, 14],
      ['f', 'function', 'inner', true, 14],
      ['main', 'function', '', false, 15],
    ],
    imports: [
      ['crate::store::Db', 'use'],
      ['std', 'use'],
    ],
  },
  {
    language: 'java',
    path: 'src/main/java/shop/Cart.java',
    source: src(
      'package shop;',
      'import java.util.List;',
      'import static java.lang.Math.*;',
      '/** A cart. */',
      'public class Cart {',
      '    public static final int MAX = 5;',
      '    private int size;',
      '    public Cart() {}',
      '    private void clear() { list.clear(); }',
      '    interface Listener { void changed(); }',
      '    enum State { OPEN }',
      '    record Line(int qty) {}',
      '}',
    ),
    symbols: [
      ['Cart', 'class', '', true, 5],
      ['MAX', 'constant', 'Cart', true, 6],
      ['Cart', 'method', 'Cart', true, 8],
      ['clear', 'method', 'Cart', false, 9],
      ['Listener', 'interface', 'Cart', false, 10],
      ['changed', 'method', 'Cart.Listener', true, 10],
      ['State', 'enum', 'Cart', false, 11],
      ['Line', 'class', 'Cart', false, 12],
    ],
    imports: [
      ['java.util.List', 'import'],
      ['java.lang.Math', 'import'],
    ],
  },
  {
    language: 'c',
    path: 'src/ring.c',
    source: src(
      '#include "ring.h"',
      '#include <stdlib.h>',
      '#define RING_MIN 16',
      'static const int LIMIT = 4;',
      'int ring_count;',
      'struct ring { int head; };',
      'struct forward;',
      'typedef struct ring ring_t;',
      'enum mode { FAST };',
      'static int clamp(int x) { return x; }',
      'char *ring_name(void) { return 0; }',
    ),
    symbols: [
      ['RING_MIN', 'constant', '', true, 3],
      ['LIMIT', 'constant', '', false, 4],
      ['ring_count', 'variable', '', true, 5],
      ['ring', 'struct', '', true, 6],
      ['ring_t', 'type', '', true, 8],
      ['mode', 'enum', '', true, 9],
      ['clamp', 'function', '', false, 10],
      ['ring_name', 'function', '', true, 11],
    ],
    imports: [
      ['ring.h', 'include'],
      ['stdlib.h', 'include'],
    ],
  },
  {
    language: 'cpp',
    path: 'src/matrix.cpp',
    source: src(
      '#include <vector>',
      'namespace la {',
      'constexpr double kEps = 1e-9;',
      'class Matrix {',
      ' public:',
      '  int rows() const { return r_; }',
      '};',
      'template <typename T> struct Box { T v; };',
      'using Index = int;',
      '}',
      'void Matrix::resize(int n) {}',
      'Matrix::~Matrix() {}',
      'static int helper() { return 0; }',
      'namespace { int hidden() { return 1; } }',
    ),
    symbols: [
      ['la', 'module', '', true, 2],
      ['kEps', 'constant', 'la', true, 3],
      ['Matrix', 'class', 'la', true, 4],
      ['rows', 'method', 'la.Matrix', true, 6],
      ['Box', 'struct', 'la', true, 8],
      ['Index', 'type', 'la', true, 9],
      ['resize', 'method', 'Matrix', true, 11],
      ['~Matrix', 'method', 'Matrix', true, 12],
      ['helper', 'function', '', false, 13],
      ['hidden', 'function', '', false, 14],
    ],
    imports: [['vector', 'include']],
  },
  {
    language: 'csharp',
    path: 'src/Jobs/Scheduler.cs',
    source: src(
      'using System;',
      'using Col = System.Collections.Generic;',
      'namespace Acme.Jobs',
      '{',
      '    public interface IJob { void Run(); }',
      '    /// <summary>Runs jobs.</summary>',
      '    public class Scheduler',
      '    {',
      '        public const int Max = 3;',
      '        private int count;',
      '        public Scheduler() {}',
      '        internal void Tick() { Run(); }',
      '        public int Count { get; set; }',
      '    }',
      '    struct Point {}',
      '    public enum Mode { A }',
      '    public record Job(string Name);',
      '}',
    ),
    symbols: [
      ['Acme.Jobs', 'module', '', true, 3],
      ['IJob', 'interface', 'Acme.Jobs', true, 5],
      ['Run', 'method', 'Acme.Jobs.IJob', true, 5],
      ['Scheduler', 'class', 'Acme.Jobs', true, 7],
      ['Max', 'constant', 'Acme.Jobs.Scheduler', true, 9],
      ['Scheduler', 'method', 'Acme.Jobs.Scheduler', true, 11],
      ['Tick', 'method', 'Acme.Jobs.Scheduler', false, 12],
      ['Point', 'struct', 'Acme.Jobs', false, 15],
      ['Mode', 'enum', 'Acme.Jobs', true, 16],
      ['Job', 'class', 'Acme.Jobs', true, 17],
    ],
    imports: [
      ['System', 'import'],
      ['System.Collections.Generic', 'import'],
    ],
  },
  {
    language: 'ruby',
    path: 'lib/billing.rb',
    source: src(
      "require 'json'",
      "require_relative 'billing/tax'",
      'MAX = 3',
      '# Billing.',
      'module Billing',
      '  class Invoice < Base',
      '    RATE = 2',
      '    def total; end',
      '    def self.build; end',
      '  end',
      'end',
      'class Billing::Credit; end',
      'def helper; end',
    ),
    symbols: [
      ['MAX', 'constant', '', true, 3],
      ['Billing', 'module', '', true, 5],
      ['Invoice', 'class', 'Billing', true, 6],
      ['RATE', 'constant', 'Billing.Invoice', true, 7],
      ['total', 'method', 'Billing.Invoice', true, 8],
      ['build', 'method', 'Billing.Invoice', true, 9],
      ['Credit', 'class', '', true, 12],
      ['helper', 'function', '', true, 13],
    ],
    imports: [
      ['json', 'require'],
      ['billing/tax', 'require'],
    ],
  },
  {
    language: 'php',
    path: 'app/UserController.php',
    source: src(
      '<?php',
      'namespace App\\Http;',
      'use App\\Models\\User;',
      'use App\\Services\\{Audit, Mailer};',
      "require_once __DIR__ . '/helpers.php';",
      "include 'view.php';",
      'const MAX = 10;',
      'interface Shows { public function show(); }',
      'trait Logs { private function log() {} }',
      'enum Status: string { case On = "on"; }',
      'final class UserController {',
      '    const LIMIT = 5;',
      '    public function index() { return User::all(); }',
      '    protected function guard() {}',
      '}',
      'function helper() {}',
    ),
    symbols: [
      ['App\\Http', 'module', '', true, 2],
      ['MAX', 'constant', '', true, 7],
      ['Shows', 'interface', '', true, 8],
      ['show', 'method', 'Shows', true, 8],
      ['Logs', 'interface', '', true, 9],
      ['log', 'method', 'Logs', false, 9],
      ['Status', 'enum', '', true, 10],
      ['UserController', 'class', '', true, 11],
      ['LIMIT', 'constant', 'UserController', true, 12],
      ['index', 'method', 'UserController', true, 13],
      ['guard', 'method', 'UserController', false, 14],
      ['helper', 'function', '', true, 16],
    ],
    imports: [
      ['App\\Models\\User', 'use'],
      ['App\\Services', 'use'],
      ['/helpers.php', 'require'],
      ['view.php', 'include'],
    ],
  },
];

let parser: FileParser;
beforeAll(async () => {
  const grammars = await loadGrammars(parsedLanguages());
  parser = createFileParser(CONFIG, grammars);
});

const parse = (c: Case): ParsedFile => parser.parse({ path: c.path, language: c.language, contentType: 'code', text: c.source });

describe('symbols and imports per language', () => {
  it('covers every registered language but the JavaScript family', () => {
    const covered = CASES.map((c) => c.language);
    expect(parsedLanguages().filter((l) => !covered.includes(l)).sort()).toEqual(['javascript', 'tsx', 'typescript']);
  });

  describe.each(CASES)('$language', (c) => {
    it('is parsed by tree-sitter', () => {
      expect(parse(c).parser).toBe('tree-sitter');
    });

    it('finds the definitions', () => {
      const actual = parse(c).symbols.map((s): Sym => [s.name, s.kind, s.container ?? '', s.exported, s.startLine]);
      expect(actual).toEqual(c.symbols);
    });

    it('finds the imports', () => {
      const actual = parse(c).imports.map((i): Imp => [i.source, i.kind]);
      expect(actual).toEqual(c.imports);
    });
  });
});

describe('import names', () => {
  const names = (language: string, path: string, source: string): Array<[string, readonly string[]]> =>
    parser.parse({ path, language, contentType: 'code', text: source }).imports.map((i) => [i.source, i.names]);

  it.each([
    ['python', 'a.py', 'from .models import Item, Price as P\nimport numpy as np\n', [['.models', ['Item', 'Price']], ['numpy', ['np']]]],
    ['python', 'a.py', 'from typing import *\n', [['typing', ['*']]]],
    ['go', 'a.go', 'package a\nimport st "example.com/store"\n', [['example.com/store', ['st']]]],
    ['rust', 'a.rs', 'use std::{io, fmt::Write};\nuse super::*;\nuse a::b as c;\n', [['std', ['io', 'fmt::Write']], ['super', ['*']], ['a::b', ['c']]]],
    ['java', 'A.java', 'import java.util.List;\nimport javax.sql.*;\n', [['java.util.List', ['List']], ['javax.sql', ['*']]]],
    ['csharp', 'A.cs', 'using Col = System.Collections.Generic;\n', [['System.Collections.Generic', ['Col']]]],
    ['php', 'a.php', '<?php\nuse App\\{A, B as C};\nuse X\\Y, Z\\W as V;\n', [['App', ['A', 'B']], ['X\\Y', ['Y']], ['Z\\W', ['W']]]],
  ] as Array<[string, string, string, Array<[string, string[]]>]>)('%s %s: %j', (language, path, source, expected) => {
    expect(names(language, path, source)).toEqual(expected);
  });
});
