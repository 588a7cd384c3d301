import { describe, expect, it } from 'vitest';
import { VIEWS } from './index';

/** The registry App renders from: one entry per view, so a view is its folder and one line. */
describe('the view registry', () => {
  it('names each view once, with its label and component; Datasets first (an empty hash shows it)', () => {
    const ids = VIEWS.map((view) => view.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]).toBe('datasets');
    for (const view of VIEWS) {
      expect(view, view.id).toMatchObject({
        id: expect.stringMatching(/^[a-z]+$/),
        label: expect.stringMatching(/^[A-Z]/),
      });
    }
  });

  it("loads each view's code on demand, once, as the component its module exports", async () => {
    for (const view of VIEWS) {
      const first = view.component.load();
      expect(view.component.load(), view.id).toBe(first);
      const component = await first;
      expect(component, view.id).toEqual(expect.any(Function));
      expect(component.name, view.id).toBe(`${view.label}View`);
    }
  });
});
