/*
 * Operation generators written in Lua (genlib.h): the one place where worker
 * threads run Lua.
 *
 * On the main thread, lb_gen_attach turns spec.generator into bytecode
 * (string.dump's format; a file is loaded and its main chunk dumped) and
 * spec.generator_args into a flat serialized copy, both held by a struct
 * gen_src that the job points to (job->opsrc_arg).  On each worker thread,
 * before the start barrier, the source's start hook creates a lua_State of
 * the worker's own, loads the code, rebuilds the arguments and calls
 * init(ctx); then every next() of the run loop is one protected call of
 * next(ctx), which appends operations through ctx.read/ctx.write straight
 * into the run loop's array (the worker is found through the state's
 * extra space: no table or upvalue per operation).
 *
 * Functions travel without their upvalues, so a generator function may use
 * globals (_ENV: the worker state's own) but no local of an enclosing
 * function: lb_gen_attach refuses those.  A generator file is run once per
 * worker, so its own locals are fine.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "engine.h"
#include "job.h"
#include "genlib.h"
#include "host.h"
#include "result.h"
#include "serial.h"

#define EMPTY_CALLS 1000         /* next() true without an op this often: refused */

enum { KIND_FUNC, KIND_TABLE, KIND_FILE };

/* What every worker of a job starts from; read-only once attached. */
struct gen_src {
    int kind;
    struct lb_blob init, next;      /* bytecode; KIND_FILE: next is the file's chunk */
    struct lb_blob args;            /* serialized generator_args; n = 0: none */
    char *file;                  /* KIND_FILE: its path, for messages */
    char *path, *cpath;          /* package.path / cpath of the main state */
};

/* One worker's generator. */
struct gen_worker {
    const struct gen_src *src;
    lua_State *L;                /* stack: 1 next, 2 ctx */
    unsigned clone;
    struct lb_op *ops;           /* the batch being filled */
    int n, max;
    uint64_t calls;
    uint64_t max_len;
    unsigned nfiles;
    uint64_t *size, *base;       /* per file: usable bytes, file_offset */
    bool writes;                 /* the job's files are open for writing */
    const struct lb_job *job;
};

/* ---- attaching: the main thread ---- */

static int dump_writer(lua_State *L, const void *p, size_t n, void *ud)
{
    (void)L;
    return lb_sbuf_add(ud, p, n);
}

/* Bytecode of the Lua function on top of the stack (left there). */
static struct lb_sbuf *dump_fn(lua_State *L, const char *field)
{
    struct lb_sbuf *b;

    if (lua_iscfunction(L, -1))
        lb_usage_error(L, "%s must be a Lua function, not a C function", field);
    b = lb_sbuf_new(L);
    lua_pushvalue(L, -2);
    if (lua_dump(L, dump_writer, b, 0))
        luaL_error(L, "lb.run: not enough memory");
    lua_pop(L, 1);
    return b;
}

/* Only _ENV may be an upvalue: others would not reach the workers. */
static void check_upvalues(lua_State *L, int fn, const char *field)
{
    const char *name;

    for (int i = 1; (name = lua_getupvalue(L, fn, i)) != NULL; i++) {
        lua_Debug ar;

        lua_pop(L, 1);
        if (strcmp(name, "_ENV") == 0)
            continue;
        lua_pushvalue(L, fn);
        lua_getinfo(L, ">S", &ar);
        lb_usage_error(L, "%s: the function at %s:%d uses '%s', a local variable from "
                       "outside it, which is not copied to the worker threads: keep the "
                       "generator self-contained and pass values in generator_args",
                       field, ar.short_src, ar.linedefined, name);
    }
}

/* Pushes the bytecode buffer of fn (at index fn) after checking it. */
static struct lb_sbuf *take_fn(lua_State *L, int fn, const char *field)
{
    struct lb_sbuf *b;

    if (!lua_isfunction(L, fn))
        lb_usage_error(L, "%s must be a function, not a %s", field, luaL_typename(L, fn));
    check_upvalues(L, fn, field);
    lua_pushvalue(L, fn);
    b = dump_fn(L, field);
    lua_remove(L, -2);
    return b;
}

