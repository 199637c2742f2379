/**
 * The steps of task-aware retrieval that start from words: signatures of the symbols the query
 * names, ranked search, and round 2 of iterative retrieval (seed 004 §8.5, RepoCoder-style): the
 * implementations of what round 1's evidence, or a model's draft, mentions.
 */
import type { EvidenceInput } from '../context/evidence-merge.js';
import { lastSegment } from '../context/failure-rules.js';
import type { StepRunner } from './failure-steps.js';
import { calledNames, identifiers } from './evidence-text.js';
import { collect, type TaskKit } from './task-kit.js';

/** Query words looked up as symbol names for signature evidence. */
const MAX_SIGNATURE_NAMES = 8;
/** Identifiers round 2 looks up at most. */
const MAX_ROUND2_NAMES = 30;
const ROUND2_KINDS = new Set(['function', 'method', 'class', 'struct', 'interface', 'enum', 'type']);

/**
 * Signatures of the symbols the query names exactly, best first: the §8.4 "relevant symbol
 * signatures (signatures, not bodies)", cheap evidence that lets an agent call the right thing.
 */
export const signaturesStep: StepRunner = async (kit, step) => {
  const out: EvidenceInput[] = [];
  let looked = 0;
  for (const word of identifiers(kit.request.query)) {
    if (looked >= MAX_SIGNATURE_NAMES || out.length >= step.limit) break;
    const hits = await kit.deps.symbols(word, { limit: 3 });
    const exact = hits.filter((h) => h.match === 'exact' && h.name === word && h.signature);
    if (exact.length > 0) looked++;
    for (const h of exact) {
      if (out.length < step.limit) out.push({ path: h.path, startLine: h.startLine, endLine: h.startLine, text: h.signature!, kind: 'signature', symbol: h.container ? `${h.container}.${h.name}` : h.name, why: kit.why('signatures', word) });
    }
  }
  return out;
};

/** The words searched for: the query, else what the failure and the current file say. */
export async function searchText(kit: TaskKit): Promise<string> {
  const q = kit.request.query.trim();
  if (q !== '') return q;
  const r = kit.request;
  const words = [
    ...r.failures.slice(0, 6).flatMap((f) => [f.message, f.symbol === undefined ? '' : lastSegment(f.symbol)]),
    ...r.diagnostics.slice(0, 6).map((d) => d.message),
    ...(r.draft !== undefined ? [r.draft.slice(0, 2000)] : []),
  ].join(' ');
  const focus = words.trim() === '' ? await kit.focusText() : '';
  return `${words} ${identifiers(focus, 12).join(' ')}`.replace(/\s+/g, ' ').trim().slice(0, 4000);
}

export const searchStep: StepRunner = async (kit, step) => {
  const query = await searchText(kit);
  if (!/[\p{L}\p{N}]/u.test(query)) return [];
  const res = await kit.deps.search(query, { limit: step.limit, language: kit.request.language, signal: kit.request.signal });
  const out: EvidenceInput[] = [];
  for (const [i, r] of res.results.entries()) {
    const piece = await kit.lines(r.path, r.startLine, r.endLine, step, `#${i + 1}`, r.symbol ?? undefined);
    if (piece !== undefined) out.push({ ...piece, hash: r.chunkHash.slice(0, 12), score: r.score });
  }
  return out;
};

/** Definitions whose code the evidence so far already shows (round 2 does not fetch them again). */
function shownDefinitions(sofar: readonly EvidenceInput[]): Set<string> {
  return new Set(sofar.filter((e) => (e.kind ?? 'chunk') === 'chunk' && e.symbol !== undefined).map((e) => lastSegment(e.symbol!)));
}

/**
 * Round 2: the identifiers the draft mentions (called names first), else those of round 1's
 * evidence, looked up as definitions; their code (implementations) is the evidence. Records the
 * round in `kit.rounds`.
 */
export const round2Step: StepRunner = async (kit, step, sofar) => {
  const draft = kit.request.draft;
  const source = draft !== undefined && draft.trim() !== '' ? draft : sofar.map((e) => e.text).join('\n');
  const shown = shownDefinitions(sofar);
  const names = [...new Set([...calledNames(source), ...identifiers(source)])].filter((n) => !shown.has(n)).slice(0, MAX_ROUND2_NAMES);
  kit.rounds.push({ round: 1, from: 'query', identifiers: [...new Set(sofar.flatMap((e) => (e.symbol !== undefined ? [e.symbol] : [])))] });
  kit.rounds.push({ round: 2, from: draft !== undefined && draft.trim() !== '' ? 'draft' : 'evidence', identifiers: names });
  const cur = kit.request.current;
  return collect(names, step.limit, async (name) => {
    const defs = (await kit.definitionsOf(name)).filter((d) => ROUND2_KINDS.has(d.kind) && !(cur !== undefined && d.path === cur.path && d.startLine <= cur.line && cur.line <= d.endLine));
    return defs[0] === undefined ? undefined : kit.definition(defs[0], step, name, 'chunk');
  });
};
