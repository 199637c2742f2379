import type { Node } from 'web-tree-sitter';
import { hasAncestor, type LanguageSpec } from './spec.js';

/** Definitions shared by the JavaScript, TypeScript and TSX grammars. */
const JS_DEFINITIONS = `
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (_) @name) @definition.class
(method_definition name: (_) @name) @definition.method
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator name: (identifier) @name value: (class)) @definition.class
(program (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name value: (_)) @definition.constant))
(program (lexical_declaration kind: "let" (variable_declarator name: (identifier) @name value: (_)) @definition.variable))
(program (export_statement (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name value: (_)) @definition.constant)))
(program (export_statement (lexical_declaration kind: "let" (variable_declarator name: (identifier) @name value: (_)) @definition.variable)))
(program (variable_declaration (variable_declarator name: (identifier) @name value: (_)) @definition.variable))
(assignment_expression left: (member_expression property: (property_identifier) @name) right: [(arrow_function) (function_expression)]) @definition.function
(pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method
`;

const TS_DEFINITIONS = `${JS_DEFINITIONS}
(abstract_class_declaration name: (_) @name) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(type_alias_declaration name: (_) @name) @definition.type
(enum_declaration name: (_) @name) @definition.enum
(internal_module name: (_) @name) @definition.module
(module name: (_) @name) @definition.module
(function_signature name: (identifier) @name) @definition.function
(abstract_method_signature name: (_) @name) @definition.method
`;

// Statement and specifier only: capturing the imported names in the query made it scan every
// specifier of a 600-name `export { … }` for an optional clause (1.7 s on one file); the names
// are read from the statement node instead (importNames).
const IMPORTS = `
(import_statement source: (string (string_fragment) @source)) @import
(export_statement source: (string (string_fragment) @source)) @export
(call_expression function: (identifier) @_req arguments: (arguments . (string (string_fragment) @source)) (#eq? @_req "require")) @require
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @source))) @import
`;

/** Names an import or re-export statement brings in: default, named (original names), `*`. */
function importNames(statement: Node): string[] {
  const out: string[] = [];
  for (const child of statement.namedChildren) {
    if (!child) continue;
    if (child.type === 'import_clause') {
      for (const part of child.namedChildren) {
        if (!part) continue;
        if (part.type === 'identifier') out.push(part.text);
        else if (part.type === 'namespace_import') out.push('*');
        else if (part.type === 'named_imports') for (const spec of part.namedChildren) if (spec?.type === 'import_specifier') out.push(spec.childForFieldName('name')?.text ?? spec.text);
      }
    } else if (child.type === 'export_clause') {
      for (const spec of child.namedChildren) if (spec?.type === 'export_specifier') out.push(spec.childForFieldName('name')?.text ?? spec.text);
    } else if (child.type === 'namespace_export' || (child.type === 'identifier' && statement.type === 'export_statement')) {
      out.push('*');
    }
  }
  if (statement.type === 'export_statement' && out.length === 0 && statement.children.some((c) => c?.type === '*')) out.push('*');
  return out;
}

/** `export`ed, or declared ambiently (`declare namespace React { function createElement… }` in a .d.ts). */
function exported(def: Node): boolean {
  return hasAncestor(def, ['ambient_declaration']) || hasAncestor(def, ['export_statement'], ['statement_block', 'class_body']);
}

const common = {
  imports: IMPORTS,
  importNames,
  wrappers: ['export_statement'],
  comments: ['comment'],
  calls: ['call_expression', 'new_expression'],
  identifiers: ['identifier', 'property_identifier', 'type_identifier', 'shorthand_property_identifier'],
  exported,
} as const;

export const javascript: LanguageSpec = { language: 'javascript', grammar: 'javascript', definitions: JS_DEFINITIONS, ...common };
export const typescript: LanguageSpec = { language: 'typescript', grammar: 'typescript', definitions: TS_DEFINITIONS, ...common };
export const tsx: LanguageSpec = { language: 'tsx', grammar: 'tsx', definitions: TS_DEFINITIONS, ...common };
