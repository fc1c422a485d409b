import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBenchResult, readResults, renderBenchmarks } from '../../../bench/lib/report.ts';
import { parseRecordedTables, resultName } from '../../../bench/lib/record.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

describe('BENCHMARKS.md', () => {
  it('is what `npm run bench:report` makes of bench/results/*.json (never edited by hand)', () => {
    const results = readResults(resolve(ROOT, 'bench/results'));
    expect(readFileSync(resolve(ROOT, 'BENCHMARKS.md'), 'utf8')).toBe(renderBenchmarks(results));
  });

  it('has one result per bench file, each naming its own bench', () => {
    for (const result of readResults(resolve(ROOT, 'bench/results'))) {
      expect(readFileSync(resolve(ROOT, result.bench), 'utf8').length).toBeGreaterThan(0);
      expect(result.date).toMatch(/^\d{4}-\d{2}-\d{2}/);
    }
  });

  it('renders a table per result with its date, command and machine', () => {
    const markdown = renderBenchmarks([
      {
        bench: 'bench/demo/thing.bench.ts',
        title: 'Thing',
        about: 'What it measures.',
        date: '2026-12-01T10:00:00Z',
        command: 'npx tsx bench/demo/thing.bench.ts',
        machine: { cores: 2, load: '1.00 → 1.20', node: 'v20.19.0', chromium: null },
        tables: [{ title: 'A | B', columns: ['candidate', 'per call'], rows: [['naive | fast', '2 ms']] }],
        notes: ['Target met.'],
      },
    ]);
    expect(markdown).toContain('## Demo\n\n### Thing — `bench/demo/thing.bench.ts`');
    expect(markdown).toContain(
      'Measured 2026-12-01T10:00:00Z with `npx tsx bench/demo/thing.bench.ts` (2 cores, load 1.00 → 1.20, Node 20.19.0).',
    );
    expect(markdown).toContain('**A | B**\n\n| candidate | per call |\n|---|---|\n| naive \\| fast | 2 ms |');
    expect(markdown).toContain('- Target met.');
  });

  it('rejects a results file with a missing field or a ragged table, naming the file and field', () => {
    const good = {
      bench: 'b',
      title: 't',
      about: 'a',
      date: 'd',
      command: 'c',
      machine: { cores: 2, load: '1', node: null, chromium: null },
      tables: [],
      notes: [],
    };
    expect(parseBenchResult(good, 'x.json').title).toBe('t');
    expect(() => parseBenchResult({ ...good, command: 3 }, 'x.json')).toThrow('x.json: "command" is not a string');
    expect(() => parseBenchResult({ ...good, tables: [{ title: '', columns: ['a', 'b'], rows: [['1']] }] }, 'x.json')).toThrow(
      'every row must be 2 strings',
    );
  });

  it('names results after the bench path and reads the tables a recording bench appended', () => {
    expect(resultName('bench/assets/search.bench.ts')).toBe('assets-search');
    expect(parseRecordedTables('{"title":"t","columns":["a"],"rows":[["1"]]}\n\n')).toEqual([
      { title: 't', columns: ['a'], rows: [['1']] },
    ]);
  });
});
