/* A queue's idempotency records (docs/wire.md "Idempotency records"): four hashes
 * emq:{q}:dedupe:0..3, field = h's first 22 characters, value <id>:<digest>:<expiry ms>, field
 * `~` = the latest expiry in the slot. Read as the emq library reads them (emq.lua read_slots). */
#ifndef EMQ_RECORDS_H
#define EMQ_RECORDS_H

#include "api.h"

#define SLOTS 4
#define ID_LEN 14 /* JOB + 11 base62 digits: the id part of a record value */

typedef struct Slots {
    Str *keys[SLOTS];
    int has[SLOTS];       /* the slot holds a header that reads as a number */
    double latest[SLOTS]; /* that number: the latest expiry among its records */
} Slots;

/* Creates the shared header field name; 0 on failure. */
int records_setup(void);
/* The header field `~`. */
Str *records_header(void);

/* Lua 5.1's tonumber() of a byte string, which the library judges expiries with: strtod up to
 * the first NUL, hex, surrounding spaces. 1 and *out when it is a number. */
int lua_number(const char *s, size_t n, double *out);
/* string.format('%d', x) of the library's Lua on this CPU (the integer part; out of range as
 * the conversion instruction gives it). */
long long lua_int(double x);

/* Writes v in decimal (as %lld) at out, which has room for 20 bytes; returns the length. */
size_t decimal(char *out, long long v);
/* The id a record names: its first 14 bytes (fewer if it is shorter), as string.sub does. */
size_t record_id_len(size_t len);
/* The record holds `digest` (16 bytes) at its digest position. */
int record_digest_is(const char *v, size_t len, const char *digest, size_t dlen);
/* The record's expiry; 0 (long dead) when it does not read as a number. */
double record_expiry(const char *v, size_t len);

/* Reads the header of every slot and, in the live ones (latest > now), the fields of `count`
 * keys whose found[i] is still NULL: found[i] becomes the first live record of fields[i] in
 * slot order, where[i] its slot (the caller frees found[]). 0 when a slot is not a hash: then
 * the caller answers WRONGTYPE, as the library does. */
int slots_read(Ctx *ctx, Slots *s, int count, Str *const *fields, Str **found, int *where,
               double now);

#endif
