/**
 * One validation failure, as kube-apiserver lists it in a 422 Status's `details.causes`:
 * `reason` is the cause type (`FieldValueRequired`, `FieldValueInvalid`, ...), `field` the
 * path (`spec.names.kind`), `message` the text after the path (`Required value: ...`).
 */
export interface FieldError {
  /** The cause type, e.g. `FieldValueForbidden`. */
  reason: string;
  /** What is wrong, as kube-apiserver words it (`Invalid value: "x": ...`). */
  message: string;
  /** Where: the field path, e.g. `spec.validation.openAPIV3Schema.type`. */
  field: string;
}
