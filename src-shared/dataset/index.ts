export * from './categories';
export * from './packets';
export * from './types';
