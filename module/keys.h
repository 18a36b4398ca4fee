/* The key layout of one queue (docs/wire.md, "Keys"): byte-exact checks, no I/O. */
#ifndef EMQ_KEYS_H
#define EMQ_KEYS_H

#include "api.h"

#define FIELD_LEN 22       /* a record's field: h's first 22 characters (132 bits) */
#define DIGEST_LEN 16      /* a payload digest: base64url of 12 bytes */

/* The queue name inside emq:{<q>}:<tail>, or NULL when `key` is not shaped so (q is 1 or more
 * bytes without a brace). */
const char *queue_of(const Str *key, const char *tail, size_t *qlen);
/* `key` is byte for byte emq:{<q>}:<mid><rest>. */
int key_is(const Str *key, const char *q, size_t qlen, const char *mid, const char *rest,
           size_t rlen);
/* n bytes of A-Z a-z 0-9 - _ */
int base64url(const char *s, size_t n);
/* The kind gate (step 4): the id starts with JOB. */
int is_job_id(const Str *id);

#endif
