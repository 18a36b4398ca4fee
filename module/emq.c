/*
 * emq: the reference native executor for EchoMQ enqueue (SPEC §4, §6).
 *
 *   EMQ.ENQUEUE 2 emq:{q}:job:<id> emq:{q}:pending <id> <payload>
 *   EMQ.WIRE [INSTALL]
 *
 * Loaded with `--loadmodule emq.so [wire <identity>]`; the identity defaults to "1".
 *
 * No module header ships with Debian's valkey packages, so the few API functions used
 * here are declared by hand with the signatures of valkeymodule.h and fetched through
 * GetApi. A wrong signature or Call() format string crashes the server, not the build:
 * change them only against the upstream header.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define EMQ_EXPORT __attribute__((visibility("default")))

enum { OK = 0, ERR = 1 };
enum { KEY_READ = 1 << 0, KEY_WRITE = 1 << 1, KEY_NOTOUCH = 1 << 16, KEY_NOEFFECTS = 1 << 20 };
enum { TYPE_EMPTY = 0, TYPE_STRING = 1, TYPE_ZSET = 5 };
enum { REPLY_ERROR = 1 };
enum { CTX_MULTI = 1 << 1, CTX_CLUSTER = 1 << 5 };
/* Every keyspace event class a module can get: generic, string, list, set, hash, zset,
 * expired, evicted, stream, module. */
enum { NOTIFY_ALL = 0x27fc };
enum { EVENT_FLUSHDB = 2, EVENT_LOADING = 3 };

typedef struct Ctx Ctx;
typedef struct Str Str;
typedef struct Key Key;
typedef struct Reply Reply;
typedef struct Event { uint64_t id, dataver; } Event;
typedef int (*CmdFunc)(Ctx *ctx, Str **argv, int argc);
typedef int (*NotifyFunc)(Ctx *ctx, int type, const char *event, Str *key);
typedef void (*EventFunc)(Ctx *ctx, Event e, uint64_t subevent, void *data);
typedef void (*OneShotFunc)(void *data);

static int (*GetApi)(const char *name, void *out);
static void (*SetModuleAttribs)(Ctx *ctx, const char *name, int ver, int apiver);
static int (*IsModuleNameBusy)(const char *name);
static int (*CreateCommand)(Ctx *ctx, const char *name, CmdFunc fn, const char *flags,
                            int firstkey, int lastkey, int keystep);
