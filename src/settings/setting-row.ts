/**
 * The shape of one row of the settings table (settings-table.ts), and the check that keeps each
 * row's default a value its parser yields, at compile time.
 */
import type { Bounds, Parser } from './settings-parsers.js';

/**
 * Who sets a variable in a deployment: a construct setting (the functions of `faces` receive
 * it; `default` is the docs' text where the construct's default is not the row's), or the
 * construct itself from the cache or the queues it is given or from where it stands (`construct`),
 * or nobody (local use only).
 */
export type Deploy =
  | { readonly by: 'setting'; readonly faces: 'all' | 'sqs'; readonly default?: string }
  | { readonly by: 'cache' | 'queues' | 'construct' | 'local' };

/** A further variable one row's parser reads (IAM authentication's companions), for the docs. */
export interface Companion {
  readonly env: string;
  /** The docs' default cell. */
  readonly shown: string;
  readonly doc: string;
}

/** One row, giving Config a `T`: its parser's value, and undefined too for a row without a default. */
export interface Setting<T> {
  readonly env: string;
  /** Reads the variable's trimmed, non-empty value; throws ConfigError naming `env`. */
  readonly parse: Parser<T>;
  /** The value when the variable is unset or empty; `undefined`: none. */
  readonly default: T;
  /** The whole numbers `wholeNumber` accepts; the docs' range. */
  readonly bounds?: Bounds;
  /** The docs' default cell where the default is not a value one sets (IAM off: `false`). */
  readonly shown?: string;
  readonly companions?: readonly Companion[];
  readonly deploy: Deploy;
  /** One line for the docs' tables. */
  readonly doc: string;
}

/** Any row. */
type Row = Setting<unknown>;

/** Each row as given, or `never` where its default is not a value its parser yields. */
type Checked<S extends Record<string, Row>> = {
  readonly [K in keyof S]: S[K] extends {
    readonly parse: Parser<infer T>;
    readonly default: infer D;
  }
    ? [D] extends [T | undefined]
      ? S[K]
      : never
    : never;
};

/** The rows with their literal types kept, so Config and the construct's props derive from them. */
export function table<const S extends Record<string, Row>>(rows: S & Checked<S>): S {
  return rows;
}
