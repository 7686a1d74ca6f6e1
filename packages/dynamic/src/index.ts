// The meta/v1 call options are @kubets/apimachinery's, the same the typed clientset takes.
export type {
  ApplyOptions,
  CallOptions,
  CreateOptions,
  DeleteOptions,
  FieldValidation,
  GetOptions,
  ListOptions,
  PatchOptions,
  Preconditions,
  PropagationPolicy,
  UpdateOptions,
  WatchOptions,
} from '@kubets/apimachinery';
export { PatchType, type WatchStream } from '@kubets/rest';
export {
  DynamicClient,
  dynamicClientFor,
  type NamespaceableResourceInterface,
  type ResourceInterface,
  type ResourceOptions,
  type UnstructuredInput,
} from './client.js';
export {
  type DynamicInformer,
  type DynamicInformerOptions,
  type DynamicSharedInformerFactory,
  type DynamicSharedInformerFactoryOptions,
  newDynamicSharedInformerFactory,
  newDynamicSharedInformerFactoryWithOptions,
  newFilteredDynamicInformer,
  newFilteredDynamicListWatch,
  newFilteredDynamicSharedInformerFactory,
} from './dynamic-informer.js';
export {
  type DynamicLister,
  type DynamicNamespaceLister,
  newDynamicLister,
} from './dynamic-lister.js';
export {
  type ConversionCheck,
  fromUnstructured,
  isUnstructured,
  nestedBool,
  nestedField,
  nestedFieldCopy,
  nestedFloat64,
  nestedInt64,
  nestedMap,
  nestedSlice,
  nestedString,
  nestedStringMap,
  nestedStringSlice,
  removeNestedField,
  setNestedField,
  type TypedList,
  toTypedList,
  type Unstructured,
  type UnstructuredContent,
  UnstructuredConversionError,
  UnstructuredFieldError,
  type UnstructuredList,
} from './unstructured.js';
