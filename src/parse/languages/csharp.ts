import type { Node } from 'web-tree-sitter';
import { hasModifier, type LanguageSpec } from './spec.js';

/**
 * C#. Namespaces (block or file-scoped) are modules; records are classes (`record struct`
 * too); constructors are methods named after their class; `const` fields are constants.
 * Properties, events and other fields are not symbols.
 */
const DEFINITIONS = `
(namespace_declaration name: (_) @name) @definition.module
(file_scoped_namespace_declaration name: (_) @name) @definition.module
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(field_declaration (modifier) @_const (variable_declaration (variable_declarator name: (identifier) @name)) (#eq? @_const "const")) @definition.constant
`;

const IMPORTS = `
(using_directive . [(identifier) (qualified_name)] @source .) @import
(using_directive name: (identifier) @name (_) @source) @import
`;

/** `public`, a namespace, or a member of an interface (public unless it says otherwise). */
function exported(def: Node): boolean {
  if (def.type.includes('namespace')) return true;
  if (def.parent?.type === 'declaration_list' && def.parent.parent?.type === 'interface_declaration') {
    return !hasModifier(def, ['private', 'protected'], ['modifier']);
  }
  return hasModifier(def, ['public'], ['modifier']);
}

export const csharp: LanguageSpec = {
  language: 'csharp',
  grammar: 'c_sharp',
  definitions: DEFINITIONS,
  imports: IMPORTS,
  comments: ['comment'],
  calls: ['invocation_expression', 'object_creation_expression'],
  identifiers: ['identifier'],
  exported,
};
