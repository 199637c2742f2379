import type { LanguageSpec } from './spec.js';

/**
 * Go. A method is named with its receiver's type (`Server` for `func (s *Server) Run()`), which
 * becomes its container. Type specs are the definitions; their `type (...)` declaration is a
 * wrapper, so a doc comment above `type X struct` belongs to X.
 */
const RECEIVER = `[
  (type_identifier) @receiver
  (pointer_type (type_identifier) @receiver)
  (generic_type type: (type_identifier) @receiver)
  (pointer_type (generic_type type: (type_identifier) @receiver))
]`;

const DEFINITIONS = `
(function_declaration name: (identifier) @name) @definition.function
(method_declaration receiver: (parameter_list (parameter_declaration type: ${RECEIVER})) name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name type: (_)) @definition.type
(interface_type (method_elem name: (field_identifier) @name) @definition.method)
(type_alias name: (type_identifier) @name) @definition.type
(const_spec name: (identifier) @name) @definition.constant
(var_spec name: (identifier) @name) @definition.variable
`;

const IMPORTS = `
(import_spec path: (_) @source) @import
(import_spec name: (package_identifier) @name path: (_) @source) @import
`;

export const go: LanguageSpec = {
  language: 'go',
  grammar: 'go',
  definitions: DEFINITIONS,
  imports: IMPORTS,
  wrappers: ['type_declaration', 'const_declaration', 'var_declaration', 'var_spec_list'],
  comments: ['comment'],
  calls: ['call_expression'],
  identifiers: ['identifier', 'field_identifier', 'type_identifier', 'package_identifier'],
  exported: (_def, name) => /^\p{Lu}/u.test(name),
};
