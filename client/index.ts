/**
 * `echomq-lambda/client`: the producer client of SPEC §12. A placeholder so the package's
 * entry builds and installs; the client replaces this file.
 */
export {};
