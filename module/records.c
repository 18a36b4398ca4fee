/*
 * Reading records exactly as emq.lua's read_slots does, because the two families must give
 * the same answers on the same data: a slot counts only while its header `~` reads as a number
 * above now, a record only while its own expiry does, and the first live record in slot order
 * wins. Numbers are read as Lua's tonumber() reads them, so a value neither family wrote (an
 * operator's HSET) is judged alike too.
 */
#include "records.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 8 /* fields per HashGet call: it is variadic, so the count is fixed per call site */

static Str *header;

int records_setup(void) {
    header = CreateString(NULL, "~", 1);
    return header != NULL;
}

Str *records_header(void) { return header; }

int lua_number(const char *s, size_t n, double *out) {
    const char *nul = memchr(s, '\0', n);
    if (nul) n = (size_t)(nul - s); /* Lua reads the C string */
    if (n >= 1 && n <= 15) {        /* the common case: what the families write */
        double v = 0;
        size_t i = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') v = v * 10 + (s[i++] - '0');
        if (i == n) return *out = v, 1;
    }
    char small[64];
    char *buf = n < sizeof small ? small : Alloc(n + 1);
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    double v = strtod(buf, &end);
    int ok = end != buf;
    if (ok && (*end == 'x' || *end == 'X')) v = (double)strtoul(buf, &end, 16);
    if (ok) {
        while (isspace((unsigned char)*end)) end++;
        ok = *end == '\0';
    }
    if (buf != small) Free(buf);
    *out = v;
    return ok;
}

long long lua_int(double x) {
    if (x >= -9223372036854775808.0 && x < 9223372036854775808.0) return (long long)x;
#if defined(__aarch64__)
    return x != x ? 0 : x < 0 ? LLONG_MIN : LLONG_MAX; /* fcvtzs saturates, NaN is 0 */
#else
    return LLONG_MIN; /* cvttsd2si's "integer indefinite" */
#endif
}

size_t decimal(char *out, long long v) {
    char tmp[20];
    size_t n = 0, len = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do tmp[n++] = (char)('0' + u % 10); while ((u /= 10) != 0);
    if (v < 0) out[len++] = '-';
    while (n) out[len++] = tmp[--n];
    return len;
}

size_t record_id_len(size_t len) { return len < ID_LEN ? len : ID_LEN; }

/* Lua: string.sub(value, 16, 31) == digest */
int record_digest_is(const char *v, size_t len, const char *digest, size_t dlen) {
    return dlen == 16 && len >= ID_LEN + 1 + 16 && memcmp(v + ID_LEN + 1, digest, 16) == 0;
}

/* Lua: tonumber(string.sub(value, 33)) or 0 */
double record_expiry(const char *v, size_t len) {
    const size_t at = ID_LEN + 1 + 16 + 1;
    double d;
    return len > at && lua_number(v + at, len - at, &d) ? d : 0;
}

static void read_fields(Key *k, int count, Str *const *fields, Str **found, int *where, int slot,
                        double now) {
    int idx[CHUNK];
    Str *f[CHUNK + 1], *v[CHUNK];
    for (int i = 0; i < count;) {
        int m = 0;
        for (; i < count && m < CHUNK; i++)
            if (!found[i]) idx[m] = i, f[m++] = fields[i];
        if (m == 0) break;
        for (int j = m; j <= CHUNK; j++) f[j] = NULL; /* HashGet stops at the first NULL field */
        for (int j = 0; j < CHUNK; j++) v[j] = NULL;
        HashGet(k, 0, f[0], &v[0], f[1], &v[1], f[2], &v[2], f[3], &v[3], f[4], &v[4], f[5],
                &v[5], f[6], &v[6], f[7], &v[7], NULL);
        for (int j = 0; j < m; j++) {
            if (!v[j]) continue;
            size_t n;
            const char *p = StringPtrLen(v[j], &n);
            if (record_expiry(p, n) > now) {
                found[idx[j]] = v[j];
                where[idx[j]] = slot;
            } else {
                FreeString(NULL, v[j]);
            }
        }
    }
}

int slots_read(Ctx *ctx, Slots *s, int count, Str *const *fields, Str **found, int *where,
               double now) {
    for (int slot = 0; slot < SLOTS; slot++) {
        s->has[slot] = 0;
        Key *k = OpenKey(ctx, s->keys[slot], KEY_READ);
        if (!k) continue;
        if (KeyType(k) != TYPE_HASH) {
            CloseKey(k);
            return 0;
        }
        Str *h = NULL;
        HashGet(k, 0, header, &h, NULL);
        if (h) {
            size_t n;
            const char *p = StringPtrLen(h, &n);
            s->has[slot] = lua_number(p, n, &s->latest[slot]);
            FreeString(NULL, h);
        }
        if (s->has[slot] && s->latest[slot] > now)
            read_fields(k, count, fields, found, where, slot, now);
        CloseKey(k);
    }
    return 1;
}
