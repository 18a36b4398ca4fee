/*
 * EMQ.ADMIT (docs/wire.md "admit") in three files:
 *   admit.c        the command: key positions, the call's shape, layout and fence
 *   admit-plan.c   steps 4-6: every read and every answer, decided before any write
 *   admit-write.c  steps 7-8: the pause check, the writes, the reply
 */
#ifndef EMQ_ADMIT_H
#define EMQ_ADMIT_H

#include "api.h"
#include "records.h"

/* The function family's bound (emq_admit), so both families refuse alike. */
#define TTL_MAX 999999999999999LL /* 15 digits */

/* EMQ.ADMIT <numkeys> ...: admits; answers key-position requests. */
int admit_cmd(Ctx *ctx, Str **argv, int argc);

/* A row's payload against an admission's: the same, another (or none), or not a hash. */
enum { VERDICT_SAME = 0, VERDICT_OTHER = -1, VERDICT_WRONGTYPE = -2 };

/* One admission of a call. */
enum { OUT_STATUS, OUT_KIND, OUT_WRONGTYPE };
typedef struct Admission {
    Str *row, *payload;
    const char *idp, *dp, *pp, *h; /* id (the row key's tail), digest, payload, field */
    size_t idn, pn;
    char kind;              /* 'm' minted, 'c' the caller's own id */
    int row_exists;         /* at the start of the call */
    int outcome;            /* OUT_* */
    long long status;       /* for OUT_STATUS */
    const char *rid;        /* the reply's id */
    size_t rid_len;
    int writes_row;         /* HSET of the row, a member of the call's ZADD */
    char *record;           /* the record this call writes for the key (pool memory) */
    size_t record_len;
} Admission;

/* A call. */
typedef struct AdmitCall {
    Ctx *ctx;
    int n;
    Admission *a;
    Str **fields;           /* per admission: its field, h's first 22 characters (owned) */
    Str **found;            /* per admission: its live record (owned) */
    int *where;             /* ... and that record's slot */
    Str *pending;
    Slots slots;
    const char *q;
    size_t qlen;
    long long ttl, window, now, expiry;
    char expiry_text[24];   /* ":<expiry>", the tail of every record this call makes */
    size_t expiry_len;
    int target, after;      /* the slot new records go to; the one after the live ones */
    int pending_ok;         /* -1 not read yet, else the pending key is absent or a zset */
    int rows, records;      /* what the call writes */
    int unlink_target, unlink_after;
    double header;          /* the target slot's `~` after the write */
    int touch;              /* admission (index + 1) whose found record is touched */
} AdmitCall;

/* admit-plan.c: steps 5-6 for every admission; 0 when a slot is not a hash (every reply is
 * then WRONGTYPE and nothing is written, as the library does). */
int admit_plan(AdmitCall *c);
/* admit-write.c: steps 7-8 and the reply; frees what the call owns. */
int admit_finish(AdmitCall *c, int planned);

#endif
