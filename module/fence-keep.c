/*
 * Keeping a cluster primary's own {emq}:version (docs/wire.md, "The fence") across the server's
 * cleanup of slots it does not own. Written against Valkey 9.1.2 (and 8.0.1, where the cleanup
 * rarely runs).
 *
 * Every primary holds a copy of the fence whatever node serves slot 9051. Valkey deletes the
 * keys of slots a primary does not own in verifyClusterConfigWithData(): on 9.x after every
 * promotion (CLUSTER FAILOVER, TAKEOVER, a failover after a crash or a stop); on both lines
 * after loading at startup (not handled: see README) and when gossip takes a slot from a
 * primary that still has keys in it. That path (delKeysInSlot) deletes the key, propagates a DEL to replicas and the AOF, and
 * tells modules with a `del` keyspace event. Without this file the copy is gone and every
 * native write on that node is refused EMQWIRE until an operator reinstalls.
 *
 * Two measures:
 * - Promotion (9.x): on the role change to primary, announced before the slot check,
 *   the copy is taken out node-locally (no DEL propagated) and put back just after. The check
 *   then finds the slot empty and deletes nothing. This also matters beyond the fence: a delete
 *   inside CLUSTER FAILOVER TAKEOVER makes 9.1.2 propagate the TAKEOVER itself to the old
 *   primary, which runs it from its replication link and crashes (tested here).
 * - Any other cleanup (gossip): a `del` on a primary that does not own slot 9051
 *   can only be the server's, since a client's DEL, SET or EXPIRE of the key is redirected
 *   (MOVED) to the owner. The copy is put back from the value last read node-locally.
 * The put-back runs from a timer (so it is propagated as its own SET to replicas and the AOF),
 * never while writes to replicas are paused; until then the write check keeps its cached value
 * and EMQ.WIRE reports the pending one. Any other event on the key, a flush or a load cancels it:
 * an operator's DEL, SET or EXPIRE on the owner still changes or removes the fence.
 */
#include "fence-keep.h"

#include <string.h>

#define FENCE_SLOT 9051
#define KEEP_MAX 512 /* longer values are not kept: they are not an identity anyway */
#define RETRY_MS 10

static Str *fence_key;
static void (*refresh_cache)(Ctx *ctx);
static char held[KEEP_MAX];
static size_t held_len;
static int held_valid; /* held is what a trusted node-local read last found */
static char pending[KEEP_MAX];
static size_t pending_len;
static int pending_set, timer_armed;
static int parked; /* the pending value stays out until keep_unpark (slot 9051 migrating away) */
static const char *why; /* for the log line of the put-back */

void keep_remember(int valid, const char *v, size_t len) {
    held_valid = valid && len <= KEEP_MAX;
    if (!held_valid) return;
    memcpy(held, v, len);
    held_len = len;
}

void keep_cancel(void) { pending_set = parked = 0; }

int keep_parked(void) { return parked && pending_set; }

int keep_pending(const char **v, size_t *len) {
    if (!pending_set) return 0;
    *v = pending, *len = pending_len;
    return 1;
}

static void put_back(Ctx *ctx, void *unused);

static void arm(Ctx *ctx, long long ms) {
    if (timer_armed) return;
    CreateTimer(ctx, ms, put_back, NULL);
    timer_armed = 1;
}

static void hold(Ctx *ctx, const char *v, size_t len, const char *reason) {
    why = reason;
    memcpy(pending, v, len);
    pending_len = len;
    pending_set = 1;
    arm(ctx, 0);
}

/* Writes the pending value back if the key is still absent: node-locally, and as a plain SET to
 * replicas and the AOF when this node is a primary (a replica only undoes its own take-out). */
static void put_back(Ctx *ctx, void *unused) {
    (void)unused;
    timer_armed = 0;
    if (!pending_set || parked) return;
    if (AvoidReplicaTraffic()) { /* CLIENT PAUSE or a failover pause: no propagation now */
        arm(ctx, RETRY_MS);
        return;
    }
    pending_set = 0;
    Key *k = OpenKey(ctx, fence_key, KEY_WRITE);
    if (k && KeyType(k) == TYPE_EMPTY) {
        Str *v = CreateString(ctx, pending, pending_len);
        int rc = StringSet(k, v);
        FreeString(ctx, v);
        CloseKey(k);
        if (rc == OK && (GetContextFlags(ctx) & CTX_PRIMARY))
            Replicate(ctx, "SET", "sb", fence_key, pending, pending_len);
        Log(ctx, "notice", "emq: {emq}:version put back (%s)", why);
    } else if (k) {
        CloseKey(k);
    }
    refresh_cache(ctx);
}

