/*
 * The wire fence (docs/wire.md, "The fence"). {emq}:version must hold the identity the module was
 * loaded with, as a string without a TTL: a copy with a TTL is refused as missing, on every path,
 * because it will vanish on its own and the fence would then have passed writes it should refuse.
 */
#include "fence.h"

#include "fence-keep.h"

#include <stdio.h>
#include <string.h>

#define FENCE_KEY "{emq}:version"
#define WIRE_MAX 64

/* Printable, no spaces or quotes: it is echoed inside error texts and replicated with
 * Replicate's "c" format, which needs a NUL-terminated string. */
static char wire[WIRE_MAX + 1] = "1";
static size_t wire_len = 1;
static Str *fence_key; /* created without a ctx, so it outlives every call */

/* What this node holds at {emq}:version. `seen` is a printable excerpt for error texts. */
typedef struct Fence {
    enum { FENCE_VALUE, FENCE_MISSING, FENCE_VOLATILE, FENCE_NOT_STRING, FENCE_CHANGING } kind;
    int same;
    char seen[WIRE_MAX + 4];
} Fence;

/* Cluster mode only: the node's copy as last read where a read can be trusted (see below). */
static int cluster;
static Fence node_fence = {FENCE_CHANGING, 0, ""};
static Ctx *reader; /* detached context for reads outside any command */
static int reread_queued;

const char *fence_wire(void) { return wire; }