/* luaL_loadfile of path, else of path next to the script being run. */
static int load_file(lua_State *L, const char *path)
{
    const char *slash = lb_host.script ? strrchr(lb_host.script, '/') : NULL;
    FILE *f = fopen(path, "r");
    int rc;

    if (f)
        fclose(f);
    if (f || path[0] == '/' || !slash)
        return luaL_loadfilex(L, path, "bt");
    lua_pushlstring(L, lb_host.script, (size_t)(slash - lb_host.script + 1));
    lua_pushstring(L, path);
    lua_concat(L, 2);
    f = fopen(lua_tostring(L, -1), "r");
    if (!f) {
        lua_pop(L, 1);
        return luaL_loadfilex(L, path, "bt");
    }
    fclose(f);
    rc = luaL_loadfilex(L, lua_tostring(L, -1), "bt");
    lua_remove(L, -2);
    return rc;
}

/* Pushes the next (and init) bytecode of generator value g. */
static int take_code(lua_State *L, int g, struct lb_sbuf **init, struct lb_sbuf **next)
{
    *init = *next = NULL;
    switch (lua_type(L, g)) {
    case LUA_TFUNCTION:
        *next = take_fn(L, g, "generator");
        return KIND_FUNC;
    case LUA_TSTRING:
        if (load_file(L, lua_tostring(L, g)) != LUA_OK)
            lb_usage_error(L, "generator: %s", lua_tostring(L, -1));
        *next = dump_fn(L, "generator");
        lua_remove(L, -2);
        return KIND_FILE;
    case LUA_TTABLE:
        lua_getfield(L, g, "next");
        *next = take_fn(L, lua_gettop(L), "generator.next");
        lua_remove(L, -2);
        if (lua_getfield(L, g, "init") == LUA_TNIL) {
            lua_pop(L, 1);
            return KIND_TABLE;
        }
        *init = take_fn(L, lua_gettop(L), "generator.init");
        lua_remove(L, -2);
        return KIND_TABLE;
    default:
        lb_usage_error(L, "generator must be a function, a file name or a table "
                       "{init = function, next = function}, not a %s", luaL_typename(L, g));
        return -1;
    }
}

static void get_field(lua_State *L, int spec, int sub, const char *k)
{
    if (sub && lua_getfield(L, sub, k) != LUA_TNIL)
        return;
    if (sub)
        lua_pop(L, 1);
    lua_getfield(L, spec, k);
}

static char *package_string(lua_State *L, const char *k)
{
    int top = lua_gettop(L);
    char *s = NULL;

    if (lua_getglobal(L, "package") == LUA_TTABLE && lua_getfield(L, -1, k) == LUA_TSTRING)
        s = strdup(lua_tostring(L, -1));
    lua_settop(L, top);
    return s;
}

static void src_free(struct gen_src *s)
{
    if (!s)
        return;
    free(s->init.p);
    free(s->next.p);
    free(s->args.p);
    free(s->file);
    free(s->path);
    free(s->cpath);
    free(s);
}

static const struct lb_opsrc_ops gen_ops;

void lb_gen_attach(lua_State *L, int spec, int sub, struct lb_job *job)
{
    int top = lua_gettop(L), g, kind;
    struct lb_sbuf *init, *next, *args;
    struct gen_src *s;

    spec = lua_absindex(L, spec);
    sub = sub ? lua_absindex(L, sub) : 0;
    get_field(L, spec, sub, "generator");
    g = lua_gettop(L);
    get_field(L, spec, sub, "generator_args");
    if (lua_isnil(L, g)) {             /* [global] args may serve other jobs */
        if (!lua_isnil(L, -1) && (!sub || lua_getfield(L, sub, "generator_args") != LUA_TNIL))
            lb_usage_error(L, "generator_args given without a generator");
        lua_settop(L, top);
        return;
    }
    args = lb_sbuf_new(L);
    if (!lua_isnil(L, -2)) {
        lua_pushvalue(L, -2);
        lb_serial_put(L, args, "generator_args");
        lua_pop(L, 1);
    }
    kind = take_code(L, g, &init, &next);
    s = calloc(1, sizeof(*s));
    if (!s)
        luaL_error(L, "lb.run: not enough memory");
    s->kind = kind;
    s->next = lb_sbuf_take(next);
    if (init)
        s->init = lb_sbuf_take(init);
    s->args = lb_sbuf_take(args);
    s->file = kind == KIND_FILE ? strdup(lua_tostring(L, g)) : NULL;
    s->path = package_string(L, "path");
    s->cpath = package_string(L, "cpath");
    lb_gen_detach(job);
    job->opsrc = &gen_ops;
    job->opsrc_arg = s;
    lua_settop(L, top);
}

