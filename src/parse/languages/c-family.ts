import type { Node } from 'web-tree-sitter';
import { hasModifier, type LanguageSpec } from './spec.js';

/**
 * C and C++. A function's name is found through its declarator chain (pointers, references);
 * a C++ method defined out of class (`void Foo::bar() {}`) is a method of `Foo` (its receiver).
 * Structs, unions and enums are definitions only with a body; `#define NAME value`, `const`
 * globals and typedefs are symbols too.
 */
const declarators = (inner: string, cpp = false): string => `[
  (function_declarator declarator: ${inner})
  (pointer_declarator declarator: (function_declarator declarator: ${inner}))
  (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: ${inner})))
  ${cpp ? `(reference_declarator (function_declarator declarator: ${inner}))` : ''}
]`;

/** A variable's declarator: `x`, `x = 1`, `*x`, `x[4]`, `*x[] = {...}`. */
const NAMED = '[(identifier) @name (pointer_declarator declarator: (identifier) @name) (array_declarator declarator: (identifier) @name) (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))]';
const VARIABLE = `[${NAMED} (init_declarator declarator: ${NAMED})]`;

const C_COMMON = `
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition declarator: [
  (type_identifier) @name
  (pointer_declarator declarator: (type_identifier) @name)
  (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
]) @definition.type
(preproc_def name: (identifier) @name) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.function
(declaration (type_qualifier) @_const declarator: ${VARIABLE} (#any-of? @_const "const" "constexpr")) @definition.constant
(declaration declarator: ${VARIABLE}) @definition.variable
`;

const C_DEFINITIONS = `
(function_definition declarator: ${declarators('(identifier) @name')}) @definition.function
${C_COMMON}`;

const NAME = '[(identifier) (field_identifier) (destructor_name) (operator_name)] @name';

const CPP_DEFINITIONS = `
(field_declaration_list (function_definition declarator: ${declarators(NAME, true)}) @definition.method)
(field_declaration_list (template_declaration (function_definition declarator: ${declarators(NAME, true)}) @definition.method))
(function_definition declarator: ${declarators(`(qualified_identifier scope: (_) @receiver name: ${NAME})`, true)}) @definition.method
(function_definition declarator: ${declarators(`(qualified_identifier name: (qualified_identifier scope: (_) @receiver name: ${NAME}))`, true)}) @definition.method
(function_definition declarator: ${declarators('(identifier) @name', true)}) @definition.function
${C_COMMON}
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(namespace_definition name: (_) @name) @definition.module
(alias_declaration name: (type_identifier) @name) @definition.type
`;

const IMPORTS = '(preproc_include path: (_) @source) @include';

/** Not `static` at file scope (a static member of a class is visible), not in an anonymous namespace. */
function exported(def: Node): boolean {
  for (let p = def.parent; p; p = p.parent) {
    if (p.type === 'field_declaration_list') return true;
    if (p.type === 'namespace_definition' && !p.childForFieldName('name')) return false;
  }
  return !hasModifier(def, ['static'], ['storage_class_specifier']);
}

const common = {
  imports: IMPORTS,
  comments: ['comment'],
  calls: ['call_expression'],
  exported,
};

export const c: LanguageSpec = {
  language: 'c',
  grammar: 'c',
  definitions: C_DEFINITIONS,
  identifiers: ['identifier', 'field_identifier', 'type_identifier'],
  ...common,
};

export const cpp: LanguageSpec = {
  language: 'cpp',
  grammar: 'cpp',
  definitions: CPP_DEFINITIONS,
  wrappers: ['template_declaration'],
  identifiers: ['identifier', 'field_identifier', 'type_identifier', 'namespace_identifier'],
  ...common,
};
