/**
 * The mixed collection of bench/documents.ts (issue 22): real code (a slice of this repository's
 * src/), markdown runbooks and ADRs with frontmatter dates, an mbox of ops threads and .eml
 * messages, PDFs (pdfkit) and HTML pages, generated the same on every run; and 40 queries, each
 * with the file that answers it and why. Seven topics exist twice, an old and a current version
 * (older mtime or frontmatter date): there the current file is expected, which is where recency
 * should help; queries about facts only the old version holds expect the old one.
 */
import { cpSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeMbox, makeMessage, makePdf, type MailSpec } from '../test/helpers/documents.js';
import { REPO_ROOT } from './results.js';

export interface DocQuery {
  readonly query: string;
  readonly expected: string;
  readonly kind: 'code' | 'markdown' | 'mail' | 'pdf' | 'html';
}

const OLD = new Date(Date.UTC(2019, 2, 1));
const NEW = new Date(Date.UTC(2025, 9, 1));

const CODE = ['src/search/fusion.ts', 'src/search/recency.ts', 'src/search/snippet.ts', 'src/search/query-parse.ts', 'src/search/stop-words.ts', 'src/config/resolve.ts', 'src/config/collections.ts', 'src/search/filters.ts', 'src/search/collection-merge.ts', 'src/search/term-select.ts', 'src/discover/decode.ts', 'src/discover/denylist.ts'];

const md = (title: string, date: Date, body: string, extra = ''): string => `---\ntitle: ${title}\ndate: ${date.toISOString().slice(0, 10)}\n${extra}---\n# ${title}\n\n${body}\n`;

const MARKDOWN: Record<string, [Date, string]> = {
  'runbooks/failover-2019.md': [OLD, md('Database failover runbook', OLD, 'Promote the standby with pg_ctl promote on the replica host db-02, then repoint the pgbouncer pool by hand. The failover drill in 2019 took forty minutes.\n\n## Checks\n\nReplication lag must be under one minute before promotion.')],
  'runbooks/failover.md': [NEW, md('Database failover runbook', NEW, 'Promote the standby with patronictl failover; the cluster manager repoints the pool itself. Drills now take four minutes.\n\n## Checks\n\nReplication lag must be under ten seconds before promotion.', 'status: current\n')],
  'runbooks/cert-renewal-2019.md': [OLD, md('TLS certificate renewal', OLD, 'Certificates are bought from the vendor portal every year and copied to the load balancers with scp. Renewal reminders come from a calendar entry.')],
  'runbooks/cert-renewal.md': [NEW, md('TLS certificate renewal', NEW, 'Certificates renew automatically through ACME every sixty days; the load balancers reload them. Renewal alerts fire when expiry is under fourteen days.')],
  'adr/0007-queue-choice.md': [OLD, md('ADR 7: message queue choice', OLD, 'We choose RabbitMQ for background jobs because the team knows it and it supports priorities.', 'status: superseded\n')],
  'adr/0031-queue-choice.md': [NEW, md('ADR 31: message queue choice', NEW, 'We move background jobs to a Postgres-backed queue (SKIP LOCKED) and retire RabbitMQ; one less system to operate.', 'status: accepted\n')],
  'runbooks/on-call.md': [NEW, md('On-call handbook', NEW, 'Acknowledge a page within five minutes. Escalate to the secondary after fifteen. Write the incident log in the ops channel.')],
  'runbooks/backup-restore.md': [NEW, md('Backup restore drill', NEW, 'Nightly base backups go to object storage with seven days of WAL archives. A restore drill runs on the first Monday of each month.')],
  'notes/slack-export-deploy-freeze.md': [NEW, md('#release channel export', NEW, '**maria** 2025-09-28 16:02 deploy freeze starts Friday noon for the quarter close\n\n**tom** 2025-09-28 16:05 hotfixes need two approvals during the freeze')],
  'notes/linear-ENG-412.md': [NEW, md('ENG-412 Search returns stale results after rename', NEW, 'Renamed files keep their old path in results until the next full pass. Repro: rename a file and search its contents.', 'status: open\ntags: [search, bug]\n')],
};