void lb_gen_detach(struct lb_job *job)
{
    if (job->opsrc != &gen_ops)
        return;
    src_free(job->opsrc_arg);
    job->opsrc = NULL;
    job->opsrc_arg = NULL;
}

/* ---- ctx: what next(ctx) works with, on the worker thread ---- */

static inline struct gen_worker *self(lua_State *L)
{
    return *(struct gen_worker **)lua_getextraspace(L);
}

static int op_error(lua_State *L, struct gen_worker *g, const char *what, lua_Integer off,
                    lua_Integer len, lua_Integer fi)
{
    if (g->max == 0)
        return luaL_error(L, "ctx.%s: operations are added in next(ctx) only", what);
    if (g->n >= g->max)
        return luaL_error(L, "ctx.%s: the batch is full (%d operations, ctx.batch): "
                          "return and add more in the next call", what, g->max);
    if (fi < 1 || (lua_Unsigned)fi > g->nfiles)
        return luaL_error(L, "ctx.%s: file %I is not one of the job's %d files", what, fi,
                          (int)g->nfiles);
    if (len < 1 || (uint64_t)len > g->max_len)
        return luaL_error(L, "ctx.%s: length %I is not within 1..%I (ctx.max_len: what "
                          "the job's buffers hold; set bs to the largest length)",
                          what, len, (lua_Integer)g->max_len);
    return luaL_error(L, "ctx.%s: offset %I + length %I is outside file %I (%I bytes)", what,
                      off, len, fi, (lua_Integer)g->size[fi - 1]);
}

static int __attribute__((noinline, cold)) not_int(lua_State *L, int i, const char *what,
                                                    const char *name)
{
    return luaL_error(L, "ctx.%s: %s must be an integer, not %s", what, name,
                      lua_isnumber(L, i) ? "a fraction" : luaL_typename(L, i));
}

static inline lua_Integer int_arg(lua_State *L, int i, const char *what, const char *name)
{
    int ok;
    lua_Integer v = lua_tointegerx(L, i, &ok);

    if (__builtin_expect(!ok, 0))
        not_int(L, i, what, name);
    return v;
}

/* ctx.read/write/trim(offset, len [, file]): appends one op, returns the
 * room left in the batch. */
static inline int add_op(lua_State *L, uint8_t ddir, const char *what)
{
    struct gen_worker *g = self(L);
    lua_Integer off = int_arg(L, 1, what, "offset"), len = int_arg(L, 2, what, "length");
    lua_Integer fi = lua_gettop(L) < 3 || lua_isnil(L, 3) ? 1 : int_arg(L, 3, what, "file");
    struct lb_op *op;

    if (__builtin_expect(g->n >= g->max || (lua_Unsigned)(fi - 1) >= g->nfiles ||
                         len < 1 || (uint64_t)len > g->max_len || off < 0 ||
                         (uint64_t)off + (uint64_t)len > g->size[fi - 1], 0))
        return op_error(L, g, what, off, len, fi);
    op = &g->ops[g->n++];
    op->ddir = ddir;
    op->file = (uint32_t)(fi - 1);
    op->offset = g->base[fi - 1] + (uint64_t)off;
    op->len = (uint32_t)len;
    lua_pushinteger(L, g->max - g->n);
    return 1;
}

static int ctx_read(lua_State *L)
{
    return add_op(L, LB_READ, "read");
}

static int need_writes(lua_State *L, const char *what)
{
    struct gen_worker *g = self(L);

    return luaL_error(L, "ctx.%s: job '%s' opens its files read-only (rw=read): set rw to a "
                      "mode that writes (write, randwrite, rw, randrw)", what, g->job->name);
}

static int ctx_write(lua_State *L)
{
    if (__builtin_expect(!self(L)->writes, 0))
        return need_writes(L, "write");
    return add_op(L, LB_WRITE, "write");
}

static int ctx_trim(lua_State *L)
{
    if (!self(L)->writes)
        return need_writes(L, "trim");
    return add_op(L, LB_TRIM, "trim");
}

