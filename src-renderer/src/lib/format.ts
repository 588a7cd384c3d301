// The counts' formatter is shared with the CLI, so both say "1 sample".
export { formatCount, plural } from '@shared/format';
