import type { HasObjectMeta, ObjectMeta } from '@kubets/apimachinery';

/**
 * The metadata fields the controller helpers read and write.
 *
 * @deprecated Use `ObjectMeta` from `@kubets/apimachinery`: the helpers take any object
 *   whose metadata fits it.
 */
export type ControllerMeta = ObjectMeta;

/**
 * Any Kubernetes object, as far as the controller helpers are concerned.
 *
 * @deprecated Use `HasObjectMeta` from `@kubets/apimachinery`, the same shape.
 */
export type MetaObject = HasObjectMeta;
