/** The shapes every part of a deployment shares: a resolved object and the two callbacks it reports problems through. */

/** A spec or options with every default applied. */
export type Resolved<T> = { readonly [K in keyof T]-?: Exclude<T[K], undefined> };

/** Records a problem when `ok` is false. */
export type Ensure = (ok: boolean, problem: string) => void;

/** Records a problem when `value` is not an integer from `min` to `max`. */
export type EnsureInt = (name: string, value: number, min: number, max: number) => void;
