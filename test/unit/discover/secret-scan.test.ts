import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inspectContent } from '../../../src/discover/secret-content.js';
import { SECRET_RULES } from '../../../src/discover/secret-rules.js';
import { SECRET_RULE_IDS, redactTokens, scanSecrets, shannonEntropy } from '../../../src/discover/secret-scan.js';
import { BLOCK_MAKERS, TOKEN_MAKERS, plantToken, seededRandom } from '../../helpers/secret-samples.js';

/** Near misses, one per token rule: the shape is close, but the rule must not fire. */
const NEGATIVES: Record<string, string> = {
  'aws-access-token': 'const accessKeyId = "AKIAIOSFODNN7EXAMPLE"; // the documented example',
  'aws-secret-access-key': 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'gcp-api-key': "const key = 'AIzaShort';",
  'azure-ad-client-secret': 'const tilde = "abcQ~short";',
  'azure-storage-account-key': 'AccountKey=notbase64;',
  'github-pat': "const prefix = 'ghp_';",
  'github-fine-grained-pat': 'if (t.startsWith("github_pat_")) {}',
  'github-oauth': 'gho_ is the OAuth prefix',
  'github-app-token': "['ghu_', 'ghs_'].includes(p)",
  'github-refresh-token': 'ghr_short123',
  'gitlab-pat': 'glpat-xxxxxxxxxxxxxxxxxxxx',
  'gitlab-ptt': 'glptt-0000',
  'gitlab-deploy-token': 'gldt- prefix',
  'gitlab-rrt': 'GR1348941 prefix',
  'npm-access-token': 'npm_config_registry=https://registry.npmjs.org/',
  'pypi-upload-token': 'pypi-AgEIcHlwaS5vcmc',
  'slack-bot-token': 'xoxb-your-token',
  'slack-user-token': 'xoxp-1-2-3-abc',
  'slack-app-token': 'xapp-prefix',
  'slack-legacy-token': 'xoxs-',
  'slack-webhook-url': 'https://hooks.slack.com/services/T000/B000/XXXX',
  'stripe-access-token': "stripe('sk_test_')",
  'sendgrid-api-token': 'sg.send(message)',
  'twilio-api-key': 'const SKIP = true; const TASK = 1;',
  'openai-api-key': 'sk-proj-short',
  'anthropic-api-key': 'sk-ant-api03-short',
  'huggingface-access-token': 'hf_hub_download(repo_id)',
  'digitalocean-pat': 'dop_v1_',
  'shopify-access-token': 'shpat_abc',
  'databricks-api-token': 'dapi_version = 2',
  'age-secret-key': 'AGE-SECRET-KEY-1...',
  jwt: 'const eyes = "eyJhbGciOi";',
  'generic-api-key': 'const apiKey = process.env.API_KEY_FOR_SERVICE; const tokenizerVersion = "v2.10.3"; const keyId = "k3y1d4b5c6d7e8f9";',
};

