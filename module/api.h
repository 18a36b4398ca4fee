/*
 * The part of the Valkey module API that emq uses, declared by hand: no module header ships
 * with Debian's valkey packages or on npm. Signatures and values follow valkeymodule.h of
 * Valkey 8.0.1 (bit 5 of the module options from 9.x). A wrong signature or Call() format
 * string crashes the server, not the build: change them only against the upstream header.
 */
#ifndef EMQ_API_H
#define EMQ_API_H

#include <stddef.h>
#include <stdint.h>

enum { OK = 0, ERR = 1 };
enum { KEY_READ = 1 << 0, KEY_WRITE = 1 << 1, KEY_NOTOUCH = 1 << 16, KEY_NOEFFECTS = 1 << 20 };
enum { TYPE_EMPTY = 0, TYPE_STRING = 1, TYPE_HASH = 3, TYPE_ZSET = 5 };
enum { REPLY_STRING = 0, REPLY_ERROR = 1, REPLY_INTEGER = 2, REPLY_ARRAY = 3 };
enum { CTX_MULTI = 1 << 1, CTX_PRIMARY = 1 << 2, CTX_CLUSTER = 1 << 5 };
enum { HASH_CFIELDS = 1 << 2 };
enum { NO_EXPIRE = -1 };
/* Key-spec flags of KeyAtPosWithFlags (VALKEYMODULE_CMD_KEY_*): how ACL key permissions see a
 * key (ACCESS needs read, UPDATE/INSERT/DELETE need write). */
enum {
    KEYSPEC_RO = 1 << 0,
    KEYSPEC_RW = 1 << 1,
    KEYSPEC_ACCESS = 1 << 4,
    KEYSPEC_UPDATE = 1 << 5,
    KEYSPEC_INSERT = 1 << 6,
    KEYSPEC_DELETE = 1 << 7
};
/* Valkey 9: CLUSTER MIGRATESLOTS runs only when every loaded module declares this. */
enum { OPTION_HANDLE_ATOMIC_SLOT_MIGRATION = 1 << 5 };
/* Every keyspace event class a module can get: generic, string, list, set, hash, zset,
 * expired, evicted, stream, module. */
enum { NOTIFY_ALL = 0x27fc };
enum { EVENT_ROLE_CHANGED = 0, EVENT_FLUSHDB = 2, EVENT_LOADING = 3 };
enum { ROLE_NOW_PRIMARY = 0 };
/* RegisterCommandFilter: not for the commands this module runs through Call(). */
enum { FILTER_NOSELF = 1 << 0 };

typedef struct Ctx Ctx;
typedef struct Str Str;
typedef struct Key Key;
typedef struct Reply Reply;
typedef struct FilterCtx FilterCtx;
typedef struct Filter Filter;
typedef struct Event { uint64_t id, dataver; } Event;
typedef int (*CmdFunc)(Ctx *ctx, Str **argv, int argc);
typedef int (*NotifyFunc)(Ctx *ctx, int type, const char *event, Str *key);
typedef void (*EventFunc)(Ctx *ctx, Event e, uint64_t subevent, void *data);
typedef void (*OneShotFunc)(void *data);
typedef void (*FilterFunc)(FilterCtx *filter);
typedef void (*TimerFunc)(Ctx *ctx, void *data);
typedef uint64_t TimerId;

extern void (*SetModuleAttribs)(Ctx *ctx, const char *name, int ver, int apiver);
extern int (*IsModuleNameBusy)(const char *name);
extern int (*CreateCommand)(Ctx *ctx, const char *name, CmdFunc fn, const char *flags,
                            int firstkey, int lastkey, int keystep);
