/*
 * EMQ.ADMIT, steps 4 to 6: every read and every answer of the call, decided before anything
 * is written, so that the pause check (step 7) can refuse a call that would write while it
 * still has written nothing. The decisions are emq.lua's admit(), line for line, including how
 * an admission sees the ones before it in the same call: a record an earlier admission makes
 * (the same key twice: the second answers from the first's record), and a row an earlier
 * admission writes (the same id twice). Those rows are not written yet, so their payloads come
 * from the plan instead of the keyspace.
 */
#include "admit.h"

#include <string.h>

#include "jobs.h"
#include "keys.h"

/* Two admissions carry the same payload bytes. */
static int same_payload(const Admission *a, const Admission *b) {
    return bytes_eq(a->pp, a->pn, b->pp, b->pn);
}

/* The record an earlier admission of this call makes for admission i's key (fresh[] in Lua). */
static const Admission *fresh_record(const AdmitCall *c, int i) {
    const char *h = c->a[i].h;
    for (int j = 0; j < i; j++)
        if (c->a[j].record && memcmp(c->a[j].h, h, FIELD_LEN) == 0) return &c->a[j];
    return NULL;
}

/* The admission of this call that writes row emq:{q}:job:<id> (new_rows[] in Lua). */
static const Admission *new_row(const AdmitCall *c, int i, const char *id, size_t idn) {
    for (int j = 0; j < i; j++)
        if (c->a[j].writes_row && bytes_eq(c->a[j].idp, c->a[j].idn, id, idn)) return &c->a[j];
    return NULL;
}

static void answer(Admission *a, long long status, const char *id, size_t len) {
    a->outcome = OUT_STATUS;
    a->status = status;
    a->rid = id;
    a->rid_len = len;
}

/* The new record of admission i: <id>:<digest>:<expiry>, in the call's pool. */
static void record(AdmitCall *c, Admission *a) {
    char *r = a->record = PoolAlloc(c->ctx, a->idn + 1 + DIGEST_LEN + c->expiry_len);
    memcpy(r, a->idp, a->idn);
    r[a->idn] = ':';
    memcpy(r + a->idn + 1, a->dp, DIGEST_LEN);
    memcpy(r + a->idn + 1 + DIGEST_LEN, c->expiry_text, c->expiry_len);
    a->record_len = a->idn + 1 + DIGEST_LEN + c->expiry_len;
    c->records++;
}

/* Admission i's key has a record (found now, or made earlier in this call). */
static void known(AdmitCall *c, int i, const char *v, size_t len, int fresh) {
    Admission *a = &c->a[i];
    if (!record_digest_is(v, len, a->dp, DIGEST_LEN)) {
        answer(a, -1, v, record_id_len(len));
        return;
    }
    answer(a, 0, v, record_id_len(len));
    if (!fresh && !c->touch) c->touch = i + 1;
}

/* The proposed row exists (or an earlier admission writes it). */
static void row_taken(AdmitCall *c, int i, const char *id, size_t idn) {
    Admission *a = &c->a[i];
    if (a->kind == 'm') {
        answer(a, 2, id, idn);
        return;
    }
    /* A caller's id whose row exists without a record (written by another host, or before
     * records existed): the row's payload decides. A missing row cannot happen here. */
    Str *stored = NULL;
    const Admission *planned = new_row(c, i, id, idn);
    int verdict = VERDICT_OTHER;
    if (planned) {
        verdict = same_payload(a, planned) ? VERDICT_SAME : VERDICT_OTHER;
    } else {
        Key *k = OpenKey(c->ctx, a->row, KEY_READ);
        if (k && KeyType(k) != TYPE_HASH) {
            verdict = VERDICT_WRONGTYPE;
        } else if (k) {
            HashGet(k, HASH_CFIELDS, "payload", &stored, NULL);
            size_t sn;
            const char *sp = stored ? StringPtrLen(stored, &sn) : NULL;
            verdict = sp && bytes_eq(a->pp, a->pn, sp, sn) ? VERDICT_SAME : VERDICT_OTHER;
            if (stored) FreeString(c->ctx, stored);
        }
        if (k) CloseKey(k);
    }
    if (verdict == VERDICT_WRONGTYPE) {
        a->outcome = OUT_WRONGTYPE;
    } else if (verdict == VERDICT_SAME) {
        record(c, a);
        answer(a, 0, id, idn);
    } else {
        answer(a, -1, id, idn);
    }
}

/* A new key and a free row: the admission writes row, pending entry and record. */
static void admit_new(AdmitCall *c, int i, const char *id, size_t idn) {
    Admission *a = &c->a[i];
    if (c->pending_ok < 0) {
        int t = key_type(c->ctx, c->pending);
        c->pending_ok = t == TYPE_EMPTY || t == TYPE_ZSET;
    }
    if (!c->pending_ok) {
        a->outcome = OUT_WRONGTYPE;
        return;
    }
    a->writes_row = 1;
    c->rows++;
    record(c, a);
    answer(a, 1, id, idn);
}

/* Lookups of step 5 (emq.lua order): the slots, then every row. */
static int lookups(AdmitCall *c) {
    if (!slots_read(c->ctx, &c->slots, c->n, c->fields, c->found, c->where, (double)c->now))
        return 0;
    for (int i = 0; i < c->n; i++) {
        Key *k = OpenKey(c->ctx, c->a[i].row, KEY_READ | KEY_NOTOUCH);
        c->a[i].row_exists = k != NULL;
        if (k) CloseKey(k);
    }
    return 1;
}

int admit_plan(AdmitCall *c) {
    c->now = Milliseconds();
    c->window = (c->ttl + 1) / 2; /* ceil(ttl / 2) */
    c->expiry = c->now + c->ttl;
    c->expiry_text[0] = ':';
    c->expiry_len = 1 + decimal(c->expiry_text + 1, c->expiry);
    c->target = (int)((c->expiry / c->window) % SLOTS);
    c->after = (int)((c->now / c->window + 3) % SLOTS);
    c->pending_ok = -1;
    if (!lookups(c)) return 0;

    for (int i = 0; i < c->n; i++) {
        Admission *a = &c->a[i];
        size_t idn = a->idn, len;
        const char *id = a->idp;
        const Admission *fresh = fresh_record(c, i);
        if (idn < 3 || memcmp(id, "JOB", 3) != 0) {
            a->outcome = OUT_KIND; /* step 4 */
        } else if (fresh) {
            known(c, i, fresh->record, fresh->record_len, 1);
        } else if (c->found[i]) {
            const char *v = StringPtrLen(c->found[i], &len);
            known(c, i, v, len, 0);
        } else if (new_row(c, i, id, idn) || a->row_exists) {
            row_taken(c, i, id, idn);
        } else {
            admit_new(c, i, id, idn);
        }
    }

    if (c->records > 0) {
        const int t = c->target;
        /* A slot whose every record is dead is emptied before it takes new ones. */
        if (c->slots.has[t] && c->slots.latest[t] <= (double)c->now) {
            c->unlink_target = 1;
            c->slots.has[t] = 0;
        }
        double previous = c->slots.has[t] ? c->slots.latest[t] : 0;
        c->header = (double)c->expiry > previous ? (double)c->expiry : previous;
    }
    /* The slot after the live ones: unlinked once all its records are dead. */
    const int s = c->after;
    c->unlink_after = s != c->target && c->slots.has[s] && c->slots.latest[s] <= (double)c->now;
    return 1;
}
