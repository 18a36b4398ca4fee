/**
 * The user and password a connection sends: EMQ_USERNAME and EMQ_PASSWORD where set, else the
 * ones written in the URL. One rule for the client's options and for the message that names
 * the user a server refused.
 */
import type { Config } from '../settings/config.js';

export interface SentCredentials {
  readonly username: string | undefined;
  readonly password: string | undefined;
}

export function sentCredentials(config: Config, url: URL): SentCredentials {
  return {
    username: config.username ?? (decodeURIComponent(url.username) || undefined),
    password: config.password ?? (decodeURIComponent(url.password) || undefined),
  };
}

/** The credentials a client of `config` sends: its first URL's, under EMQ_USERNAME and EMQ_PASSWORD. */
export function configCredentials(config: Config): SentCredentials {
  try {
    return sentCredentials(config, new URL(config.urls[0] ?? ''));
  } catch {
    return { username: config.username, password: config.password };
  }
}
