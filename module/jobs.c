/*
 * EMQ.ENQUEUE and EMQ.ADMIT (SPEC §4). Every check runs before the first write, in the
 * SPEC's order, so a refusal leaves the dataset exactly as it was. Writes go through
 * Call() with "!E": each is replicated as itself (replicas and the AOF need no module) and
 * errors come back as replies.
 */
#include "jobs.h"

#include <string.h>

#include "fence.h"

static const char WRONGTYPE[] = "WRONGTYPE Operation against a key holding the wrong kind of value";
/* The function family's text and bounds (emq_admit), so both families refuse alike. */
static const char TTL_SHAPE[] = "ERR wrong number of arguments for 'emq.admit' command: ttl-ms "
                                "must be a positive integer";
#define TTL_MAX 999999999999999LL /* 15 digits: far below SET PX's limit, so SET cannot fail */
#define DEDUPE_HASH_LEN 43 /* base64url of a sha256, unpadded */

/* The queue name inside emq:{<q>}:<tail>, or NULL when `key` is not shaped so. */
static const char *queue_of(const Str *key, const char *tail, size_t *qlen) {
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

/* `key` is byte for byte emq:{<q>}:<mid><rest>. */
static int key_is(const Str *key, const char *q, size_t qlen, const char *mid, const char *rest,
                  size_t rlen) {
    size_t n, mn = strlen(mid);
    const char *k = StringPtrLen(key, &n);
    return n == 5 + qlen + mn + rlen && memcmp(k, "emq:{", 5) == 0 &&
           memcmp(k + 5, q, qlen) == 0 && memcmp(k + 5 + qlen, mid, mn) == 0 &&
           memcmp(k + 5 + qlen + mn, rest, rlen) == 0;
}

/* Step 2: row = emq:{q}:job:<id> and pending = emq:{q}:pending, one q. */
static const char *row_layout_ok(const Str *row, const Str *pending, const Str *id,
                                 size_t *qlen) {
    size_t idlen;
    const char *i = StringPtrLen(id, &idlen);
    const char *q = queue_of(pending, "}:pending", qlen);
    return q && key_is(row, q, *qlen, "}:job:", i, idlen) ? q : NULL;
}

/* Step 2 for admit: dedupe = emq:{q}:dedupe:<43 base64url characters>, the same q. */
static int dedupe_layout_ok(const Str *dedupe, const char *q, size_t qlen) {
    static const char mid[] = "}:dedupe:";
    size_t n;
    const char *k = StringPtrLen(dedupe, &n);
    size_t head = 5 + qlen + sizeof mid - 1;
    if (n != head + DEDUPE_HASH_LEN || !key_is(dedupe, q, qlen, mid, k + head, DEDUPE_HASH_LEN))
        return 0;
    for (size_t j = head; j < n; j++) {
        char c = k[j];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_'))
            return 0;
    }
    return 1;
}

static int is_job_id(const Str *id) {
    size_t n;
    const char *s = StringPtrLen(id, &n);
    return n >= 3 && memcmp(s, "JOB", 3) == 0;
}

/* Missing key counts as EMPTY; NOTOUCH keeps LRU/LFU as the script's EXISTS does. */
static int key_type(Ctx *ctx, Str *name) {
    Key *k = OpenKey(ctx, name, KEY_READ | KEY_NOTOUCH);
    int t = k ? KeyType(k) : TYPE_EMPTY;
    if (k) CloseKey(k);
    return t;
}

/* Forwards a failed Call() as this command's reply; 1 when the write succeeded. */
static int call_ok(Ctx *ctx, Reply *r) {
    if (r && CallReplyType(r) != REPLY_ERROR) {
        FreeCallReply(r);
        return 1;
    }
    if (r) {
        ReplyWithCallReply(ctx, r);
        FreeCallReply(r);
    } else {
        ReplyWithError(ctx, "ERR EMQ write failed");
    }
    return 0;
}

/* Step 7. CLIENT PAUSE WRITE or a failover in progress: a write now would race the handover. */
static int paused(Ctx *ctx) {
    if (!AvoidReplicaTraffic()) return 0;
    ReplyWithError(ctx, "ERR EMQ write-paused");
    return 1;
}

/* Step 8, the row at birth (SPEC §3): one HSET of three fields in order, then ZADD 0. The
 * payload goes as a Str: binary-safe, NULs included. */
static int write_row(Ctx *ctx, Str *row, Str *pending, Str *id, Str *payload) {
    return call_ok(ctx, Call(ctx, "HSET", "!Escccccs", row, "state", "pending", "attempts", "0",
                             "payload", payload)) &&
           call_ok(ctx, Call(ctx, "ZADD", "!Escs", pending, "0", id));
}

int enqueue_cmd(Ctx *ctx, Str **argv, int argc) {
    size_t n, qlen;
    if (argc != 6) return WrongArity(ctx);
    const char *s = StringPtrLen(argv[1], &n);
    if (!bytes_eq(s, n, "2", 1)) return WrongArity(ctx);
    Str *row = argv[2], *pending = argv[3], *id = argv[4], *payload = argv[5];

    if (!row_layout_ok(row, pending, id, &qlen))
        return ReplyWithError(ctx, "EMQLAYOUT keys must be emq:{q}:job:<id> and emq:{q}:pending");
    if (!fence_ok(ctx)) return OK;
    if (!is_job_id(id)) return ReplyWithError(ctx, "EMQKIND job id must be JOB-namespaced");
    if (key_type(ctx, row) != TYPE_EMPTY) return ReplyWithLongLong(ctx, 0);
    int pt = key_type(ctx, pending);
    if (pt != TYPE_EMPTY && pt != TYPE_ZSET) return ReplyWithError(ctx, WRONGTYPE);
    if (paused(ctx)) return OK;
    if (!write_row(ctx, row, pending, id, payload)) return OK;
    return ReplyWithLongLong(ctx, 1);
}

static int reply_admit(Ctx *ctx, long long status, Str *id) {
    ReplyWithArray(ctx, 2);
    ReplyWithLongLong(ctx, status);
    return ReplyWithString(ctx, id);
}

/* The record's id, copied out of the key (NULL when there is no record); *type is its type. */
static Str *record_id(Ctx *ctx, Str *dedupe, int *type) {
    Key *k = OpenKey(ctx, dedupe, KEY_READ | KEY_NOTOUCH);
    *type = k ? KeyType(k) : TYPE_EMPTY;
    Str *recorded = NULL;
    if (*type == TYPE_STRING) {
        size_t n;
        const char *v = StringDMA(k, &n, KEY_READ);
        recorded = CreateString(ctx, v ? v : "", v ? n : 0);
    }
    if (k) CloseKey(k);
    return recorded;
}

/* Compares the recorded job's row with `payload`: 0 same or gone, -1 another payload, and
 * -2 when the row is not a hash. The row key is the proposal's with the recorded id. */
static int recorded_row(Ctx *ctx, Str *row, Str *id, Str *recorded, Str *payload) {
    size_t rn, idn, recn;
    const char *r = StringPtrLen(row, &rn);
    const char *rec = StringPtrLen(recorded, &recn);
    StringPtrLen(id, &idn);
    Str *key = CreateString(ctx, r, rn - idn);
    StringAppendBuffer(ctx, key, rec, recn);

    Key *k = OpenKey(ctx, key, KEY_READ | KEY_NOTOUCH);
    int verdict = 0;
    if (k && KeyType(k) != TYPE_HASH) {
        verdict = -2;
    } else if (k) {
        Str *stored = NULL;
        HashGet(k, HASH_CFIELDS, "payload", &stored, NULL);
        size_t sn, pn;
        const char *sp = stored ? StringPtrLen(stored, &sn) : NULL;
        const char *pp = StringPtrLen(payload, &pn);
        verdict = sp && bytes_eq(sp, sn, pp, pn) ? 0 : -1;
        if (stored) FreeString(ctx, stored);
    }
    if (k) CloseKey(k);
    FreeString(ctx, key);
    return verdict;
}

/* Status 0 of a known key: the record names a job that exists or existed. The record is
 * rewritten with its own value and TTL (SET KEEPTTL, replicated as itself) so that this
 * client's next WAIT counts only replicas that hold everything written before: the
 * original row and record included (SPEC §4, §11). */
static int admit_known(Ctx *ctx, Str *dedupe, Str *recorded) {
    if (paused(ctx)) return OK;
    if (!call_ok(ctx, Call(ctx, "SET", "!Essc", dedupe, recorded, "KEEPTTL"))) return OK;
    return reply_admit(ctx, 0, recorded);
}

int admit_cmd(Ctx *ctx, Str **argv, int argc) {
    size_t n, qlen;
    long long ttl;
    if (argc != 8) return WrongArity(ctx);
    const char *s = StringPtrLen(argv[1], &n);
    if (!bytes_eq(s, n, "3", 1)) return WrongArity(ctx);
    Str *row = argv[2], *pending = argv[3], *dedupe = argv[4], *id = argv[5], *payload = argv[6];

    const char *q = row_layout_ok(row, pending, id, &qlen);
    if (!q || !dedupe_layout_ok(dedupe, q, qlen))
        return ReplyWithError(ctx, "EMQLAYOUT keys must be emq:{q}:job:<id>, emq:{q}:pending "
                                   "and emq:{q}:dedupe:<43 base64url characters>");
    /* After the layout, as the function family checks it. StringToLongLong takes no sign,
     * space or leading zero; a bounded TTL means the record's SET cannot fail after the row. */
    if (StringToLongLong(argv[7], &ttl) != OK || ttl < 1 || ttl > TTL_MAX)
        return ReplyWithError(ctx, TTL_SHAPE);
    if (!fence_ok(ctx)) return OK;
    if (!is_job_id(id)) return ReplyWithError(ctx, "EMQKIND job id must be JOB-namespaced");

    int rt;
    Str *recorded = record_id(ctx, dedupe, &rt);
    if (rt != TYPE_EMPTY && rt != TYPE_STRING) return ReplyWithError(ctx, WRONGTYPE);
    if (recorded) {
        int verdict = recorded_row(ctx, row, id, recorded, payload);
        if (verdict == -2) ReplyWithError(ctx, WRONGTYPE);
        else if (verdict == -1) reply_admit(ctx, -1, recorded);
        else admit_known(ctx, dedupe, recorded);
        FreeString(ctx, recorded);
        return OK;
    }

    if (key_type(ctx, row) != TYPE_EMPTY) return reply_admit(ctx, 2, id);
    int pt = key_type(ctx, pending);
    if (pt != TYPE_EMPTY && pt != TYPE_ZSET) return ReplyWithError(ctx, WRONGTYPE);
    if (paused(ctx)) return OK;
    if (!write_row(ctx, row, pending, id, payload)) return OK;
    if (!call_ok(ctx, Call(ctx, "SET", "!Esscs", dedupe, id, "PX", argv[7]))) return OK;
    return reply_admit(ctx, 1, id);
}
