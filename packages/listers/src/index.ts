export {
  type GenericLister,
  type GenericNamespaceLister,
  listAll,
  listAllByNamespace,
  newGenericLister,
  newNotFoundError,
  type SelectorInput,
  toSelector,
} from './lister.js';