const T = (id: string, from: string, date: string, subject: string, text: string, inReplyTo?: string): MailSpec => ({ id, from, to: 'ops@example.org', date, subject, text, ...(inReplyTo ? { inReplyTo } : {}) });

const MBOX_OLD: MailSpec[] = [
  T('q1@x', 'Ann <ann@example.org>', '2018-11-02T09:00:00Z', 'Disk full on the build server', 'The build server ran out of disk because old artifacts are never pruned. I deleted the 2017 artifacts by hand.'),
  T('q2@x', 'Bob <bob@example.org>', '2018-11-02T10:00:00Z', 'Re: Disk full on the build server', 'We should add a cron job that prunes artifacts older than thirty days.', 'q1@x'),
  T('r1@x', 'Cy <cy@example.org>', '2018-12-10T08:00:00Z', 'Cache eviction storm', 'Every night at midnight the cache evicts everything and the database load spikes. Memcached with a fixed TTL.'),
];
const MBOX_NEW: MailSpec[] = [
  T('r2@x', 'Dee <dee@example.org>', '2025-08-10T08:00:00Z', 'Cache eviction storm again', 'The Redis cache evicts everything at midnight again: all keys share one TTL. Adding random TTL jitter of up to ten percent.'),
  T('r3@x', 'Eve <eve@example.org>', '2025-08-10T11:00:00Z', 'Re: Cache eviction storm again', 'Jitter deployed; the midnight spike is gone. Keep an eye on the hit ratio.\n\nOn Sun, Dee wrote:\n> The Redis cache evicts everything', 'r2@x'),
  T('s1@x', 'Fay <fay@example.org>', '2025-09-01T12:00:00Z', 'Postmortem: payment webhook retries', 'Webhooks from the payment provider were retried without idempotency keys, so some orders were charged twice. We now store the event id and drop duplicates.\n\n-- \nFay, payments team'),
  T('t1@x', 'Gus <gus@example.org>', '2025-09-15T07:30:00Z', 'Kubernetes node pool upgrade window', 'The node pool upgrade to 1.31 happens Saturday 06:00 UTC. Pods with PodDisruptionBudgets of zero will block the drain.'),
];

const PDFS: Record<string, [Date, { heading: string; body: string[] }[]]> = {
  'papers/capacity-plan-2019.pdf': [OLD, [{ heading: 'Capacity plan', body: ['We run forty application servers on bare metal in one data centre.'] }, { heading: 'Storage', body: ['The SAN holds twelve terabytes and grows two terabytes a year.'] }]],
  'papers/capacity-plan.pdf': [NEW, [{ heading: 'Capacity plan', body: ['We run application servers on autoscaled cloud instances across three zones.'] }, { heading: 'Storage', body: ['Object storage holds ninety terabytes; lifecycle rules move cold data to archive after ninety days.'] }]],
  'papers/security-review.pdf': [NEW, [{ heading: 'Security review', body: ['Scope: the public API gateway and the admin console.'] }, { heading: 'Findings', body: ['Session cookies lacked the SameSite attribute; admin endpoints allowed weak passwords.'] }, { heading: 'Remediation', body: ['Enforce SameSite=Lax and require hardware keys for admin logins.'] }]],
  'papers/latency-study.pdf': [NEW, [{ heading: 'Latency study', body: ['Tail latency at p99 comes from garbage collection pauses in the JVM services.'] }, { heading: 'Recommendation', body: ['Switch to a low-pause collector and cap heap sizes at eight gigabytes.'] }]],
};

