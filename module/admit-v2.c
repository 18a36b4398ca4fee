/*
 * EMQ.ADMIT in the previous form (v2), for hosts of the previous version while an upgrade rolls
 * out:  EMQ.ADMIT 3 emq:{q}:job:<id> emq:{q}:pending emq:{q}:dedupe:<h> <id> <payload> <ttl-ms>
 *   reply [status, id]: 1 new key (row, pending entry, SET <record> <id> PX <ttl>); 0 the key's
 *   record names id and its row holds this payload or is gone (the record is rewritten as it is,
 *   so this client's WAIT covers the original write); -1 another payload; 2 the proposed row
 *   exists. Refusals: arity, EMQLAYOUT, ttl shape, EMQWIRE, EMQKIND, WRONGTYPE, write-paused.
 * It sees the v3 records too (emq.lua admit_v2): the live record of field h[0..22] in the four
 * slots wins over the v2 string; either is judged by the recorded row's payload (a v2 call
 * carries no digest), and the touch of a v3 record is an HSET of it unchanged.
 */
#include "admit.h"

#include <string.h>

#include "fence.h"
#include "jobs.h"
#include "keys.h"
#include "records.h"

static const char LAYOUT3[] = "EMQLAYOUT keys must be emq:{q}:job:<id>, emq:{q}:pending "
                              "and emq:{q}:dedupe:<43 base64url characters>";

static int reply_admit(Ctx *ctx, long long status, const char *id, size_t len) {
    ReplyWithArray(ctx, 2);
    ReplyWithLongLong(ctx, status);
    return ReplyWithStringBuffer(ctx, id, len);
}

/* The v2 record's value (NULL when there is none); *type is the key's type. */
static Str *legacy_value(Ctx *ctx, Str *dedupe, int *type) {
    Key *k = OpenKey(ctx, dedupe, KEY_READ);
    *type = k ? KeyType(k) : TYPE_EMPTY;
    if (k) CloseKey(k);
    return *type == TYPE_STRING ? string_value(ctx, dedupe) : NULL;
}

/* Status 0 of a known key: the record is rewritten unchanged (HSET of a v3 record, SET KEEPTTL
 * of a v2 one), replicated as itself, so this client's next WAIT counts only replicas that
 * hold everything written before, the original row and record included (SPEC §4, §11). */
static int known(Ctx *ctx, Admit2 *a, const char *earlier, size_t len) {
    if (paused(ctx)) return OK;
    Reply *r = a->found ? Call(ctx, "HSET", "!Esss", a->slots.keys[a->where], a->field, a->found)
                        : set_keepttl(ctx, a->dedupe, a->legacy);
    if (!call_ok(ctx, r)) return OK;
    return reply_admit(ctx, 0, earlier, len);
}

static int decide(Ctx *ctx, Admit2 *a, Str **argv, const char *q, size_t qlen) {
    Str *row = argv[2], *pending = argv[3], *id = argv[5], *payload = argv[6];
    size_t len, idn;
    const char *earlier = NULL, *idp = StringPtrLen(id, &idn);
    int type;
    if (a->found) {
        earlier = StringPtrLen(a->found, &len);
        len = record_id_len(len);
    } else {
        a->legacy = legacy_value(ctx, a->dedupe, &type);
        if (type != TYPE_EMPTY && type != TYPE_STRING) return ReplyWithError(ctx, WRONGTYPE);
        if (a->legacy) earlier = StringPtrLen(a->legacy, &len);
    }
    if (earlier) {
        int verdict = recorded_row(ctx, q, qlen, earlier, len, payload);
        if (verdict == VERDICT_WRONGTYPE) return ReplyWithError(ctx, WRONGTYPE);
        if (verdict == VERDICT_OTHER) return reply_admit(ctx, -1, earlier, len);
        return known(ctx, a, earlier, len);
    }

    if (key_type(ctx, row) != TYPE_EMPTY) return reply_admit(ctx, 2, idp, idn);
    int pt = key_type(ctx, pending);
    if (pt != TYPE_EMPTY && pt != TYPE_ZSET) return ReplyWithError(ctx, WRONGTYPE);
    if (paused(ctx)) return OK;
    if (!write_row(ctx, row, pending, id, payload)) return OK;
    if (!call_ok(ctx, Call(ctx, "SET", "!Esscs", a->dedupe, id, "PX", argv[7]))) return OK;
    return reply_admit(ctx, 1, idp, idn);
}

int admit_v2(Ctx *ctx, Str **argv, int argc) {
    size_t qlen;
    long long ttl;
    const char *h;
    if (argc != 8) return WrongArity(ctx);
    Str *row = argv[2], *pending = argv[3], *id = argv[5];

    const char *q = row_layout_ok(row, pending, id, &qlen);
    if (!q || !legacy_key_ok(argv[4], q, qlen, &h)) return ReplyWithError(ctx, LAYOUT3);
    /* After the layout, as the function family checks it. StringToLongLong takes no sign,
     * space or leading zero; a bounded TTL means the record's SET cannot fail after the row. */
    if (StringToLongLong(argv[7], &ttl) != OK || ttl < 1 || ttl > TTL_MAX)
        return ReplyWithError(ctx, TTL_SHAPE);
    if (!fence_ok(ctx)) return OK;
    if (!is_job_id(id)) return ReplyWithError(ctx, KIND);

    Admit2 a;
    memset(&a, 0, sizeof a);
    a.dedupe = argv[4];
    a.field = CreateString(ctx, h, FIELD_LEN);
    slot_keys(ctx, &a.slots, q, qlen);
    if (!slots_read(ctx, &a.slots, 1, &a.field, &a.found, &a.where, (double)Milliseconds()))
        ReplyWithError(ctx, WRONGTYPE);
    else
        decide(ctx, &a, argv, q, qlen);
    for (int s = 0; s < SLOTS; s++) FreeString(ctx, a.slots.keys[s]);
    FreeString(ctx, a.field);
    if (a.found) FreeString(ctx, a.found);
    if (a.legacy) FreeString(ctx, a.legacy);
    return OK;
}