/* ctx.fsync([file]), ctx.fdatasync([file]) */
static int add_sync(lua_State *L, uint8_t ddir, const char *what)
{
    struct gen_worker *g = self(L);
    lua_Integer fi = lua_isnoneornil(L, 1) ? 1 : int_arg(L, 1, what, "file");
    struct lb_op *op;

    if (g->n >= g->max || (lua_Unsigned)(fi - 1) >= g->nfiles)
        return op_error(L, g, what, 0, 1, fi);
    op = &g->ops[g->n++];
    op->ddir = ddir;
    op->file = (uint32_t)(fi - 1);
    op->offset = 0;
    op->len = 0;
    lua_pushinteger(L, g->max - g->n);
    return 1;
}

static int ctx_fsync(lua_State *L)
{
    return add_sync(L, LB_SYNC_OP, "fsync");
}

static int ctx_fdatasync(lua_State *L)
{
    return add_sync(L, LB_DATASYNC_OP, "fdatasync");
}

static int ctx_file_size(lua_State *L)
{
    struct gen_worker *g = self(L);
    lua_Integer fi = luaL_optinteger(L, 1, 1);

    luaL_argcheck(L, fi >= 1 && (lua_Unsigned)fi <= g->nfiles, 1, "no such file");
    lua_pushinteger(L, (lua_Integer)g->size[fi - 1]);
    return 1;
}

/* The job's block size: the largest it issues in any direction. */
static lua_Integer job_bs(const struct lb_job *j)
{
    uint32_t bs = lb_job_bs_max(j, (1u << LB_DDIR_N) - 1);

    return bs ? bs : 4096;
}

static void push_ctx(lua_State *L, struct gen_worker *g, uint64_t seed)
{
    static const luaL_Reg fns[] = {
        {"read", ctx_read}, {"write", ctx_write}, {"trim", ctx_trim},
        {"fsync", ctx_fsync}, {"fdatasync", ctx_fdatasync},
        {"file_size", ctx_file_size}, {NULL, NULL},
    };

    lua_createtable(L, 0, 16);
    luaL_setfuncs(L, fns, 0);
    lb_set_int(L, "clone", g->clone);
    lb_set_int(L, "nfiles", g->nfiles);
    lb_set_int(L, "max_len", g->max_len);
    lb_set_int(L, "bs", job_bs(g->job));
    lb_set_int(L, "seed", seed);
    lb_set_int(L, "batch", 0);
    lb_set_int(L, "calls", 0);
    lua_pushstring(L, g->job->name ? g->job->name : "job");
    lua_setfield(L, -2, "job");
    lua_getglobal(L, "math");
    lua_getfield(L, -1, "randomseed");
    lua_pushinteger(L, (lua_Integer)seed);
    lua_call(L, 1, 0);
    lua_getfield(L, -1, "random");
    lua_setfield(L, -3, "rand");
    lua_pop(L, 1);
    if (g->src->args.n) {
        lb_serial_get(L, &g->src->args, "generator_args");
        lua_setfield(L, -2, "args");
    }
}

static void set_paths(lua_State *L, const struct gen_src *s)
{
    lua_getglobal(L, "package");
    if (s->path) {
        lua_pushstring(L, s->path);
        lua_setfield(L, -2, "path");
    }
    if (s->cpath) {
        lua_pushstring(L, s->cpath);
        lua_setfield(L, -2, "cpath");
    }
    lua_pop(L, 1);
}

static void load_blob(lua_State *L, const struct lb_blob *b)
{
    if (luaL_loadbufferx(L, b->p, b->n, "=generator", "b") != LUA_OK)
        lua_error(L);
}

/* Pushes init (or nil) and next; ctx is at index c. */
static void push_code(lua_State *L, const struct gen_src *s, int c)
{
    if (s->kind != KIND_FILE) {
        if (s->init.n)
            load_blob(L, &s->init);
        else
            lua_pushnil(L);
        load_blob(L, &s->next);
        return;
    }
    load_blob(L, &s->next);
    lua_getfield(L, c, "args");
    lua_call(L, 1, 1);
    if (lua_isfunction(L, -1)) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return;
    }
    if (!lua_istable(L, -1))
        luaL_error(L, "generator file %s returned a %s, not a function or a table "
                   "{init = function, next = function}", s->file, luaL_typename(L, -1));
    lua_getfield(L, -1, "init");
    lua_getfield(L, -2, "next");
    lua_remove(L, -3);
    if (!lua_isfunction(L, -1) || !(lua_isnil(L, -2) || lua_isfunction(L, -2)))
        luaL_error(L, "generator file %s: the table it returned needs next = function "
                   "(and init = function or nothing)", s->file);
}

