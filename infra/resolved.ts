/** The shapes every settings half shares: a resolved object and the two checks it reports through. */

/** A settings object with every default applied. */
export type Resolved<T> = { readonly [K in keyof T]-?: Exclude<T[K], undefined> };

/** Records a problem when `ok` is false. */
export type Check = (ok: boolean, problem: string) => void;

/** Records a problem when `value` is not an integer from `min` to `max`. */
export type IntCheck = (name: string, value: number, min: number, max: number) => void;
