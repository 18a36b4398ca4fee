/*
 * EMQ.ADMIT (docs/wire.md "admit"), the native twin of emq.lua's emq_admit:
 *
 *   EMQ.ADMIT <5+n> <pending> <slot0> <slot1> <slot2> <slot3> <row_i>×n
 *             <wire> <ttl-ms> (<claim_i> <payload_i>)×n
 *   KEYS  pending emq:{q}:pending; slot0..3 emq:{q}:dedupe:0..3 (the record slots);
 *         row_i emq:{q}:job:<id_i> (the id is the key's tail)
 *   ARGV  wire: the identity the host expects; ttl-ms: a new record's life (1 to 15 digits);
 *         claim_i: the kind (m minted, c the caller's id), the payload's digest (16 base64url),
 *         the record's field (22 base64url: h_i's first 22); payload_i
 *   reply an array of n replies, in order: [status, id] or an error element (EMQKIND,
 *         WRONGTYPE); status 1 new, 0 known with this digest, -1 another digest, 2 the proposed
 *         row exists (a caller id compares the row's payload instead: 0 and recorded, or -1)
 *   refusals of the whole call, before anything is written, in this order:
 *         ERR wrong number of arguments ...  key count, argument count, wire/ttl/claim
 *         EMQLAYOUT ...                      keys not one queue's layout
 *         EMQWIRE ...                        this node's {emq}:version (its own copy, read on
 *                                            every call) or the host's <wire> is not the
 *                                            module's identity
 *         ERR EMQ write-paused               the server pauses writes and the call would write
 *
 * Key positions are variable, so the command is registered with getkeys-api and declares its
 * keys here: the server then answers MOVED / CROSSSLOT and checks ACL key patterns on them
 * before the handler runs, as for FCALL.
 */
#include "admit.h"

#include <stdio.h>
#include <string.h>

#include "fence.h"
#include "keys.h"

static const char LAYOUT[] = "EMQLAYOUT keys must be one queue's emq:{q}:pending, emq:{q}:dedupe:0 "
                             "to 3, then emq:{q}:job:<id> per admission";
#define CLAIM_LEN (1 + DIGEST_LEN + FIELD_LEN)

/* What each key is used for, as ACL key permissions see it (read: ACCESS; write: UPDATE). */
static const int PENDING_FLAGS = KEYSPEC_RW | KEYSPEC_UPDATE;                    /* ZADD */
static const int SLOT_FLAGS = KEYSPEC_RW | KEYSPEC_ACCESS | KEYSPEC_UPDATE | KEYSPEC_DELETE;
static const int ROW_FLAGS = KEYSPEC_RW | KEYSPEC_ACCESS | KEYSPEC_UPDATE; /* HGET, HSET */

/* The key count at argv[1], when it is one and the keys are all there; else -1. */
static long long numkeys(Str **argv, int argc) {
    long long nk;
    if (argc < 2 || StringToLongLong(argv[1], &nk) != OK || nk < 0 || nk > argc - 2) return -1;
    return nk;
}

/* A key-position request (routing, ACL, COMMAND GETKEYS): declares every key, by its role. */
static void declare_keys(Ctx *ctx, Str **argv, int argc) {
    long long nk = numkeys(argv, argc);
    for (int pos = 2; pos < 2 + nk; pos++)
        KeyAtPosWithFlags(ctx, pos, pos == 2 ? PENDING_FLAGS : pos <= 6 ? SLOT_FLAGS : ROW_FLAGS);
}

static int shape(Ctx *ctx, const char *why) {
    char msg[160];
    snprintf(msg, sizeof msg, "ERR wrong number of arguments for 'emq.admit' command%s", why);
    return ReplyWithError(ctx, msg);
}

/* Step 1 past the counts: wire, ttl-ms, then each admission's claim (emq.lua's order). NULL
 * when they are well formed, else the reason. */
static const char *malformed(Str **args, int n, long long *ttl) {
    size_t len;
    const char *w = StringPtrLen(args[0], &len);
    int ok = len >= 1 && len <= 64;
    for (size_t i = 0; ok && i < len; i++) ok = w[i] >= '!' && w[i] <= '~';
    if (!ok) return ": wire must be 1 to 64 printable characters";
    if (StringToLongLong(args[1], ttl) != OK || *ttl < 1 || *ttl > TTL_MAX)
        return ": ttl-ms must be a positive integer";
    for (int i = 0; i < n; i++) {
        const char *k = StringPtrLen(args[2 + 2 * i], &len);
        if (len != CLAIM_LEN || (k[0] != 'm' && k[0] != 'c') || !base64url(k + 1, len - 1))
            return ": claim must be m or c, then 38 base64url characters";
    }
    return NULL;
}

