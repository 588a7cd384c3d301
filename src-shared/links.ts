/**
 * The external pages the app itself links to (its own docs and the benchmark's). The desktop shell
 * opens a link in the OS browser only when it is one of these, so a renderer showing untrusted
 * text (dataset content, server errors) cannot send the user anywhere else.
 */
export const DOC_LINKS = {
  locomo: 'https://snap-research.github.io/locomo/',
  locomoRepo: 'https://github.com/snap-research/locomo',
  mem0Paper: 'https://arxiv.org/abs/2504.19413',
} as const;