/* Protected: the worker state's libraries, ctx, code, init(ctx).
 * Returns next, ctx. */
static int setup(lua_State *L)
{
    struct gen_worker *g = self(L);
    uint64_t seed = (uint64_t)lua_tointeger(L, 1);

    luaL_openlibs(L);
    set_paths(L, g->src);
    push_ctx(L, g, seed);                      /* 2 */
    push_code(L, g->src, 2);                   /* 3 init, 4 next */
    if (!lua_isnil(L, 3)) {
        lua_pushvalue(L, 3);
        lua_pushvalue(L, 2);
        lua_call(L, 1, 0);
    }
    lua_pushvalue(L, 2);
    return 2;
}

/* ---- the op source ---- */

static int lua_failed(lua_State *L, char *err, unsigned errlen)
{
    if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER)
        snprintf(err, errlen, "generator: %s", lua_tostring(L, -1));
    else
        snprintf(err, errlen, "generator: raised a %s value", luaL_typename(L, -1));
    lua_pop(L, 1);
    return -ECANCELED;
}

static int gen_open(void *arg, unsigned clone, void **state)
{
    struct gen_worker *g = calloc(1, sizeof(*g));

    *state = g;
    if (!g)
        return -ENOMEM;
    g->src = arg;
    g->clone = clone;
    return 0;
}

static int gen_files(struct gen_worker *g, const struct lb_opsrc_env *env)
{
    g->nfiles = env->nfiles;
    g->size = calloc(env->nfiles ? env->nfiles : 1, sizeof(*g->size));
    g->base = calloc(env->nfiles ? env->nfiles : 1, sizeof(*g->base));
    if (!g->size || !g->base)
        return -ENOMEM;
    for (unsigned i = 0; i < env->nfiles; i++) {
        g->size[i] = env->files[i].size;
        g->base[i] = env->files[i].file_offset;
    }
    return 0;
}

static int gen_start(void *state, const struct lb_opsrc_env *env, char *err, unsigned errlen)
{
    struct gen_worker *g = state;
    int rw = env->job->rw;

    g->job = env->job;
    g->max_len = env->max_len;
    g->writes = rw != LB_RW_READ && rw != LB_RW_RANDREAD && !env->job->verify_only;
    if (gen_files(g, env) || !(g->L = luaL_newstate())) {
        snprintf(err, errlen, "generator: not enough memory");
        return -ENOMEM;
    }
    *(struct gen_worker **)lua_getextraspace(g->L) = g;
    lua_pushcfunction(g->L, setup);
    lua_pushinteger(g->L, (lua_Integer)env->seed);
    if (lua_pcall(g->L, 1, 2, 0) != LUA_OK)
        return lua_failed(g->L, err, errlen);
    lua_gc(g->L, LUA_GCGEN, 0, 0);
    return 0;
}

/* One call of next(ctx); the ops it added, or -errno. */
static int call_next(struct gen_worker *g, char *err, unsigned errlen, bool *more)
{
    lua_State *L = g->L;

    g->n = 0;
    lua_pushinteger(L, g->max);
    lua_setfield(L, 2, "batch");
    lua_pushinteger(L, (lua_Integer)++g->calls);
    lua_setfield(L, 2, "calls");
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK)
        return lua_failed(L, err, errlen);
    *more = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return g->n;
}

static int gen_next(void *state, struct lb_op *ops, int max, char *err, unsigned errlen)
{
    struct gen_worker *g = state;
    int n = 0;

    g->ops = ops;
    g->max = max;
    for (unsigned empty = 0; n == 0; empty++) {
        bool more = false;

        n = call_next(g, err, errlen, &more);
        if (n < 0 || (n == 0 && !more))
            break;
        if (n == 0 && empty == EMPTY_CALLS) {
            snprintf(err, errlen, "generator: next(ctx) returned true %d times in a row "
                     "without adding an operation (return nothing to end)", EMPTY_CALLS);
            n = -ECANCELED;
        }
    }
    g->max = 0;
    return n;
}

static void gen_close(void *state)
{
    struct gen_worker *g = state;

    if (!g)
        return;
    if (g->L)
        lua_close(g->L);
    free(g->size);
    free(g->base);
    free(g);
}

static const struct lb_opsrc_ops gen_ops = {
    .open = gen_open,
    .start = gen_start,
    .next = gen_next,
    .close = gen_close,
};
