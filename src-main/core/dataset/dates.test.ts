import { describe, expect, it } from 'vitest';
import { parseSessionDateTime } from './dates';

describe('parseSessionDateTime', () => {
  it.each([
    ['1:56 pm on 8 May, 2023', '2023-05-08T13:56:00'],
    ['10:37 am on 27 June, 2023', '2023-06-27T10:37:00'],
    // 12 am is midnight and 12 pm is noon: the classic 12-hour-clock off-by-twelve.
    ['12:09 am on 13 September, 2023', '2023-09-13T00:09:00'],
    ['12:30 pm on 1 January, 2024', '2024-01-01T12:30:00'],
    ['12:05 am on 29 February, 2024', '2024-02-29T00:05:00'],
    ['7:05 PM on 3 Sept, 2022', '2022-09-03T19:05:00'],
    ['  9:00 am on 1 Jun 2024 ', '2024-06-01T09:00:00'],
  ])('%s -> %s', (text, iso) => {
    expect(parseSessionDateTime(text)).toBe(iso);
  });

  it.each([
    'sometime last week',
    '',
    '13:00 pm on 8 May, 2023',
    '0:10 am on 8 May, 2023',
    '1:60 pm on 8 May, 2023',
    '1:56 pm on 29 February, 2023',
    '1:56 pm on 31 April, 2023',
    '1:56 pm on 8 Ma, 2023',
    '1:56 on 8 May, 2023',
  ])('rejects %j', (text) => {
    expect(parseSessionDateTime(text)).toBeNull();
  });
});
