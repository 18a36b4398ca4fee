/* Definitions and loading of the hand-declared module API (see api.h). */
#include "api.h"

#include <stdio.h>
#include <string.h>

static int (*GetApi)(const char *name, void *out);

void (*SetModuleAttribs)(Ctx *, const char *, int, int);
int (*IsModuleNameBusy)(const char *);
int (*CreateCommand)(Ctx *, const char *, CmdFunc, const char *, int, int, int);
void (*Log)(Ctx *, const char *, const char *, ...);
int (*GetContextFlags)(Ctx *);
int (*WrongArity)(Ctx *);
int (*ReplyWithError)(Ctx *, const char *);
int (*ReplyWithLongLong)(Ctx *, long long);
int (*ReplyWithSimpleString)(Ctx *, const char *);
int (*ReplyWithArray)(Ctx *, long);
int (*ReplyWithString)(Ctx *, Str *);
int (*ReplyWithStringBuffer)(Ctx *, const char *, size_t);
int (*ReplyWithNull)(Ctx *);
int (*ReplyWithCallReply)(Ctx *, Reply *);
Str *(*CreateString)(Ctx *, const char *, size_t);
void (*FreeString)(Ctx *, Str *);
const char *(*StringPtrLen)(const Str *, size_t *);
int (*StringAppendBuffer)(Ctx *, Str *, const char *, size_t);
int (*StringToLongLong)(const Str *, long long *);
Key *(*OpenKey)(Ctx *, Str *, int);
void (*CloseKey)(Key *);
int (*KeyType)(Key *);
long long (*GetExpire)(Key *);
char *(*StringDMA)(Key *, size_t *, int);
int (*StringSet)(Key *, Str *);
int (*DeleteKey)(Key *);
int (*HashGet)(Key *, int, ...);
void *(*Alloc)(size_t);
void (*Free)(void *);
void *(*PoolAlloc)(Ctx *, size_t);
long long (*Milliseconds)(void);
int (*IsKeysPositionRequest)(Ctx *);
void (*KeyAtPosWithFlags)(Ctx *, int, int);
int (*AvoidReplicaTraffic)(void);
Reply *(*Call)(Ctx *, const char *, const char *, ...);
int (*CallReplyType)(Reply *);
void (*FreeCallReply)(Reply *);
const char *(*CallReplyStringPtr)(Reply *, size_t *);
int (*Replicate)(Ctx *, const char *, const char *, ...);
int (*SubscribeToKeyspaceEvents)(Ctx *, int, NotifyFunc);
int (*SubscribeToServerEvent)(Ctx *, Event, EventFunc);
int (*EventLoopAddOneShot)(OneShotFunc, void *);
Ctx *(*GetDetachedThreadSafeContext)(Ctx *);
TimerId (*CreateTimer)(Ctx *, long long, TimerFunc, void *);
void (*SetModuleOptions)(Ctx *, int);
int (*GetModuleOptionsAll)(void);
Filter *(*RegisterCommandFilter)(Ctx *, FilterFunc, int);
int (*CommandFilterArgsCount)(FilterCtx *);
Str *(*CommandFilterArgGet)(FilterCtx *, int);
int (*CommandFilterArgReplace)(FilterCtx *, int, Str *);
int (*CommandFilterArgInsert)(FilterCtx *, int, Str *);
int (*CommandFilterArgDelete)(FilterCtx *, int);

/* Every API is published as ValkeyModule_* and RedisModule_*; take either. */
static int api(const char *name, void *out) {
    char full[64];
    snprintf(full, sizeof full, "ValkeyModule_%s", name);
    if (GetApi(full, out) == OK) return 1;
    snprintf(full, sizeof full, "RedisModule_%s", name);
    return GetApi(full, out) == OK;
}

#define API(fn) api(#fn, (void *)&fn)

int api_init_attribs(Ctx *ctx) {
    /* The first word of the load ctx is GetApi (what the official header's Init does);
     * memcpy because ISO C has no cast from an object pointer to a function pointer. */
    memcpy(&GetApi, (void *)ctx, sizeof GetApi);
    if (!API(SetModuleAttribs)) return 0;
    if (!API(IsModuleNameBusy)) IsModuleNameBusy = NULL;
    return 1;
}

int api_init(void) {
    return API(CreateCommand) && API(Log) && API(GetContextFlags) && API(WrongArity) &&
           API(ReplyWithError) && API(ReplyWithLongLong) && API(ReplyWithSimpleString) &&
           API(ReplyWithArray) && API(ReplyWithString) && API(ReplyWithStringBuffer) &&
           API(ReplyWithNull) && API(ReplyWithCallReply) && API(CreateString) &&
           API(FreeString) && API(StringPtrLen) && API(StringAppendBuffer) &&
           API(StringToLongLong) && API(OpenKey) && API(CloseKey) && API(KeyType) &&
           API(GetExpire) && API(StringDMA) && API(StringSet) && API(DeleteKey) && API(HashGet) &&
           API(AvoidReplicaTraffic) && API(Call) && API(CallReplyType) && API(FreeCallReply) &&
           API(CallReplyStringPtr) && API(CreateTimer) &&
           API(Replicate) && API(SubscribeToKeyspaceEvents) && API(SubscribeToServerEvent) &&
           API(EventLoopAddOneShot) && API(GetDetachedThreadSafeContext) &&
           API(SetModuleOptions) && API(GetModuleOptionsAll) && API(RegisterCommandFilter) &&
           API(CommandFilterArgsCount) && API(CommandFilterArgGet) &&
           API(CommandFilterArgReplace) && API(CommandFilterArgInsert) &&
           API(CommandFilterArgDelete) && API(Alloc) && API(Free) && API(PoolAlloc) &&
           API(Milliseconds) && API(IsKeysPositionRequest) && API(KeyAtPosWithFlags);
}

int bytes_eq(const char *a, size_t alen, const char *b, size_t blen) {
    return alen == blen && memcmp(a, b, alen) == 0;
}

/* ASCII case-insensitive match against a lower-case word (strncasecmp is not C11). */
int word_eq(const char *s, size_t n, const char *lower) {
    size_t i = 0;
    for (; i < n && lower[i]; i++)
        if ((s[i] >= 'A' && s[i] <= 'Z' ? s[i] + ('a' - 'A') : s[i]) != lower[i]) return 0;
    return i == n && lower[i] == '\0';
}