/* Step 2: one queue's pending, its four slots in order, then a row per admission, whose tail
 * is its id. Every key starts with the pending key's "emq:{q}:", so that prefix is compared as
 * bytes. */
static int layout_ok(AdmitCall *c, Str **keys) {
    c->q = queue_of(keys[0], "}:pending", &c->qlen);
    if (!c->q) return 0;
    const char *prefix = StringPtrLen(keys[0], NULL);
    const size_t pn = 5 + c->qlen + 2, rown = pn + 4;
    for (int s = 0; s < SLOTS; s++) {
        size_t n;
        const char *k = StringPtrLen(keys[1 + s], &n);
        if (n != pn + 8 || memcmp(k, prefix, pn) != 0 || memcmp(k + pn, "dedupe:", 7) != 0 ||
            k[pn + 7] != (char)('0' + s))
            return 0;
    }
    for (int i = 0; i < c->n; i++) {
        Admission *a = &c->a[i];
        size_t rn;
        const char *row = StringPtrLen(a->row, &rn);
        if (rn < rown || memcmp(row, prefix, pn) != 0 || memcmp(row + pn, "job:", 4) != 0)
            return 0;
        a->idp = row + rown;
        a->idn = rn - rown;
    }
    return 1;
}

/* Step 3, beyond the node's copy (fence_ok): the host expects this module's identity. */
static int wire_ok(Ctx *ctx, Str *host) {
    size_t n;
    const char *w = StringPtrLen(host, &n);
    if (bytes_eq(w, n, fence_wire(), strlen(fence_wire()))) return 1;
    char msg[200];
    snprintf(msg, sizeof msg, "EMQWIRE wire identity mismatch: module has '%s', host expects '%.*s'",
             fence_wire(), (int)n, w);
    ReplyWithError(ctx, msg);
    return 0;
}

static int admit(Ctx *ctx, Str **argv, int argc, long long nk) {
    long long nargs = argc - 2 - nk, ttl;
    if (nk < 6) return shape(ctx, "");
    int n = (int)(nk - 5);
    if (nargs != 2 + 2LL * n) return shape(ctx, "");
    Str **keys = argv + 2, **args = argv + 2 + nk;
    const char *why = malformed(args, n, &ttl);
    if (why) return shape(ctx, why);

    AdmitCall c;
    memset(&c, 0, sizeof c);
    c.ctx = ctx;
    c.n = n;
    c.ttl = ttl;
    c.pending = keys[0];
    c.a = PoolAlloc(ctx, sizeof *c.a * (size_t)n);
    c.fields = PoolAlloc(ctx, sizeof *c.fields * (size_t)n);
    c.found = PoolAlloc(ctx, sizeof *c.found * (size_t)n);
    c.where = PoolAlloc(ctx, sizeof *c.where * (size_t)n);
    memset(c.a, 0, sizeof *c.a * (size_t)n);
    memset(c.fields, 0, sizeof *c.fields * (size_t)n);
    memset(c.found, 0, sizeof *c.found * (size_t)n);
    for (int s = 0; s < SLOTS; s++) c.slots.keys[s] = keys[1 + s];
    for (int i = 0; i < n; i++) {
        Admission *a = &c.a[i];
        const char *claim = StringPtrLen(args[2 + 2 * i], NULL);
        a->kind = claim[0];
        a->dp = claim + 1;
        a->h = claim + 1 + DIGEST_LEN;
        a->payload = args[3 + 2 * i];
        a->pp = StringPtrLen(a->payload, &a->pn);
        a->row = keys[5 + i];
    }

    if (!layout_ok(&c, keys)) {
        ReplyWithError(ctx, LAYOUT);
        return admit_finish(&c, -1);
    }
    for (int i = 0; i < n; i++) c.fields[i] = CreateString(ctx, c.a[i].h, FIELD_LEN);
    if (!fence_ok(ctx) || !wire_ok(ctx, args[0])) return admit_finish(&c, -1);
    return admit_finish(&c, admit_plan(&c));
}

int admit_cmd(Ctx *ctx, Str **argv, int argc) {
    if (IsKeysPositionRequest(ctx)) {
        declare_keys(ctx, argv, argc);
        return OK;
    }
    long long nk = numkeys(argv, argc);
    if (nk < 0) return WrongArity(ctx);
    return admit(ctx, argv, argc, nk);
}