const page = (title: string, h1: string, sections: [string, string][]): string =>
  `<html><head><title>${title}</title><script>trackPageView('${title}')</script><style>nav{}</style></head><body><nav><a href="/">Home</a> <a href="/docs">Docs</a> <a href="/pricing">Pricing</a></nav><main><h1>${h1}</h1>${sections.map(([h, p]) => `<h2>${h}</h2><p>${p}</p>`).join('')}</main><footer>Copyright</footer></body></html>`;

const HTML: Record<string, string> = {
  'web/deploy-guide.html': page('Deploy guide', 'Deploying the web app', [['Blue green', 'Deploy to the idle colour, run smoke tests, then switch the router.'], ['Rollback', 'Flip the router back to the previous colour; database migrations must be backward compatible.']]),
  'web/api-rate-limits.html': page('Rate limits', 'API rate limits', [['Limits', 'Each API key may send six hundred requests per minute; bursts up to one hundred.'], ['Headers', 'Responses carry X-RateLimit-Remaining and Retry-After when throttled.']]),
  'web/feature-flags.html': page('Feature flags', 'Feature flags', [['Rollout', 'Flags roll out by percentage of accounts, sticky per account id.'], ['Cleanup', 'Remove a flag within two sprints of reaching one hundred percent.']]),
  'web/logging.html': page('Logging', 'Structured logging', [['Fields', 'Every log line is JSON with trace_id, span_id and the service name.'], ['Retention', 'Logs are kept thirty days in hot storage and one year in cold storage.']]),
};

/** The 40 queries: each names the one file that answers it. */
export const QUERIES: readonly DocQuery[] = [
  { kind: 'code', query: 'reciprocal rank fusion of ranked lists', expected: 'code/src/search/fusion.ts' },
  { kind: 'code', query: 'multiplicative recency boost half-life', expected: 'code/src/search/recency.ts' },
  { kind: 'code', query: 'snippet lines around the best match', expected: 'code/src/search/snippet.ts' },
  { kind: 'code', query: 'query too long byte limit', expected: 'code/src/search/query-parse.ts' },
  { kind: 'code', query: 'SCRY_CACHE_DIR user cache directory env-paths', expected: 'code/src/config/resolve.ts' },
  { kind: 'code', query: 'collection registry written atomically corrupt', expected: 'code/src/config/collections.ts' },
  { kind: 'code', query: 'unknown content type filter error', expected: 'code/src/search/filters.ts' },
  { kind: 'code', query: 'decode windows-1252 invalid utf-8 bytes', expected: 'code/src/discover/decode.ts' },
  { kind: 'markdown', query: 'how do we promote the standby during a database failover', expected: 'docs/runbooks/failover.md' },
  { kind: 'markdown', query: 'failover drill took forty minutes pgbouncer', expected: 'docs/runbooks/failover-2019.md' },
  { kind: 'markdown', query: 'how are TLS certificates renewed', expected: 'docs/runbooks/cert-renewal.md' },
  { kind: 'markdown', query: 'certificates copied to load balancers with scp', expected: 'docs/runbooks/cert-renewal-2019.md' },
  { kind: 'markdown', query: 'which message queue do we use for background jobs', expected: 'docs/adr/0031-queue-choice.md' },
  { kind: 'markdown', query: 'why RabbitMQ priorities team knows it', expected: 'docs/adr/0007-queue-choice.md' },
  { kind: 'markdown', query: 'how fast must a page be acknowledged on call', expected: 'docs/runbooks/on-call.md' },
  { kind: 'markdown', query: 'restore drill WAL archives object storage', expected: 'docs/runbooks/backup-restore.md' },
  { kind: 'markdown', query: 'when does the deploy freeze start', expected: 'docs/notes/slack-export-deploy-freeze.md' },
  { kind: 'markdown', query: 'stale results after renaming a file', expected: 'docs/notes/linear-ENG-412.md' },
  { kind: 'mail', query: 'cache evicts everything at midnight', expected: 'mail/ops-2025.mbox' },
  { kind: 'mail', query: 'memcached fixed TTL database load spikes', expected: 'mail/ops-2018.mbox' },
  { kind: 'mail', query: 'build server out of disk artifacts', expected: 'mail/ops-2018.mbox' },
  { kind: 'mail', query: 'payment webhooks charged twice idempotency', expected: 'mail/ops-2025.mbox' },
  { kind: 'mail', query: 'node pool upgrade window PodDisruptionBudget', expected: 'mail/ops-2025.mbox' },
  { kind: 'mail', query: 'TTL jitter deployed hit ratio', expected: 'mail/ops-2025.mbox' },
  { kind: 'mail', query: 'vendor contract renewal for the monitoring service', expected: 'mail/vendor.eml' },
  { kind: 'mail', query: 'who approved the budget for new laptops', expected: 'mail/laptops.eml' },
  { kind: 'pdf', query: 'what is our capacity plan for application servers', expected: 'docs/papers/capacity-plan.pdf' },
  { kind: 'pdf', query: 'SAN twelve terabytes bare metal', expected: 'docs/papers/capacity-plan-2019.pdf' },
  { kind: 'pdf', query: 'object storage lifecycle rules archive cold data', expected: 'docs/papers/capacity-plan.pdf' },
  { kind: 'pdf', query: 'session cookies SameSite finding', expected: 'docs/papers/security-review.pdf' },
  { kind: 'pdf', query: 'hardware keys for admin logins', expected: 'docs/papers/security-review.pdf' },
  { kind: 'pdf', query: 'p99 tail latency garbage collection pauses', expected: 'docs/papers/latency-study.pdf' },
  { kind: 'pdf', query: 'cap heap size low pause collector', expected: 'docs/papers/latency-study.pdf' },
  { kind: 'pdf', query: 'how much storage do we have', expected: 'docs/papers/capacity-plan.pdf' },
  { kind: 'html', query: 'how do I roll back a deploy', expected: 'docs/web/deploy-guide.html' },
  { kind: 'html', query: 'blue green smoke tests switch router', expected: 'docs/web/deploy-guide.html' },
  { kind: 'html', query: 'API requests per minute limit', expected: 'docs/web/api-rate-limits.html' },
  { kind: 'html', query: 'Retry-After header when throttled', expected: 'docs/web/api-rate-limits.html' },
  { kind: 'html', query: 'remove feature flag after full rollout', expected: 'docs/web/feature-flags.html' },
  { kind: 'html', query: 'how long are logs retained', expected: 'docs/web/logging.html' },
];

