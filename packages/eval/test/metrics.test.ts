import { describe, expect, it } from 'vitest';
import {
  jsonEqual,
  parseJudgeReply,
  rouge1,
  tokenize,
  toMetricName,
  type ToolCallRecord,
  trajectoryScore,
} from '@troupe/eval';

const call = (name: string, args: Record<string, unknown> = {}, agent = 'Root'): ToolCallRecord => ({
  name,
  args,
  agent,
});

describe('ROUGE-1', () => {
  it('tokenises to lowercase words, dropping punctuation, in any script', () => {
    expect(tokenize('It is SUNNY, 21°C in São Paulo!')).toEqual(['it', 'is', 'sunny', '21', 'c', 'in', 'são', 'paulo']);
    expect(tokenize('東京 は 晴れ')).toEqual(['東京', 'は', '晴れ']);
  });

  it('scores identical texts 1 whatever the case and punctuation', () => {
    expect(rouge1('It is sunny in Paris.', 'it is sunny in paris')).toEqual({ precision: 1, recall: 1, fmeasure: 1 });
  });

  it('gives partial credit for unigram overlap (precision, recall, harmonic mean)', () => {
    const score = rouge1('The weather in Paris is sunny', 'It is sunny in Paris');
    expect(score.precision).toBeCloseTo(4 / 6);
    expect(score.recall).toBeCloseTo(4 / 5);
    expect(score.fmeasure).toBeCloseTo((2 * (4 / 6) * (4 / 5)) / (4 / 6 + 4 / 5));
  });

  it('counts a repeated word only as often as the other text has it', () => {
    const score = rouge1('yes yes yes', 'yes no');
    expect(score.precision).toBeCloseTo(1 / 3);
    expect(score.recall).toBeCloseTo(1 / 2);
  });

  it('scores 0 without overlap or against an empty text, and 1 for two empty texts', () => {
    expect(rouge1('cloudy', 'sunny').fmeasure).toBe(0);
    expect(rouge1('', 'sunny').fmeasure).toBe(0);
    expect(rouge1('sunny', '...').fmeasure).toBe(0);
    expect(rouge1('', '').fmeasure).toBe(1);
  });
});

