import { describe, expect, it } from 'vitest';
import { officialF1 } from '../../../src-shared/scoring/official';
import { ExtractiveAnswerer, extractiveAnswer } from './extractive';
import { NOT_MENTIONED, type AnswerRequest, type MemoryHit } from './types';

function memory(speaker: string, text: string, dateTime = '2023-05-08T13:56:00'): MemoryHit {
  return {
    id: text,
    diaId: null,
    text: `${speaker}: ${text}`,
    speaker,
    score: 1,
    sessionDateTime: dateTime,
  };
}

function ask(
  question: string,
  memories: MemoryHit[],
  category: AnswerRequest['category'] = 4,
): string {
  return extractiveAnswer({
    sampleId: 's',
    benchmark: 'locomo',
    questionIndex: 0,
    question,
    category,
    speakers: ['Caroline', 'Melanie'],
    memories,
    seed: 1,
  });
}

describe('extractive answerer', () => {
  it('resolves a when-question from a relative date in the best memory', () => {
    const answer = ask('When did Caroline go to the LGBTQ support group?', [
      memory('Melanie', 'I am swamped with the kids and work.'),
      memory('Caroline', 'I went to a LGBTQ support group yesterday and it was so powerful.'),
    ]);
    expect(answer).toBe('7 May 2023');
  });

  it('falls back to the session date when the memory has no date words', () => {
    expect(
      ask('When did Melanie sign up for pottery?', [
        memory('Melanie', 'I just signed up for a pottery class!', '2023-07-03T10:00:00'),
      ]),
    ).toBe('3 July 2023');
  });

  it('answers with the new part of the best sentence, not the words of the question', () => {
    const answer = ask('What did Caroline research?', [
      memory('Melanie', 'Painting is a fun way to relax.'),
      memory('Caroline', 'Researching adoption agencies - it has been a dream to have a family.'),
    ]);
    // "research" is in the question, so the span starts at what the question does not say.
    expect(answer).toBe('adoption agencies');
    expect(officialF1(answer, 'Adoption agencies', 4)).toBe(1);
  });

  it('says "Not mentioned" for a category-5 question whose premise belongs to the other speaker', () => {
    const answer = ask(
      'What did Melanie research?',
      [memory('Caroline', 'Researching adoption agencies - it has been a dream to have a family.')],
      5,
    );
    expect(answer).toBe(NOT_MENTIONED);
    expect(officialF1(answer, null, 5)).toBe(1);
  });

  it('answers a supported category-5 question instead of refusing', () => {
    const answer = ask(
      'What did Caroline research?',
      [memory('Caroline', 'Researching adoption agencies - it has been a dream to have a family.')],
      5,
    );
    expect(answer).not.toBe(NOT_MENTIONED);
  });

  it('answers how-many and yes/no questions in kind', () => {
    expect(
      ask('How many children does Melanie have?', [
        memory('Melanie', 'My 3 children love the beach.'),
      ]),
    ).toBe('3');
    expect(
      ask('Would Melanie go camping again?', [
        memory('Melanie', 'We would not go camping again after that storm.'),
      ]),
    ).toBe('No');
  });
});

describe('ExtractiveAnswerer', () => {
  it('answers a re-asked question from what it retrieved this time, not what it answered before', async () => {
    const answerer = new ExtractiveAnswerer();
    const request = (memories: MemoryHit[], dateTime?: string) => ({
      sampleId: 's',
      benchmark: 'locomo',
      questionIndex: 0,
      question: 'When did Melanie sign up for pottery?',
      category: 2 as const,
      speakers: ['Caroline', 'Melanie'] as [string, string],
      memories: memories.map((m) => (dateTime ? { ...m, sessionDateTime: dateTime } : m)),
      seed: 1,
    });
    const first = [
      memory('Melanie', 'I just signed up for a pottery class!', '2023-07-03T10:00:00'),
    ];
    expect((await answerer.answer(request(first))).answer).toBe('3 July 2023');
    expect((await answerer.answer(request(first))).answer).toBe('3 July 2023');
    // The same turn in another session: the answer follows the session date.
    expect((await answerer.answer(request(first, '2023-08-14T10:00:00'))).answer).toBe(
      '14 August 2023',
    );
    const other = [memory('Melanie', 'I signed up for pottery last week.', '2023-07-03T10:00:00')];
    expect((await answerer.answer(request(other))).answer).toBe(extractiveAnswer(request(other)));
  });
});