extern void (*Log)(Ctx *ctx, const char *level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
extern int (*GetContextFlags)(Ctx *ctx);
extern int (*WrongArity)(Ctx *ctx);
extern int (*ReplyWithError)(Ctx *ctx, const char *err);
extern int (*ReplyWithLongLong)(Ctx *ctx, long long ll);
extern int (*ReplyWithSimpleString)(Ctx *ctx, const char *msg);
extern int (*ReplyWithArray)(Ctx *ctx, long len);
extern int (*ReplyWithString)(Ctx *ctx, Str *str);
extern int (*ReplyWithStringBuffer)(Ctx *ctx, const char *buf, size_t len);
extern int (*ReplyWithNull)(Ctx *ctx);
extern int (*ReplyWithCallReply)(Ctx *ctx, Reply *reply);
extern Str *(*CreateString)(Ctx *ctx, const char *ptr, size_t len);
extern void (*FreeString)(Ctx *ctx, Str *str);
extern const char *(*StringPtrLen)(const Str *str, size_t *len);
extern int (*StringAppendBuffer)(Ctx *ctx, Str *str, const char *buf, size_t len);
extern int (*StringToLongLong)(const Str *str, long long *ll);
extern Key *(*OpenKey)(Ctx *ctx, Str *name, int mode);
extern void (*CloseKey)(Key *key);
extern int (*KeyType)(Key *key);
extern long long (*GetExpire)(Key *key);
extern char *(*StringDMA)(Key *key, size_t *len, int mode);
extern int (*StringSet)(Key *key, Str *str);
extern int (*DeleteKey)(Key *key);
extern int (*HashGet)(Key *key, int flags, ...);
extern void *(*Alloc)(size_t bytes);
extern void (*Free)(void *ptr);
/* Freed by the server when the command returns. */
extern void *(*PoolAlloc)(Ctx *ctx, size_t bytes);
/* mstime(): the real clock, in ms (the library's TIME). */
extern long long (*Milliseconds)(void);
extern int (*IsKeysPositionRequest)(Ctx *ctx);
extern void (*KeyAtPosWithFlags)(Ctx *ctx, int pos, int flags);
extern int (*AvoidReplicaTraffic)(void);
extern Reply *(*Call)(Ctx *ctx, const char *cmd, const char *fmt, ...);
extern int (*CallReplyType)(Reply *reply);
extern void (*FreeCallReply)(Reply *reply);
extern const char *(*CallReplyStringPtr)(Reply *reply, size_t *len);
extern int (*Replicate)(Ctx *ctx, const char *cmd, const char *fmt, ...);
extern int (*SubscribeToKeyspaceEvents)(Ctx *ctx, int types, NotifyFunc cb);
extern int (*SubscribeToServerEvent)(Ctx *ctx, Event event, EventFunc cb);
extern int (*EventLoopAddOneShot)(OneShotFunc fn, void *data);
extern Ctx *(*GetDetachedThreadSafeContext)(Ctx *ctx);
extern TimerId (*CreateTimer)(Ctx *ctx, long long period_ms, TimerFunc fn, void *data);
extern void (*SetModuleOptions)(Ctx *ctx, int options);
extern int (*GetModuleOptionsAll)(void);
extern Filter *(*RegisterCommandFilter)(Ctx *ctx, FilterFunc cb, int flags);
extern int (*CommandFilterArgsCount)(FilterCtx *fctx);
extern Str *(*CommandFilterArgGet)(FilterCtx *fctx, int pos);
extern int (*CommandFilterArgReplace)(FilterCtx *fctx, int pos, Str *arg);
extern int (*CommandFilterArgInsert)(FilterCtx *fctx, int pos, Str *arg);
extern int (*CommandFilterArgDelete)(FilterCtx *fctx, int pos);

/* Fetches every function above from the load ctx; 0 if one is missing. SetModuleAttribs
 * is fetched and called by the caller first, as the server requires. */
int api_init_attribs(Ctx *ctx);
int api_init(void);

/* Small byte helpers shared by the commands. */
int bytes_eq(const char *a, size_t alen, const char *b, size_t blen);
int word_eq(const char *s, size_t n, const char *lower);

#endif