describe('secret rules', () => {
  it('keeps the rules as data: unique ids, lower-case keywords, each regex compiles, each has a generator and a near miss', () => {
    expect(new Set(SECRET_RULE_IDS).size).toBe(SECRET_RULE_IDS.length);
    for (const r of SECRET_RULES) {
      expect(() => new RegExp(r.regex, `g${r.flags ?? ''}`)).not.toThrow();
      for (const k of r.keywords) expect(k).toBe(k.toLowerCase());
      if (r.kind === 'token') {
        expect([r.id, typeof TOKEN_MAKERS[r.id]]).toEqual([r.id, 'function']);
        expect([r.id, typeof NEGATIVES[r.id]]).toEqual([r.id, 'string']);
      }
    }
  });

  for (const rule of SECRET_RULES.filter((r) => r.kind === 'token')) {
    it(`${rule.id}: finds a planted literal, redacts it within its line, and ignores a near miss`, () => {
      const planted = plantToken(rule.id, seededRandom(rule.id.length * 7919));
      const text = `// before\n${planted.line}\n// after\n`;
      const scan = scanSecrets(text);
      expect(scan.block).toBeUndefined();
      expect(scan.tokens.map((t) => [t.rule, text.slice(t.start, t.end)])).toEqual([[rule.id, planted.value]]);
      const redacted = redactTokens(text, scan.tokens);
      expect(redacted.text).not.toContain(planted.value);
      expect(redacted.text.split('\n')[1]).toBe(planted.line.replace(planted.value, `«redacted:${rule.id}»`));
      expect(redacted.text.split('\n')).toHaveLength(text.split('\n').length);
      expect(redacted.redactions).toEqual({ [rule.id]: 1 });
      expect(scanSecrets(NEGATIVES[rule.id]!).tokens.filter((t) => t.rule === rule.id)).toEqual([]);
    });
  }

  for (const [id, make] of Object.entries(BLOCK_MAKERS)) {
    it(`${id}: a key block makes the whole file a secret, wherever it sits`, () => {
      const block = make(seededRandom(id.length));
      expect(scanSecrets(block.text).block).toBeDefined();
      const inSource = `export const fixture = \`\n${block.text}\n\`;\n`;
      expect(inspectContent(inSource, ['src/fixture.ts'])).toMatchObject({ secret: true });
    });
  }

  it('does not take public keys, certificates or the PEM header names in prose as key blocks', () => {
    for (const text of ['-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----', 'PuTTY-User-Key-File is the format']) {
      expect(scanSecrets(text).block).toBeUndefined();
    }
  });

  it('leaves placeholders and ordinary code alone', () => {
    const code = [
      'const password = "changeme123";',
      'const token = "${GITHUB_TOKEN}";',
      'api_key: "your-api-key-here-1"',
      'secret = "xxxxxxxxxxxxxxxx"',
      'const primaryKey = "id_2024_primary_v3";',
      'const authHeader = `Bearer ${token}`;',
      'export const KEY_CODES = { enter: 13, escape: 27 };',
      'const sortKey = "createdAt2";',
      'httpAuthSchemeProvider: S3HttpAuthSchemeProvider;',
      'PrivateKeyAttributes: PrivateKeyAttributesV2;',
      '"NextToken": "U2FsdGVkX18vvPlOqb7RDrWRWVFBJI46MOIAb",',
      '"ClientRequestToken": "550e8400-e29b-41d4-a716-446655440003",',
      '"authtype": "v4-unsigned-body"',
      '"ARN": "arn:aws:secretsmanager:us-west-2:123456789012:secret:MyTestSecret-1a2b3c",',
      'export const NODE_DISABLE_S3_EXPRESS_SESSION_AUTH_ENV_NAME = "AWS_S3_DISABLE_EXPRESS_SESSION_AUTH";',
    ].join('\n');
    expect(scanSecrets(code).tokens).toEqual([]);
  });

  it('computes Shannon entropy in bits per character', () => {
    expect(shannonEntropy('')).toBe(0);
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abcd')).toBe(2);
  });

  it('property: on any text, findings are in bounds, ordered, disjoint and single-line; redaction keeps the line count', () => {
    const pieces = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('key = ', 'token: "', 'ghp_', 'AKIA', '-----BEGIN ', 'eyJ', '\n', '"', 'xoxb-', 'sk_live_'));
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        const scan = scanSecrets(text);
        let end = 0;
        for (const t of scan.tokens) {
          expect(t.start).toBeGreaterThanOrEqual(end);
          expect(t.end).toBeLessThanOrEqual(text.length);
          expect(text.slice(t.start, t.end)).not.toMatch(/[\r\n]/);
          end = t.end;
        }
        expect(redactTokens(text, scan.tokens).text.split('\n')).toHaveLength(text.split('\n').length);
      }),
      { numRuns: 300 },
    );
  });

  it('property: any text with planted literals of random rules keeps its lines and loses every literal', () => {
    const tokenRules = SECRET_RULES.filter((r) => r.kind === 'token').map((r) => r.id);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...tokenRules), fc.integer()), { minLength: 1, maxLength: 6 }), fc.array(fc.string({ maxLength: 40 }), { maxLength: 6 }), (plants, filler) => {
        const planted = plants.map(([rule, seed]) => plantToken(rule, seededRandom(seed)));
        const lines = [...filler.map((f) => f.replace(/[\r\n]/g, ' ')), ...planted.map((p) => p.line)];
        const text = lines.join('\n');
        const verdict = inspectContent(text, ['src/app.ts']);
        if (verdict.secret) throw new Error(`planted tokens made a key block: ${verdict.rule}`);
        for (const p of planted) expect(verdict.text).not.toContain(p.value);
        expect(verdict.text.split('\n')).toHaveLength(lines.length);
      }),
      { numRuns: 200 },
    );
  });
});