/* Is the cluster serving (cluster_state:ok)? From CLUSTER INFO, which is only counters and
 * states: nothing in it depends on the calling client. */
static int cluster_ok(Ctx *ctx) {
    Reply *r = Call(ctx, "CLUSTER", "c", "INFO");
    size_t n = 0;
    const char *text = r && CallReplyType(r) == REPLY_STRING ? CallReplyStringPtr(r, &n) : NULL;
    static const char ok[] = "cluster_state:ok";
    int found = 0;
    for (size_t i = 0; text && !found && i + sizeof ok - 1 <= n; i++)
        found = memcmp(text + i, ok, sizeof ok - 1) == 0;
    if (r) FreeCallReply(r);
    return found;
}

/*
 * Does this node serve slot 9051? Call() refuses a key of a slot another node serves, as it
 * refuses one while the cluster is down, so a refused read of the key is "not here" only while
 * the cluster is ok. Nothing here builds a reply about nodes: CLUSTER SLOTS words each node's
 * address for the calling client, and a delete the server makes on its own (the cleanup of
 * unowned slots at startup, or after gossip) has no client behind it: Valkey 8.0.1 crashed
 * there (SIGSEGV in getClientPeerId, from a node restarted on an RDB holding the copy).
 */
static int owns_fence_slot(Ctx *ctx) {
    Reply *r = Call(ctx, "EXISTS", "s", fence_key);
    int refused = !r || CallReplyType(r) == REPLY_ERROR;
    if (r) FreeCallReply(r);
    /* unknown (the cluster is not ok): treat the event as an operator's, the safe side */
    return !refused || !cluster_ok(ctx);
}

int keep_on_delete(Ctx *ctx) {
    pending_set = parked = 0;
    if (!held_valid || !(GetContextFlags(ctx) & CTX_PRIMARY) || owns_fence_slot(ctx)) return 0;
    hold(ctx, held, held_len, "the server deleted it with the keys of unowned slots");
    return 1;
}

/* Takes the copy out of the keyspace node-locally; *v is what it held. 0 when there is no copy
 * to take (none, not a string, a TTL, too long). */
static int take_out(Ctx *ctx, const char *reason) {
    Key *k = OpenKey(ctx, fence_key, KEY_WRITE | KEY_NOEFFECTS);
    if (!k) return 0;
    size_t len = 0;
    const char *v = KeyType(k) == TYPE_STRING && GetExpire(k) == NO_EXPIRE
                        ? StringDMA(k, &len, KEY_READ)
                        : NULL;
    int taken = v && len <= KEEP_MAX;
    if (taken) {
        hold(ctx, v, len, reason); /* copies v */
        DeleteKey(k);
    }
    CloseKey(k);
    return taken;
}

int keep_parkable(Ctx *ctx) {
    Key *k = OpenKey(ctx, fence_key, KEY_READ | KEY_NOEFFECTS);
    if (!k) return 1;
    size_t len = 0;
    int ok = KeyType(k) == TYPE_STRING && GetExpire(k) == NO_EXPIRE;
    if (ok) ok = StringDMA(k, &len, KEY_READ) != NULL && len <= KEEP_MAX;
    CloseKey(k);
    return ok;
}

int keep_park(Ctx *ctx) {
    if (keep_parked()) return 1;
    parked = 1; /* before the hold, so that its timer finds the park and leaves the copy out */
    if (take_out(ctx, "parked while slot 9051 migrated away, put back after")) return 2;
    parked = 0;
    return 0;
}

void keep_unpark(Ctx *ctx) {
    if (!keep_parked()) return;
    parked = 0;
    arm(ctx, 0);
}

/* 9.1.2 fires this from the promotion, before verifyClusterConfigWithData() runs. */
static void on_role_change(Ctx *ctx, Event e, uint64_t subevent, void *data) {
    (void)e, (void)data;
    if (subevent != ROLE_NOW_PRIMARY) return;
    take_out(ctx, "taken out for the promotion's check of unowned slots");
}

int keep_setup(Ctx *ctx, Str *key, void (*refresh)(Ctx *ctx)) {
    fence_key = key;
    refresh_cache = refresh;
    /* Only servers whose promotion runs the check: 9.x, told apart (as in slot-migration.c) by
     * the module option 9.0 brought. 8.0.1 keeps the copy on promotion; taking it out there
     * only churned the stream during a failover. */
    if (!(GetModuleOptionsAll() & OPTION_HANDLE_ATOMIC_SLOT_MIGRATION)) return 1;
    return SubscribeToServerEvent(ctx, (Event){EVENT_ROLE_CHANGED, 1}, on_role_change) == OK;
}