/* A node value is arbitrary bytes; keep the error text one printable line. */
static void printable(char *out, size_t cap, const char *in, size_t len) {
    size_t n = 0;
    for (; n < len && n + 4 < cap; n++) {
        unsigned char c = (unsigned char)in[n];
        out[n] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (n < len) out[n++] = '.', out[n++] = '.', out[n++] = '.';
    out[n] = '\0';
}

/* The node's copy through the key API: node-local, no slot ownership check. NOEFFECTS: a
 * read must not delete an expired key or fire events (it also runs outside any command).
 * Returns the open key when it holds a string without a TTL (the caller closes it). */
static Key *fence_open(Ctx *ctx, Fence *f) {
    Key *k = OpenKey(ctx, fence_key, KEY_READ | KEY_NOEFFECTS);
    f->same = 0;
    f->seen[0] = '\0';
    if (!k) {
        f->kind = FENCE_MISSING;
    } else if (KeyType(k) != TYPE_STRING) {
        f->kind = FENCE_NOT_STRING;
    } else if (GetExpire(k) != NO_EXPIRE) {
        f->kind = FENCE_VOLATILE;
    } else {
        f->kind = FENCE_VALUE;
        return k;
    }
    if (k) CloseKey(k);
    return NULL;
}

static void fence_value(Fence *f, const char *v, size_t len) {
    f->kind = FENCE_VALUE;
    f->same = bytes_eq(v, len, wire, wire_len);
    printable(f->seen, sizeof f->seen, v, len);
}

/* In cluster mode a read also feeds fence-keep.c, and while it is putting the copy back after
 * the server's unowned-slot cleanup, the copy is what it will put back (see there). */
static void fence_read(Ctx *ctx, Fence *f) {
    size_t len;
    const char *v;
    if (cluster && keep_pending(&v, &len)) {
        fence_value(f, v, len);
        return;
    }
    Key *k = fence_open(ctx, f);
    if (!k) {
        if (cluster) keep_remember(0, NULL, 0);
        return;
    }
    v = StringDMA(k, &len, KEY_READ);
    if (!v) v = "", len = 0;
    fence_value(f, v, len);
    if (cluster) keep_remember(1, v, len);
    CloseKey(k);
}

static void refresh(Ctx *ctx) { fence_read(ctx, &node_fence); }

/*
 * Why cluster mode keeps a copy of the fence instead of reading it in EMQ.ENQUEUE:
 * Valkey 8.0 resolves every key a command opens against the slot of the keys the command
 * declared (valkey-io/valkey#4398). From EMQ.ENQUEUE, OpenKey of {emq}:version searches the
 * job's slot and answers "missing" unless both hash alike, and neither Call() nor a script
 * run through Call() escapes that. So the copy is re-read where the key resolves to its own
 * slot: on load, in EMQ.WIRE, and from the event loop after any change to the key (a
 * keyspace event on it, a flush, a load). Between a change and that re-read the fence
 * answers "changing", so no enqueue passes on a stale value. A TTL is an event (expire)
 * too, and a copy with one is never cached as passing, so expiry cannot outrun the cache.
 * The server's own deletion of the copy (unowned-slot cleanup) is undone by fence-keep.c.
 */
static void reread(void *unused) {
    (void)unused;
    reread_queued = 0;
    fence_read(reader, &node_fence);
}

static void fence_changed(void) {
    node_fence.kind = FENCE_CHANGING;
    if (!reread_queued && EventLoopAddOneShot(reread, NULL) == OK) reread_queued = 1;
}

static int on_key_event(Ctx *ctx, int type, const char *event, Str *key) {
    size_t n;
    const char *k = StringPtrLen(key, &n);
    (void)type;
    if (!bytes_eq(k, n, FENCE_KEY, sizeof FENCE_KEY - 1)) return OK;
    /* The server's own cleanup of an unowned slot: the copy is put back, the cache stays. */
    if (strcmp(event, "del") == 0 && keep_on_delete(ctx)) return OK;
    keep_cancel();
    fence_changed();
    return OK;
}

static void on_dataset_event(Ctx *ctx, Event e, uint64_t subevent, void *data) {
    (void)ctx, (void)e, (void)subevent, (void)data;
    /* Never read here, only later from the event loop: read when a load ended, 8.0.1 cached
     * "missing" for good on a replica after its sync, and a later failover of it stalled. */
    keep_cancel();
    fence_changed();
}

int fence_ok(Ctx *ctx) {
    char msg[320];
    Fence now, *f = &node_fence;
    if (!cluster) fence_read(ctx, f = &now);

    switch (f->kind) {
    case FENCE_VALUE:
        if (f->same) return 1;
        snprintf(msg, sizeof msg,
                 "EMQWIRE wire identity mismatch: node has '%s', module expects '%s'",
                 f->seen, wire);
        break;
    case FENCE_MISSING:
        snprintf(msg, sizeof msg,
                 "EMQWIRE wire identity not installed on this node (" FENCE_KEY " missing), "
                 "module expects '%s'", wire);
        break;
    case FENCE_VOLATILE:
        snprintf(msg, sizeof msg,
                 "EMQWIRE wire identity not installed on this node (" FENCE_KEY " has a TTL, "
                 "which counts as missing; reinstall it), module expects '%s'", wire);
        break;
    case FENCE_NOT_STRING:
        snprintf(msg, sizeof msg,
                 "EMQWIRE wire identity unreadable on this node (" FENCE_KEY " is not a string), "
                 "module expects '%s'", wire);
        break;
    default:
        snprintf(msg, sizeof msg,
                 "EMQWIRE wire identity changing on this node (" FENCE_KEY " being re-read), "
                 "module expects '%s'", wire);
    }
    ReplyWithError(ctx, msg);
    return 0;
}

/* EXEC resolves keys against the slot of the transaction's other keys (the bug above):
 * inside MULTI the fence commands would read, or write, some other slot's table. */
static int refused_in_multi(Ctx *ctx, const char *name) {
    if (!(cluster && (GetContextFlags(ctx) & CTX_MULTI))) return 0;
    char msg[96];
    snprintf(msg, sizeof msg, "ERR %s cannot run inside MULTI in cluster mode", name);
    ReplyWithError(ctx, msg);
    return 1;
}

/* Node-local on purpose: no key positions are declared, so every primary of a cluster
 * answers for itself and holds its own copy whatever slot the key hashes to. */
int fence_read_cmd(Ctx *ctx, Str **argv, int argc) {
    if (argc == 2) {
        size_t n;
        const char *s = StringPtrLen(argv[1], &n);
        if (word_eq(s, n, "install"))
            return ReplyWithError(ctx, "ERR EMQ.WIRE INSTALL is retired: call EMQ.WIRE.INSTALL, "
                                       "a separate command so an ACL can grant reading alone");
    }
    if (argc != 1) return WrongArity(ctx);
    if (refused_in_multi(ctx, "EMQ.WIRE")) return OK;

    size_t held_len;
    const char *held;
    if (cluster && keep_pending(&held, &held_len)) { /* being put back, see fence-keep.c */
        ReplyWithArray(ctx, 2);
        ReplyWithStringBuffer(ctx, wire, wire_len);
        return ReplyWithStringBuffer(ctx, held, held_len);
    }

    Fence f;
    Key *k = fence_open(ctx, &f);
    if (f.kind == FENCE_NOT_STRING) {
        ReplyWithError(ctx, "WRONGTYPE " FENCE_KEY " does not hold a string");
    } else {
        ReplyWithArray(ctx, 2);
        ReplyWithStringBuffer(ctx, wire, wire_len);
        if (k) {
            size_t n;
            const char *v = StringDMA(k, &n, KEY_READ);
            ReplyWithStringBuffer(ctx, v ? v : "", v ? n : 0);
        } else {
            ReplyWithNull(ctx); /* missing, or with a TTL: both count as missing */
        }
    }
    if (k) CloseKey(k);
    /* Here the key resolves in its own slot: refresh the cluster-mode copy. */
    if (cluster) fence_read(ctx, &node_fence);
    return OK;
}

int fence_install_cmd(Ctx *ctx, Str **argv, int argc) {
    (void)argv;
    if (argc != 1) return WrongArity(ctx);
    if (refused_in_multi(ctx, "EMQ.WIRE.INSTALL")) return OK;

    /* Call() would refuse a key of a slot this node does not own (cluster mode); the key
     * API writes node-locally (and drops any TTL), and Replicate sends replicas and the
     * AOF a plain SET, which drops a TTL there too. */
    keep_cancel(); /* the operator's install wins over a pending put-back */
    Key *k = OpenKey(ctx, fence_key, KEY_WRITE);
    Str *v = CreateString(ctx, wire, wire_len);
    int rc = k ? StringSet(k, v) : ERR;
    FreeString(ctx, v); /* the key holds its own reference */
    if (k) CloseKey(k);
    if (rc != OK) return ReplyWithError(ctx, "ERR EMQ could not write " FENCE_KEY);
    Replicate(ctx, "SET", "cc", FENCE_KEY, wire);
    if (cluster) fence_read(ctx, &node_fence);
    return ReplyWithSimpleString(ctx, "OK");
}

static int parse_args(Ctx *ctx, Str **argv, int argc) {
    for (int i = 0; i < argc; i += 2) {
        size_t n, vn;
        const char *name = StringPtrLen(argv[i], &n);
        if (!word_eq(name, n, "wire") || i + 1 >= argc) {
            Log(ctx, "warning", "emq: unknown module argument (expected: wire <identity>)");
            return 0;
        }
        const char *v = StringPtrLen(argv[i + 1], &vn);
        int good = vn >= 1 && vn <= WIRE_MAX;
        for (size_t j = 0; good && j < vn; j++)
            good = v[j] > ' ' && v[j] < 0x7f && v[j] != '\'' && v[j] != '"';
        if (!good) {
            Log(ctx, "warning",
                "emq: wire identity must be 1-%d printable bytes, no spaces or quotes", WIRE_MAX);
            return 0;
        }
        memcpy(wire, v, vn);
        wire[vn] = '\0';
        wire_len = vn;
    }
    return 1;
}

int fence_setup(Ctx *ctx, Str **argv, int argc) {
    if (!parse_args(ctx, argv, argc)) return 0;
    fence_key = CreateString(NULL, FENCE_KEY, sizeof FENCE_KEY - 1);
    cluster = (GetContextFlags(ctx) & CTX_CLUSTER) != 0;
    if (!cluster) return 1;
    reader = GetDetachedThreadSafeContext(ctx);
    if (!reader || SubscribeToKeyspaceEvents(ctx, NOTIFY_ALL, on_key_event) != OK ||
        SubscribeToServerEvent(ctx, (Event){EVENT_FLUSHDB, 1}, on_dataset_event) != OK ||
        SubscribeToServerEvent(ctx, (Event){EVENT_LOADING, 1}, on_dataset_event) != OK ||
        !keep_setup(ctx, fence_key, refresh))
        return 0;
    fence_changed(); /* the first read runs once the event loop does, after any load */
    return 1;
}
