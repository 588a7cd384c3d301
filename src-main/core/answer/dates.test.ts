import { describe, expect, it } from 'vitest';
import { findDateMentions, parseIsoDate } from './dates';

const base = parseIsoDate('2023-05-08T13:56:00');

describe('relative dates in the dataset style', () => {
  it.each([
    ['I went to a LGBTQ support group yesterday', '7 May 2023'],
    ['I painted that lake sunrise last year', '2022'],
    ['We ran a charity race last Sunday', 'The sunday before 8 May 2023'],
    ['Last week I signed up for pottery', 'The week before 8 May 2023'],
    ['we are going camping next month', 'June 2023'],
    ['I got it two days ago', '6 May 2023'],
    ['I started three years ago', '2020'],
    ['I moved last month', 'April 2023'],
    ['the concert is tomorrow', '9 May 2023'],
  ])('%s -> %s', (text, expected) => {
    expect(findDateMentions(text, base)[0]?.answer).toBe(expected);
  });

  it('crosses month and year boundaries', () => {
    expect(findDateMentions('yesterday', parseIsoDate('2023-01-01T10:00:00'))[0]?.answer).toBe(
      '31 December 2022',
    );
    expect(findDateMentions('last month', parseIsoDate('2023-01-15T10:00:00'))[0]?.answer).toBe(
      'December 2022',
    );
  });

  it('keeps absolute mentions as written, filling the session year for a bare month', () => {
    expect(findDateMentions('my birthday is on 5 June', base)[0]?.answer).toBe('5 June 2023');
    expect(findDateMentions('we met in 2019 at a fair', base)[0]?.answer).toBe('2019');
  });

  it('finds nothing in a text without dates and never resolves relative dates without a base', () => {
    expect(findDateMentions('I love painting sunsets', base)).toEqual([]);
    expect(findDateMentions('I went yesterday', null)).toEqual([]);
  });
});
