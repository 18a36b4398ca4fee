/* The key layout of one queue: what step 2 (layout) of every admission call checks. */
#include "keys.h"

#include <string.h>

const char *queue_of(const Str *key, const char *tail, size_t *qlen) {
    static const char head[] = "emq:{";
    const size_t hn = sizeof head - 1, tn = strlen(tail);
    size_t n;
    const char *k = StringPtrLen(key, &n);
    if (n <= hn + tn || memcmp(k, head, hn) != 0 || memcmp(k + n - tn, tail, tn) != 0)
        return NULL;
    const char *q = k + hn;
    *qlen = n - hn - tn;
    return memchr(q, '{', *qlen) || memchr(q, '}', *qlen) ? NULL : q;
}

int key_is(const Str *key, const char *q, size_t qlen, const char *mid, const char *rest,
           size_t rlen) {
    size_t n, mn = strlen(mid);
    const char *k = StringPtrLen(key, &n);
    return n == 5 + qlen + mn + rlen && memcmp(k, "emq:{", 5) == 0 &&
           memcmp(k + 5, q, qlen) == 0 && memcmp(k + 5 + qlen, mid, mn) == 0 &&
           memcmp(k + 5 + qlen + mn, rest, rlen) == 0;
}

/* A table, not a chain of comparisons: every admission checks 38 of these bytes. */
static unsigned char b64url[256];

static void b64url_init(void) {
    for (int c = 0; c < 256; c++)
        b64url[c] = (unsigned char)((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                                    (c >= '0' && c <= '9') || c == '-' || c == '_');
}

int base64url(const char *s, size_t n) {
    if (!b64url['A']) b64url_init();
    unsigned char ok = 1;
    for (size_t j = 0; j < n; j++) ok &= b64url[(unsigned char)s[j]];
    return ok;
}

int is_job_id(const Str *id) {
    size_t n;
    const char *s = StringPtrLen(id, &n);
    return n >= 3 && memcmp(s, "JOB", 3) == 0;
}