static void (*Log)(Ctx *ctx, const char *level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int (*GetContextFlags)(Ctx *ctx);
static int (*WrongArity)(Ctx *ctx);
static int (*ReplyWithError)(Ctx *ctx, const char *err);
static int (*ReplyWithLongLong)(Ctx *ctx, long long ll);
static int (*ReplyWithSimpleString)(Ctx *ctx, const char *msg);
static int (*ReplyWithArray)(Ctx *ctx, long len);
static int (*ReplyWithStringBuffer)(Ctx *ctx, const char *buf, size_t len);
static int (*ReplyWithNull)(Ctx *ctx);
static int (*ReplyWithCallReply)(Ctx *ctx, Reply *reply);
static Str *(*CreateString)(Ctx *ctx, const char *ptr, size_t len);
static void (*FreeString)(Ctx *ctx, Str *str);
static const char *(*StringPtrLen)(const Str *str, size_t *len);
static Key *(*OpenKey)(Ctx *ctx, Str *name, int mode);
static void (*CloseKey)(Key *key);
static int (*KeyType)(Key *key);
static char *(*StringDMA)(Key *key, size_t *len, int mode);
static int (*StringSet)(Key *key, Str *str);
static int (*AvoidReplicaTraffic)(void);
static Reply *(*Call)(Ctx *ctx, const char *cmd, const char *fmt, ...);
static int (*CallReplyType)(Reply *reply);
static void (*FreeCallReply)(Reply *reply);
static int (*Replicate)(Ctx *ctx, const char *cmd, const char *fmt, ...);
static int (*SubscribeToKeyspaceEvents)(Ctx *ctx, int types, NotifyFunc cb);
static int (*SubscribeToServerEvent)(Ctx *ctx, Event event, EventFunc cb);
static int (*EventLoopAddOneShot)(OneShotFunc fn, void *data);
static Ctx *(*GetDetachedThreadSafeContext)(Ctx *ctx);

#define FENCE_KEY "{emq}:version"
#define WIRE_MAX 64

/* Printable, no spaces or quotes: it is echoed inside error texts and replicated with
 * Replicate's "c" format, which needs a NUL-terminated string. */
static char wire[WIRE_MAX + 1] = "1";
static size_t wire_len = 1;
static Str *fence_key; /* created without a ctx, so it outlives every call */

/* What this node holds at {emq}:version. `seen` is a printable excerpt for error texts. */
typedef struct Fence {
    enum { FENCE_VALUE, FENCE_MISSING, FENCE_NOT_STRING, FENCE_CHANGING } kind;
    int same;
    char seen[WIRE_MAX + 4];
} Fence;

/* Cluster mode only: the node's copy as last read where a read can be trusted (see below). */
static int cluster;
static Fence node_fence = {FENCE_CHANGING, 0, ""};
static Ctx *reader; /* detached context for reads outside any command */
static int reread_queued;

static int bytes_eq(const char *a, size_t alen, const char *b, size_t blen) {
    return alen == blen && memcmp(a, b, alen) == 0;
}

/* ASCII case-insensitive match against a lower-case word (strncasecmp is not C11). */
static int word_eq(const char *s, size_t n, const char *lower) {
    size_t i = 0;
    for (; i < n && lower[i]; i++)
        if ((s[i] >= 'A' && s[i] <= 'Z' ? s[i] + ('a' - 'A') : s[i]) != lower[i]) return 0;
    return i == n && lower[i] == '\0';
}

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

/* KEYS[2] = emq:{q}:pending and KEYS[1] = emq:{q}:job:<ARGV[1]>, the same q. */
static int layout_ok(const Str *job, const Str *pending, const Str *id) {
    static const char head[] = "emq:{", ptail[] = "}:pending", jtail[] = "}:job:";
    const size_t hn = sizeof head - 1, pn = sizeof ptail - 1, jn = sizeof jtail - 1;
    size_t plen, jlen, idlen;
    const char *p = StringPtrLen(pending, &plen);
    const char *j = StringPtrLen(job, &jlen);
    const char *i = StringPtrLen(id, &idlen);

    if (plen <= hn + pn || memcmp(p, head, hn) != 0 || memcmp(p + plen - pn, ptail, pn) != 0)
        return 0;
    const char *q = p + hn;
    size_t qlen = plen - hn - pn;
    if (memchr(q, '{', qlen) || memchr(q, '}', qlen)) return 0;

    if (jlen != hn + qlen + jn + idlen) return 0;
    return memcmp(j, head, hn) == 0 && memcmp(j + hn, q, qlen) == 0 &&
           memcmp(j + hn + qlen, jtail, jn) == 0 && memcmp(j + hn + qlen + jn, i, idlen) == 0;
}

/* Missing key counts as EMPTY; NOTOUCH keeps LRU/LFU as the script's EXISTS does. */
static int key_type(Ctx *ctx, Str *name) {
    Key *k = OpenKey(ctx, name, KEY_READ | KEY_NOTOUCH);
    int t = k ? KeyType(k) : TYPE_EMPTY;
    if (k) CloseKey(k);
    return t;
}

/* The node's copy through the key API: node-local, no slot ownership check. NOEFFECTS: a
 * read must not delete an expired key or fire events (it also runs outside any command). */
static void fence_read(Ctx *ctx, Fence *f) {
    Key *k = OpenKey(ctx, fence_key, KEY_READ | KEY_NOEFFECTS);
    f->same = 0;
    f->seen[0] = '\0';
    f->kind = !k ? FENCE_MISSING : KeyType(k) == TYPE_STRING ? FENCE_VALUE : FENCE_NOT_STRING;
    if (f->kind == FENCE_VALUE) {
        size_t len;
        const char *v = StringDMA(k, &len, KEY_READ);
        if (!v) v = "", len = 0;
        f->same = bytes_eq(v, len, wire, wire_len);
        printable(f->seen, sizeof f->seen, v, len);
    }
    if (k) CloseKey(k);
}

/*
 * Why cluster mode keeps a copy of the fence instead of reading it in EMQ.ENQUEUE:
 * Valkey 8.0 resolves every key a command opens against the slot of the keys the command
 * declared (valkey-io/valkey#4398). From EMQ.ENQUEUE, OpenKey of {emq}:version searches the
 * job's slot and answers "missing" unless both hash alike, and neither Call() nor a script
 * run through Call() escapes that. So the copy is re-read where the key resolves to its own
 * slot: on load, in EMQ.WIRE, and from the event loop after any change to the key (a
 * keyspace event on it, a flush, a load). Between a change and that re-read the fence
 * answers "changing", so no enqueue passes on a stale value. Standalone reads every time.
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
    (void)ctx, (void)type, (void)event;
    if (bytes_eq(k, n, FENCE_KEY, sizeof FENCE_KEY - 1)) fence_changed();
    return OK;
}

static void on_dataset_event(Ctx *ctx, Event e, uint64_t subevent, void *data) {
    (void)ctx, (void)e, (void)subevent, (void)data;
    fence_changed();
}

/* Step 3. Replies EMQWIRE and returns 0 unless this node holds the module's identity. */
static int fence_ok(Ctx *ctx) {
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

/* EMQ.ENQUEUE 2 <jobkey> <pendingkey> <id> <payload>. Every check runs before the first
 * write, so a refusal leaves the dataset as it was. */
static int enqueue(Ctx *ctx, Str **argv, int argc) {
    size_t n;
    const char *s;

    if (argc != 6) return WrongArity(ctx);
    s = StringPtrLen(argv[1], &n);
    if (!bytes_eq(s, n, "2", 1)) return WrongArity(ctx);

    if (!layout_ok(argv[2], argv[3], argv[4]))
        return ReplyWithError(ctx, "EMQLAYOUT keys must be emq:{q}:job:<id> and emq:{q}:pending");

    if (!fence_ok(ctx)) return OK;

    s = StringPtrLen(argv[4], &n);
    if (n < 3 || memcmp(s, "JOB", 3) != 0)
        return ReplyWithError(ctx, "EMQKIND job id must be JOB-namespaced");

    if (key_type(ctx, argv[2]) != TYPE_EMPTY) return ReplyWithLongLong(ctx, 0);

    int pending = key_type(ctx, argv[3]);
    if (pending != TYPE_EMPTY && pending != TYPE_ZSET)
        return ReplyWithError(ctx,
                              "WRONGTYPE Operation against a key holding the wrong kind of value");

    /* CLIENT PAUSE WRITE or a failover in progress: a write now would race the handover. */
    if (AvoidReplicaTraffic()) return ReplyWithError(ctx, "ERR EMQ write-paused");

    /* "!" replicates each call as itself (replicas and AOF need no module), "E" returns
     * errors as replies. The payload goes as a Str: binary-safe, NULs included. */
    if (!call_ok(ctx, Call(ctx, "HSET", "!Escccccs", argv[2], "state", "pending", "attempts", "0",
                           "payload", argv[5])))
        return OK;
    if (!call_ok(ctx, Call(ctx, "ZADD", "!Escs", argv[3], "0", argv[4]))) return OK;
    return ReplyWithLongLong(ctx, 1);
}

/* EMQ.WIRE -> [module identity, this node's value or nil]; EMQ.WIRE INSTALL writes this
 * node's copy. Node-local on purpose: no key positions are declared, so every primary of a
 * cluster answers for itself and holds its own copy whatever slot the key hashes to. */
static int wire_cmd(Ctx *ctx, Str **argv, int argc) {
    size_t n;
    const char *s;

    /* EXEC resolves keys against the slot of the transaction's other keys (the bug above):
     * inside MULTI this would read, or write, {emq}:version in some other slot's table. */
    if (cluster && (GetContextFlags(ctx) & CTX_MULTI))
        return ReplyWithError(ctx, "ERR EMQ.WIRE cannot run inside MULTI in cluster mode");

    if (argc == 1) {
        Key *k = OpenKey(ctx, fence_key, KEY_READ | KEY_NOEFFECTS);
        if (k && KeyType(k) != TYPE_STRING) {
            CloseKey(k);
            if (cluster) fence_read(ctx, &node_fence);
            return ReplyWithError(ctx, "WRONGTYPE " FENCE_KEY " does not hold a string");
        }
        ReplyWithArray(ctx, 2);
        ReplyWithStringBuffer(ctx, wire, wire_len);
        if (k) {
            const char *v = StringDMA(k, &n, KEY_READ);
            ReplyWithStringBuffer(ctx, v ? v : "", v ? n : 0);
            CloseKey(k);
        } else {
            ReplyWithNull(ctx);
        }
        if (cluster) fence_read(ctx, &node_fence);
        return OK;
    }

    if (argc != 2) return WrongArity(ctx);
    s = StringPtrLen(argv[1], &n);
    if (!word_eq(s, n, "install"))
        return ReplyWithError(ctx, "ERR unknown subcommand for 'emq.wire', try EMQ.WIRE [INSTALL]");

    /* Call() would refuse a key of a slot this node does not own (cluster mode); the key
     * API writes node-locally, and Replicate sends replicas and the AOF a plain SET. */
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

/* Every API is published as ValkeyModule_* and RedisModule_*; take either. */
static int api(const char *name, void *out) {
    char full[64];
    snprintf(full, sizeof full, "ValkeyModule_%s", name);
    if (GetApi(full, out) == OK) return 1;
    snprintf(full, sizeof full, "RedisModule_%s", name);
    return GetApi(full, out) == OK;
}

#define API(fn) api(#fn, (void *)&fn)

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

EMQ_EXPORT int ValkeyModule_OnLoad(Ctx *ctx, Str **argv, int argc);
EMQ_EXPORT int RedisModule_OnLoad(Ctx *ctx, Str **argv, int argc);

int ValkeyModule_OnLoad(Ctx *ctx, Str **argv, int argc) {
    /* The first word of the load ctx is GetApi (what the official header's Init does);
     * memcpy because ISO C has no cast from an object pointer to a function pointer. */
    memcpy(&GetApi, (void *)ctx, sizeof GetApi);

    if (!API(SetModuleAttribs)) return ERR;
    if (API(IsModuleNameBusy) && IsModuleNameBusy("emq")) return ERR;
    SetModuleAttribs(ctx, "emq", 1, 1);

    if (!(API(CreateCommand) && API(Log) && API(GetContextFlags) && API(WrongArity) &&
          API(ReplyWithError) && API(ReplyWithLongLong) && API(ReplyWithSimpleString) &&
          API(ReplyWithArray) && API(ReplyWithStringBuffer) && API(ReplyWithNull) &&
          API(ReplyWithCallReply) && API(CreateString) && API(FreeString) &&
          API(StringPtrLen) && API(OpenKey) && API(CloseKey) && API(KeyType) &&
          API(StringDMA) && API(StringSet) && API(AvoidReplicaTraffic) && API(Call) &&
          API(CallReplyType) && API(FreeCallReply) && API(Replicate) &&
          API(SubscribeToKeyspaceEvents) && API(SubscribeToServerEvent) &&
          API(EventLoopAddOneShot) && API(GetDetachedThreadSafeContext)))
        return ERR;

    if (!parse_args(ctx, argv, argc)) return ERR;
    fence_key = CreateString(NULL, FENCE_KEY, sizeof FENCE_KEY - 1);

    cluster = (GetContextFlags(ctx) & CTX_CLUSTER) != 0;
    if (cluster) {
        reader = GetDetachedThreadSafeContext(ctx);
        if (!reader || SubscribeToKeyspaceEvents(ctx, NOTIFY_ALL, on_key_event) != OK ||
            SubscribeToServerEvent(ctx, (Event){EVENT_FLUSHDB, 1}, on_dataset_event) != OK ||
            SubscribeToServerEvent(ctx, (Event){EVENT_LOADING, 1}, on_dataset_event) != OK)
            return ERR;
        fence_changed(); /* the first read runs once the event loop does, after any load */
    }

    /* Key positions 2..3 make the server answer MOVED / CROSSSLOT before the handler runs,
     * as for EVAL; a keynum key-spec alone is not used for routing (SPEC §10). */
    if (CreateCommand(ctx, "emq.enqueue", enqueue, "write deny-oom fast", 2, 3, 1) != OK)
        return ERR;
    /* "write" keeps INSTALL off replicas and behind CLIENT PAUSE WRITE like any SET. */
    if (CreateCommand(ctx, "emq.wire", wire_cmd, "write deny-oom", 0, 0, 0) != OK) return ERR;

    Log(ctx, "notice", "emq: wire identity '%s'%s", wire, cluster ? " (cluster mode)" : "");
    return OK;
}

int RedisModule_OnLoad(Ctx *ctx, Str **argv, int argc) {
    return ValkeyModule_OnLoad(ctx, argv, argc);
}
