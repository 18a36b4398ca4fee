/*
 * EMQ.ENQUEUE (docs/wire.md, "The calls", the seeds' call) and the write helpers of the admission
 * calls. Every check runs before the first write, in the order of docs/wire.md, "admit", so a
 * refusal leaves the dataset exactly as it was. Writes go through Call() with "!E": each is
 * replicated as itself (replicas and the AOF need no module) and errors come back as replies.
 */
#include "jobs.h"

#include <string.h>

#include "fence.h"
#include "keys.h"

const char WRONGTYPE[] = "WRONGTYPE Operation against a key holding the wrong kind of value";
const char KIND[] = "EMQKIND job id must be JOB-namespaced";

const char *row_layout_ok(const Str *row, const Str *pending, const Str *id, size_t *qlen) {
    size_t idlen;
    const char *i = StringPtrLen(id, &idlen);
    const char *q = queue_of(pending, "}:pending", qlen);
    return q && key_is(row, q, *qlen, "}:job:", i, idlen) ? q : NULL;
}

int key_type(Ctx *ctx, Str *name) {
    Key *k = OpenKey(ctx, name, KEY_READ | KEY_NOTOUCH);
    int t = k ? KeyType(k) : TYPE_EMPTY;
    if (k) CloseKey(k);
    return t;
}

int call_ok(Ctx *ctx, Reply *r) {
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

/* CLIENT PAUSE WRITE or a failover in progress: a write now would race the handover. */
int paused(Ctx *ctx) {
    if (!AvoidReplicaTraffic()) return 0;
    ReplyWithError(ctx, "ERR EMQ write-paused");
    return 1;
}

/* The payload goes as a Str: binary-safe, NULs included. */
int write_row(Ctx *ctx, Str *row, Str *pending, Str *id, Str *payload) {
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
    if (!is_job_id(id)) return ReplyWithError(ctx, KIND);
    if (key_type(ctx, row) != TYPE_EMPTY) return ReplyWithLongLong(ctx, 0);
    int pt = key_type(ctx, pending);
    if (pt != TYPE_EMPTY && pt != TYPE_ZSET) return ReplyWithError(ctx, WRONGTYPE);
    if (paused(ctx)) return OK;
    if (!write_row(ctx, row, pending, id, payload)) return OK;
    return ReplyWithLongLong(ctx, 1);
}
