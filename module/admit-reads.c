/*
 * The reads both forms of EMQ.ADMIT share (admit.h): the record slots' key names, a recorded
 * id's row against a payload, and a v2 record's value.
 */
#include "admit.h"

const char TTL_SHAPE[] = "ERR wrong number of arguments for 'emq.admit' command: ttl-ms must be "
                         "a positive integer";

void slot_keys(Ctx *ctx, Slots *s, const char *q, size_t qlen) {
    char digit = '0';
    for (int i = 0; i < SLOTS; i++, digit++) {
        Str *k = CreateString(ctx, "emq:{", 5);
        StringAppendBuffer(ctx, k, q, qlen);
        StringAppendBuffer(ctx, k, "}:dedupe:", 9);
        StringAppendBuffer(ctx, k, &digit, 1);
        s->keys[i] = k;
    }
}

int recorded_row(Ctx *ctx, const char *q, size_t qlen, const char *id, size_t idlen,
                 Str *payload) {
    Str *key = CreateString(ctx, "emq:{", 5);
    StringAppendBuffer(ctx, key, q, qlen);
    StringAppendBuffer(ctx, key, "}:job:", 6);
    StringAppendBuffer(ctx, key, id, idlen);
    Key *k = OpenKey(ctx, key, KEY_READ);
    int verdict = VERDICT_SAME; /* gone: the job existed and was consumed */
    if (k && KeyType(k) != TYPE_HASH) {
        verdict = VERDICT_WRONGTYPE;
    } else if (k) {
        Str *stored = NULL;
        HashGet(k, HASH_CFIELDS, "payload", &stored, NULL);
        size_t sn, pn;
        const char *sp = stored ? StringPtrLen(stored, &sn) : NULL;
        const char *pp = StringPtrLen(payload, &pn);
        verdict = sp && bytes_eq(sp, sn, pp, pn) ? VERDICT_SAME : VERDICT_OTHER;
        if (stored) FreeString(ctx, stored);
    }
    if (k) CloseKey(k);
    FreeString(ctx, key);
    return verdict;
}

Str *string_value(Ctx *ctx, Str *key) {
    Reply *r = Call(ctx, "GET", "s", key);
    Str *v = NULL;
    if (r && CallReplyType(r) == REPLY_STRING) {
        size_t n;
        const char *p = CallReplyStringPtr(r, &n);
        v = CreateString(ctx, p, n);
    }
    if (r) FreeCallReply(r);
    return v;
}