function put(root: string, rel: string, data: string | Buffer, when?: Date): void {
  const abs = join(root, rel);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, data);
  if (when) utimesSync(abs, when, when);
}

/** Writes the mixed collection under `root`. */
export async function writeMixedCorpus(root: string): Promise<void> {
  for (const f of CODE) cpSync(join(REPO_ROOT, f), join(root, 'code', f));
  for (const [rel, [when, text]] of Object.entries(MARKDOWN)) put(root, `docs/${rel}`, text, when);
  put(root, 'mail/ops-2018.mbox', makeMbox(MBOX_OLD), OLD);
  put(root, 'mail/ops-2025.mbox', makeMbox(MBOX_NEW), NEW);
  put(root, 'mail/vendor.eml', makeMessage(T('v1@x', 'Hal <hal@example.org>', '2025-07-01T09:00:00Z', 'Monitoring vendor contract renewal', 'The monitoring vendor contract renews on 1 October; legal wants the new data processing terms signed first.')), NEW);
  put(root, 'mail/laptops.eml', makeMessage(T('l1@x', 'Ivy <ivy@example.org>', '2025-06-01T09:00:00Z', 'New laptops budget approved', 'The CFO approved the budget for twelve new laptops for the platform team.')), NEW);
  for (const [rel, [when, pages]] of Object.entries(PDFS)) put(root, `docs/${rel}`, await makePdf(pages), when);
  for (const [rel, html] of Object.entries(HTML)) put(root, `docs/${rel}`, html, NEW);
}
