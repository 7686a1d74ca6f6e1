export type { GenericLister, GenericNamespaceLister, SelectorInput } from '@kubets/listers';
export * from './factory.js';
export * from './generated/index.js';
export * from './resource-informer.js';
