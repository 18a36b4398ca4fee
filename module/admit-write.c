/*
 * EMQ.ADMIT, steps 7 and 8: the pause check, then the writes in emq.lua's order (each row's
 * HSET in admission order, one ZADD of every new member, the target slot's UNLINK when it is
 * dead and its one HSET, the UNLINK of the dead slot after the live ones, else the touch), then
 * the reply.
 *
 * Why Call() and not the key API (HashSet, ZsetAdd) for the writes: Call() of the plain
 * commands is what replicas and the AOF must receive anyway (no module there), and it keeps
 * every effect a client can observe exactly as HSET and ZADD have them: keyspace events,
 * WATCH invalidation, listpack -> hashtable/skiplist conversion at the server's thresholds,
 * byte-identical DUMPs against the library. And it measured cheaper: with callgrind counting
 * the server's instructions (module/bench/cpu.ts, 50,000 jobs, Valkey 8.0.1), rows written
 * through Call() cost 33.0k instructions per keyed job, through OpenKey + HashSet + Replicate +
 * NotifyKeyspaceEvent 35.4k (HashSet converts a row whose payload exceeds 64 bytes from listpack
 * to hashtable after two fields, HSET before the first; 26.5k with the payload field first, a
 * gain within noise that gives up HSET's field order). What did pay: one ZADD and one slot HSET
 * per call, and the row's constant arguments passed as shared objects ("s"; a "c" argument is a
 * new object per call): 26.7k per keyed job, against 28.7k per job of a pipeline of 10
 * EMQ.ENQUEUE. Server CPU time (README, "Server CPU") is another matter: see there.
 */
#include "admit.h"

#include "jobs.h"

/* The row's constant arguments, made once: a Call() "c" argument is a new object per call. */
static Str *zero, *f_state, *v_pending, *f_attempts, *f_payload;

static void constants(void) {
    if (zero) return;
    zero = CreateString(NULL, "0", 1); /* also every pending member's score */
    f_state = CreateString(NULL, "state", 5);
    v_pending = CreateString(NULL, "pending", 7);
    f_attempts = CreateString(NULL, "attempts", 8);
    f_payload = CreateString(NULL, "payload", 7);
}

static int rows(AdmitCall *c) {
    if (c->rows == 0) return 1;
    Str **v = PoolAlloc(c->ctx, sizeof *v * 2 * (size_t)c->rows);
    size_t m = 0;
    int ok = 1;
    for (int i = 0; ok && i < c->n; i++) {
        Admission *a = &c->a[i];
        if (!a->writes_row) continue;
        /* One HSET of three fields in order (docs/wire.md, "The row at birth"). */
        ok = call_ok(c->ctx, Call(c->ctx, "HSET", "!Esssssss", a->row, f_state, v_pending,
                                  f_attempts, zero, f_payload, a->payload));
        v[m++] = zero;
        v[m++] = CreateString(c->ctx, a->idp, a->idn); /* the row key's tail */
    }
    if (ok) ok = call_ok(c->ctx, Call(c->ctx, "ZADD", "!Esv", c->pending, v, m));
    for (size_t j = 1; j < m; j += 2) FreeString(c->ctx, v[j]);
    return ok;
}

static int unlink_slot(AdmitCall *c, int s) {
    return call_ok(c->ctx, Call(c->ctx, "UNLINK", "!Es", c->slots.keys[s]));
}

/* One HSET of every record this call makes, then the header, so a new slot holds the header
 * after its first records, as the library writes it. */
static int records(AdmitCall *c) {
    if (c->records == 0) return 1;
    if (c->unlink_target && !unlink_slot(c, c->target)) return 0;
    size_t count = 2 * (size_t)c->records + 2, m = 0;
    Str **v = PoolAlloc(c->ctx, sizeof *v * count);
    for (int i = 0; i < c->n; i++) {
        Admission *a = &c->a[i];
        if (!a->record) continue;
        v[m++] = c->fields[i];
        v[m++] = CreateString(c->ctx, a->record, a->record_len);
    }
    char header[24];
    v[m++] = records_header();
    v[m++] = CreateString(c->ctx, header, decimal(header, lua_int(c->header)));
    int ok = call_ok(c->ctx, Call(c->ctx, "HSET", "!Esv", c->slots.keys[c->target], v, m));
    for (size_t j = 1; j < m; j += 2) FreeString(c->ctx, v[j]);
    return ok;
}

/* A call in which some admission answered 0 and nothing else was written rewrites that
 * record unchanged, so this client's next WAIT covers the original write (docs/reliability.md,
 * "Acknowledgements"). */
static int touch(AdmitCall *c) {
    int i = c->touch - 1;
    return call_ok(c->ctx, Call(c->ctx, "HSET", "!Esss", c->slots.keys[c->where[i]],
                                c->fields[i], c->found[i]));
}

static int writes(AdmitCall *c) {
    int wrote = c->rows > 0 || c->records > 0 || c->unlink_after;
    if (!rows(c) || !records(c)) return 0;
    if (c->unlink_after && !unlink_slot(c, c->after)) return 0;
    if (!wrote && c->touch && !touch(c)) return 0;
    return 1;
}

static void reply(AdmitCall *c, int planned) {
    ReplyWithArray(c->ctx, c->n);
    for (int i = 0; i < c->n; i++) {
        Admission *a = &c->a[i];
        if (!planned || a->outcome == OUT_WRONGTYPE) {
            ReplyWithError(c->ctx, WRONGTYPE);
        } else if (a->outcome == OUT_KIND) {
            ReplyWithError(c->ctx, KIND);
        } else {
            ReplyWithArray(c->ctx, 2);
            ReplyWithLongLong(c->ctx, a->status);
            ReplyWithStringBuffer(c->ctx, a->rid, a->rid_len);
        }
    }
}

int admit_finish(AdmitCall *c, int planned) {
    if (planned == 1) {
        int any = c->rows > 0 || c->records > 0 || c->unlink_after || c->touch;
        constants();
        if (!(any && paused(c->ctx)) && writes(c)) reply(c, 1);
    } else if (planned == 0) {
        reply(c, 0);
    }
    for (int i = 0; i < c->n; i++) {
        if (c->fields[i]) FreeString(c->ctx, c->fields[i]);
        if (c->found[i]) FreeString(c->ctx, c->found[i]);
    }
    return OK;
}