describe('tool trajectory metrics', () => {
  const expected = [
    { name: 'search', args: { q: 'paris' } },
    { name: 'book', args: { city: 'Paris' } },
  ];

  it('exact: the same calls in the same order with the same args, nothing else', () => {
    expect(trajectoryScore('exact', expected, [call('search', { q: 'paris' }), call('book', { city: 'Paris' })])).toBe(
      1,
    );
    expect(trajectoryScore('exact', expected, [call('book', { city: 'Paris' }), call('search', { q: 'paris' })])).toBe(
      0,
    );
    expect(
      trajectoryScore('exact', expected, [
        call('search', { q: 'paris' }),
        call('log'),
        call('book', { city: 'Paris' }),
      ]),
    ).toBe(0);
    expect(trajectoryScore('exact', expected, [call('search', { q: 'paris' }), call('book', { city: 'Rome' })])).toBe(
      0,
    );
    expect(trajectoryScore('exact', [], [])).toBe(1);
    expect(trajectoryScore('exact', [], [call('search')])).toBe(0);
  });

  it('in_order: expected calls appear in order, extra calls allowed', () => {
    expect(
      trajectoryScore('in_order', expected, [
        call('log'),
        call('search', { q: 'paris' }),
        call('log'),
        call('book', { city: 'Paris' }),
      ]),
    ).toBe(1);
    expect(
      trajectoryScore('in_order', expected, [call('book', { city: 'Paris' }), call('search', { q: 'paris' })]),
    ).toBe(0);
    expect(trajectoryScore('in_order', expected, [call('search', { q: 'paris' })])).toBe(0);
    expect(trajectoryScore('in_order', [], [call('log')])).toBe(1);
  });

  it('any_order: every expected call is present, in any order', () => {
    expect(
      trajectoryScore('any_order', expected, [
        call('book', { city: 'Paris' }),
        call('log'),
        call('search', { q: 'paris' }),
      ]),
    ).toBe(1);
    expect(trajectoryScore('any_order', expected, [call('book', { city: 'Paris' })])).toBe(0);
    // One actual call cannot satisfy two expectations.
    expect(trajectoryScore('any_order', [{ name: 'log' }, { name: 'log' }], [call('log')])).toBe(0);
  });

  it('f1: partial credit from precision (matched / actual) and recall (matched / expected)', () => {
    expect(trajectoryScore('f1', expected, [call('search', { q: 'paris' }), call('book', { city: 'Paris' })])).toBe(1);
    // 1 of 2 expected found, 1 of 3 actual expected: P = 1/3, R = 1/2, F1 = 0.4.
    expect(
      trajectoryScore('f1', expected, [call('search', { q: 'paris' }), call('log'), call('book', { city: 'Rome' })]),
    ).toBeCloseTo(0.4);
    // Order does not matter for f1.
    expect(trajectoryScore('f1', expected, [call('book', { city: 'Paris' }), call('search', { q: 'paris' })])).toBe(1);
    expect(trajectoryScore('f1', expected, [])).toBe(0);
    expect(trajectoryScore('f1', [], [])).toBe(1);
  });

  it('compares args as JSON values (key order aside); omitted args match any', () => {
    expect(
      trajectoryScore(
        'exact',
        [{ name: 'book', args: { city: 'Paris', nights: [1, { n: 2 }] } }],
        [call('book', { nights: [1, { n: 2 }], city: 'Paris' })],
      ),
    ).toBe(1);
    expect(trajectoryScore('exact', [{ name: 'book' }], [call('book', { city: 'anything' })])).toBe(1);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
  });

  it('matches the calling agent by its whole path or a trailing part of it', () => {
    const nested = [call('get_weather', { city: 'Paris' }, 'Concierge/WeatherDesk')];
    expect(trajectoryScore('exact', [{ name: 'get_weather', agent: 'Concierge/WeatherDesk' }], nested)).toBe(1);
    expect(trajectoryScore('exact', [{ name: 'get_weather', agent: 'WeatherDesk' }], nested)).toBe(1);
    expect(trajectoryScore('exact', [{ name: 'get_weather', agent: 'Concierge' }], nested)).toBe(0);
    expect(trajectoryScore('exact', [{ name: 'get_weather', agent: 'Desk' }], nested)).toBe(0);
  });

  it('pairs loose and precise expectations so both find a call when they can', () => {
    const actual = [call('x', { a: 1 }, 'Root/P'), call('x', { a: 1 }, 'Root/Q')];
    const wanted = [
      { name: 'x', args: { a: 1 } },
      { name: 'x', agent: 'P' },
    ];
    expect(trajectoryScore('any_order', wanted, actual)).toBe(1);
    expect(trajectoryScore('f1', wanted, actual)).toBe(1);
  });
});

describe('metric names', () => {
  it("accepts ADK's metric names", () => {
    expect(toMetricName('tool_trajectory_avg_score')).toBe('trajectory_exact');
    expect(toMetricName('response_match_score')).toBe('response_match');
    expect(() => toMetricName('bleu')).toThrow(
      "Unknown metric 'bleu'. The metrics are trajectory_exact, trajectory_in_order",
    );
  });
});

describe('reading a judge reply', () => {
  it.each([
    ['{"score": 0.8, "reason": "close"}', 0.8, 'close'],
    ['Sure!\n```json\n{ "score": 1, "reason": "same facts" }\n```', 1, 'same facts'],
    ['{"Rating": "7/10", "Explanation": "mostly right"}', 0.7, 'mostly right'],
    ['{"verdict": "invalid", "reasoning": "wrong city"}', 0, 'wrong city'],
    ['{"score": 85}', 0.85, ''],
    ['Score: 0.6\nReason: misses the temperature', 0.6, 'misses the temperature'],
    ['I would rate it 4/5.', 0.8, 'I would rate it 4/5.'],
    ['{"score": 3, "reason": "on a ten-point scale"}', 0.3, 'on a ten-point scale'],
    ['{"score": -2}', 0, ''],
  ])('reads %j', (reply, score, reason) => {
    expect(parseJudgeReply(reply)).toEqual({ score: expect.closeTo(score, 5) as number, reason });
  });

  it('finds no score in a reply without one', () => {
    expect(parseJudgeReply('The answer looks fine to me.')).toBeUndefined();
    expect(parseJudgeReply('{"reason": "no score here"}')).toBeUndefined();
  });
});
