import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import type { CliIO } from '../../../src/cli/io.js';
import { terminalPreferences } from '../../../src/index.js';
import { writeSmallRepo } from '../../helpers/fixture-repo.js';
import { tempDir } from '../../helpers/temp.js';

describe('NO_COLOR (https://no-color.org)', () => {
  it('turns colour off when set to anything but the empty string', () => {
    expect(terminalPreferences({}).color).toBe(true);
    expect(terminalPreferences({ NO_COLOR: '' }).color).toBe(true);
    expect(terminalPreferences({ NO_COLOR: '1' }).color).toBe(false);
    expect(terminalPreferences({ NO_COLOR: '0' }).color).toBe(false);
    expect(terminalPreferences({ NO_COLOR: 'false' }).color).toBe(false);
  });

  describe('scry search on a terminal', () => {
    let t: ReturnType<typeof tempDir>;
    let root: string;
    beforeAll(async () => {
      t = tempDir('scry-no-color-');
      root = join(t.dir, 'repo');
      writeSmallRepo(root);
      expect(await search([], true)).toMatchObject({ code: 0 });
    });
    afterAll(() => t.cleanup());

    async function search(extra: string[], color: boolean): Promise<{ code: number; stdout: string }> {
      let stdout = '';
      const io: CliIO = { out: (s) => void (stdout += s), err: () => {}, stdoutIsTTY: true, stderrIsTTY: false, color, cwd: root, readStdin: async () => '' };
      const code = await main(['node', 'scry', 'search', 'openDatabase', '-C', root, '--db', join(t.dir, 'index.db'), ...extra], io);
      return { code, stdout };
    }

    it('colours a terminal by default, and not when the environment says NO_COLOR', async () => {
      const coloured = await search([], true);
      expect(coloured.stdout).toContain('\x1b[');
      const plain = await search([], false);
      expect(plain.code).toBe(0);
      expect(plain.stdout).not.toContain('\x1b[');
      // the same results, only without the escapes
      const hits = (text: string): string[] => text.split('\n').filter((l) => /^\S+:\d+-\d+ /.test(l));
      // eslint-disable-next-line no-control-regex
      expect(hits(coloured.stdout.replace(/\x1b\[[0-9;]*m/g, ''))).toEqual(hits(plain.stdout));
      expect(hits(plain.stdout).length).toBeGreaterThan(0);
    });

    it('--no-color does the same per command', async () => {
      expect((await search(['--no-color'], true)).stdout).not.toContain('\x1b[');
    });
  });
});
