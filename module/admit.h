/*
 * EMQ.ADMIT (docs/wire.md "admit"), both forms, in five files:
 *   admit.c        the command: key positions, the v3 call's shape, layout and fence
 *   admit-reads.c  the reads both forms share: slot keys, a recorded row, a v2 record
 *   admit-plan.c   v3 steps 4-6: every read and every answer, decided before any write
 *   admit-write.c  v3 steps 7-8: the pause check, the writes, the reply
 *   admit-v2.c     the previous form (3 keys), kept for hosts mid-upgrade
 */
#ifndef EMQ_ADMIT_H
#define EMQ_ADMIT_H

#include "api.h"
#include "records.h"

/* The function family's bounds and texts (emq_admit), so both families refuse alike. */
#define TTL_MAX 999999999999999LL /* 15 digits: far below SET PX's limit, so SET cannot fail */
extern const char TTL_SHAPE[];

/* EMQ.ADMIT <numkeys> ...: dispatches on the form; answers key-position requests. */
int admit_cmd(Ctx *ctx, Str **argv, int argc);
/* EMQ.ADMIT 3 <row> <pending> <dedupe> <id> <payload> <ttl-ms> -> [status, id]. */
int admit_v2(Ctx *ctx, Str **argv, int argc);

/* The slot keys emq:{q}:dedupe:0..3 (the caller frees them). */
void slot_keys(Ctx *ctx, Slots *s, const char *q, size_t qlen);

enum { VERDICT_SAME = 0, VERDICT_OTHER = -1, VERDICT_WRONGTYPE = -2 };
/* A recorded id's row emq:{q}:job:<id> against `payload`: SAME when it holds it or is gone,
 * OTHER when it holds another payload or none, WRONGTYPE when it is not a hash. */
int recorded_row(Ctx *ctx, const char *q, size_t qlen, const char *id, size_t idlen,
                 Str *payload);

/* The v2 form's state. */
typedef struct Admit2 {
    Slots slots;
    Str *dedupe, *field, *found, *legacy;
    int where;
} Admit2;

/* One admission of a v3 call. */
enum { OUT_STATUS, OUT_KIND, OUT_WRONGTYPE };
enum { TOUCH_NONE, TOUCH_V3, TOUCH_V2 };
typedef struct Admission {
    Str *row, *legacy, *id, *digest, *payload;
    const char *idp, *dp, *pp, *h; /* the bytes of id, digest, payload; h in legacy */
    size_t idn, pn;
    char kind;              /* 'm' minted, 'c' the caller's own id */
    Str *v2;                /* the v2 record's value, when no v3 record was found (owned) */
    int v2_wrong;           /* the v2 record is not a string */
    int row_exists;         /* at the start of the call */
    int outcome;            /* OUT_* */
    long long status;       /* for OUT_STATUS */
    const char *rid;        /* the reply's id */
    size_t rid_len;
    int writes_row;         /* HSET of the row, a member of the call's ZADD */
    char *record;           /* the record this call writes for the key (pool memory) */
    size_t record_len;
} Admission;

/* A v3 call. */
typedef struct Admit3 {
    Ctx *ctx;
    int n;
    Admission *a;
    Str **fields;           /* per admission: its field, h's first 22 characters (owned) */
    Str **found;            /* per admission: its live v3 record (owned) */
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
    int touch, touch_kind;  /* admission (index + 1) whose found record is touched */
} Admit3;

/* A string key's value, read as GET reads it (StringDMA would re-encode an embstr as raw, a
 * change OBJECT ENCODING shows); NULL when it is not a string. Only for v2 records: rare. */
Str *string_value(Ctx *ctx, Str *key);
/* SET <key> <value> KEEPTTL, the touch of a v2 record, encoded as a client's SET. */
Reply *set_keepttl(Ctx *ctx, Str *key, Str *value);

/* admit-plan.c: steps 5-6 for every admission; 0 when a slot is not a hash (every reply is
 * then WRONGTYPE and nothing is written, as the library does). */
int admit_plan(Admit3 *c);
/* admit-write.c: steps 7-8 and the reply; frees what the call owns. */
int admit_finish(Admit3 *c, int planned);

#endif
