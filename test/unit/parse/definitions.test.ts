import { describe, expect, it } from 'vitest';
import { definedName, definitionPatterns } from '../../../src/parse/definitions.js';

const name = (language: string, line: string): string | undefined => definedName(line, definitionPatterns(language)!);

describe('definedName', () => {
  it.each([
    ['typescript', 'export async function parseConfig(path: string) {', 'parseConfig'],
    ['typescript', 'export default class Engine {', 'Engine'],
    ['typescript', 'export interface SearchOptions {', 'SearchOptions'],
    ['typescript', 'export type ErrorCode = keyof typeof errors;', 'ErrorCode'],
    ['typescript', 'export const handler = async (req: Request) => {', 'handler'],
    ['typescript', '  private async flushBatch(items: Item[]): Promise<void> {', 'flushBatch'],
    ['javascript', 'module.exports.walk = function (dir) {', undefined],
    ['javascript', '  walk: function (dir) {', 'walk'],
    ['python', '    async def fetch_page(self, url):', 'fetch_page'],
    ['python', 'class HTTPAdapter(BaseAdapter):', 'HTTPAdapter'],
    ['go', 'func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {', 'ServeHTTP'],
    ['go', 'type Config struct {', 'Config'],
    ['rust', 'pub(crate) async fn load_index(path: &Path) -> Result<Index> {', 'load_index'],
    ['rust', 'impl<T> Display for Wrapper<T> {', 'Wrapper'],
    ['java', '    public static List<String> splitWords(String text) {', 'splitWords'],
    ['java', 'public final class TokenStream implements Closeable {', 'TokenStream'],
    ['kotlin', '    suspend fun loadUser(id: Long): User {', 'loadUser'],
    ['ruby', '  def self.from_env?', 'from_env?'],
    ['php', '    public static function createFromArray(array $data)', 'createFromArray'],
    ['c', 'static int parse_header(const char *buf, size_t len)', 'parse_header'],
    ['cpp', 'void Parser::reset() {', 'Parser::reset'],
    ['shell', 'install_deps() {', 'install_deps'],
  ])('%s: %s → %s', (language, line, expected) => {
    expect(name(language, line)).toBe(expected);
  });

  it('does not take control flow or calls for definitions', () => {
    expect(name('typescript', '  if (ready) {')).toBeUndefined();
    expect(name('typescript', '  return parseConfig(path);')).toBeUndefined();
    expect(name('c', '  if (x) {')).toBeUndefined();
    expect(name('c', '  foo(bar);')).toBeUndefined();
    expect(name('python', '    result = parse(x)')).toBeUndefined();
  });

  it('has no patterns for prose', () => {
    expect(definitionPatterns('markdown')).toBeUndefined();
  });
});
