/*
 * lb.train{...} and lb.meta{...}: the Lua side of the training emulation
 * (core/train/train.c) and of the small-file phases (core/meta/meta.c).  Each checks
 * its table of fields, fills the core cfg, runs it on the calling thread
 * (progress, if given, is called there about once a second), and turns the
 * core result into a table.  A core result is held by a guard userdata
 * while the table is built, so a Lua error cannot leak it.
 */
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bigmem.h"
#include "hist.h"
#include "meta.h"
#include "train.h"
#include "units.h"
#include "histlib.h"
#include "host.h"
#include "mpi.h"
#include "trainlib.h"
#include "result.h"

#define TRAIN_GUARD "lb.train.guard"
#define PATHS_GUARD "lb.train.paths"
#define META_GUARD "lb.meta.guard"
#define CLUSTER_GUARD "lb.train.cluster"


/* ---- reading fields ---- */

struct fields {
    lua_State *L;
    int t;                       /* the table's index */
    const char *fn;              /* "lb.train" */
};

/* The fields of the table argument 1 of fn, the only argument kept. */
static struct fields spec_fields(lua_State *L, const char *fn)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    return (struct fields){L, 1, fn};
}

static int field(struct fields *f, const char *name)
{
    lua_getfield(f->L, f->t, name);
    if (!lua_isnil(f->L, -1))
        return 1;
    lua_pop(f->L, 1);
    return 0;
}

static void bad(struct fields *f, const char *name, const char *what)
{
    lb_usage_error(f->L, "%s: field '%s' must be %s", f->fn, name, what);
}

static uint64_t get_uint(struct fields *f, const char *name, uint64_t def, uint64_t min)
{
    if (!field(f, name))
        return def;
    lua_State *L = f->L;
    uint64_t v = 0;
    int ok = lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 0;
    if (ok)
        v = (uint64_t)lua_tointeger(L, -1);
    else if (lua_type(L, -1) == LUA_TSTRING)
        ok = lb_parse_u64(lua_tostring(L, -1), &v) == 0;
    if (!ok || v < min)
        bad(f, name, min ? "a positive integer" : "a non-negative integer");
    lua_pop(L, 1);
    return v;
}

/* A size at the top of the stack: bytes, or a string with fio's units. */
static int top_size(lua_State *L, uint64_t *v)
{
    if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 0) {
        *v = (uint64_t)lua_tointeger(L, -1);
        return 0;
    }
    if (lua_type(L, -1) == LUA_TSTRING)
        return lb_parse_size(lua_tostring(L, -1), 1024, v);
    return -EINVAL;
}

/* A time at the top of the stack, in ns: a number of seconds, or a string
 * with a unit ("50ms", "200us", "500ns"; bare: seconds). */
static int top_time_ns(lua_State *L, uint64_t *v)
{
    if (lua_type(L, -1) == LUA_TNUMBER) {
        double s = lua_tonumber(L, -1);
        if (!(s >= 0 && s < 1e9))
            return -EINVAL;
        *v = (uint64_t)llround(s * 1e9);
        return 0;
    }
    if (lua_type(L, -1) != LUA_TSTRING)
        return -EINVAL;
    size_t len;
    const char *s = lua_tolstring(L, -1, &len);
    uint64_t us;
    if (len > 2 && !strcmp(s + len - 2, "ns")) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.*s", (int)(len - 2), s);
        return lb_parse_u64(buf, v);
    }
    int rc = lb_parse_time_us(s, 1000000, &us);
    *v = us * 1000;
    return rc;
}

static uint64_t get_size(struct fields *f, const char *name, uint64_t def)
{
    uint64_t v = def;
    if (field(f, name)) {
        if (top_size(f->L, &v) < 0)
            bad(f, name, "a size (bytes, or a string like \"4k\")");
        lua_pop(f->L, 1);
    }
    return v;
}

static int get_bool(struct fields *f, const char *name, int def)
{
    if (!field(f, name))
        return def;
    if (!lua_isboolean(f->L, -1))
        bad(f, name, "a boolean");
    int v = lua_toboolean(f->L, -1);
    lua_pop(f->L, 1);
    return v;
}

/* One of names[] (NULL-terminated); returns its index. */
static int get_enum(struct fields *f, const char *name, const char *const *names,
                    int def, const char *what)
{
    if (!field(f, name))
        return def;
    const char *s = lua_tostring(f->L, -1);
    for (int i = 0; s && lua_type(f->L, -1) == LUA_TSTRING && names[i]; i++)
        if (!strcmp(s, names[i])) {
            lua_pop(f->L, 1);
            return i;
        }
    bad(f, name, what);
    return def;
}

/* A sub-field of the table at the top of the stack. */
static int sub_value(lua_State *L, const char *k, int (*parse)(lua_State *, uint64_t *),
                     uint64_t *v)
{
    lua_getfield(L, -1, k);
    int rc = lua_isnil(L, -1) ? -ENOENT : parse(L, v);
    lua_pop(L, 1);
    return rc;
}

/* A positive number at key k of the table at the top of the stack, at
 * most max: 0, or -EINVAL. */
static int sub_number(lua_State *L, const char *k, double max, double *v)
{
    lua_getfield(L, -1, k);
    int ok = lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) > 0 &&
             lua_tonumber(L, -1) <= max;
    *v = ok ? lua_tonumber(L, -1) : 0;
    lua_pop(L, 1);
    return ok ? 0 : -EINVAL;
}

/* A string at key k, or at DLIO's name for it, alias, if k is not there. */
static const char *sub_string(lua_State *L, const char *k, const char *alias)
{
    lua_getfield(L, -1, k);
    if (lua_isnil(L, -1) && alias) {
        lua_pop(L, 1);
        lua_getfield(L, -1, alias);
    }
    const char *d = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    lua_pop(L, 1);                      /* the table still holds the string */
    return d;
}

#define TIME_FORMS "a time (\"50ms\", seconds), {mean=, stddev=}, {dist=\"uniform\", min=, " \
    "max=}, {dist=\"gamma\", shape=, scale=}, {dist=\"exponential\", scale=} or " \
    "{dist=\"poisson\", lam=} (shape up to 1e6, lam in seconds up to 10000)"

/* fixed value, {dist="uniform", min=, max=} or {dist="normal", mean=,
 * stddev=} (dist may be left out when mean is given); times also DLIO's
 * {dist="gamma", shape=, scale=}, {dist="exponential", scale=} and
 * {dist="poisson", lam=}.  DLIO's names type= and stdev= are taken for
 * dist= and stddev=. */
static void get_value(struct fields *f, const char *name, struct lb_train_value *v,
                      int (*parse)(lua_State *, uint64_t *), int times, const char *what)
{
    lua_State *L = f->L;
    if (!field(f, name))
        return;
    v->p = 0;
    if (!lua_istable(L, -1)) {
        v->dist = LB_TRAIN_FIXED;
        v->b = 0;
        if (parse(L, &v->a) < 0)
            bad(f, name, what);
        lua_pop(L, 1);
        return;
    }
    const char *d = sub_string(L, "dist", "type");
    int ok = 1;
    v->b = 0;
    if (d && !strcmp(d, "uniform")) {
        v->dist = LB_TRAIN_UNIFORM;
        ok = sub_value(L, "min", parse, &v->a) == 0 && sub_value(L, "max", parse, &v->b) == 0 &&
             v->a <= v->b;
    } else if (times && d && !strcmp(d, "gamma")) {
        v->dist = LB_TRAIN_GAMMA;
        ok = sub_number(L, "shape", LB_TRAIN_SHAPE_MAX, &v->p) == 0 &&
             sub_value(L, "scale", parse, &v->a) == 0 && v->a > 0;
    } else if (times && d && !strcmp(d, "exponential")) {
        v->dist = LB_TRAIN_EXPONENTIAL;
        ok = sub_value(L, "scale", parse, &v->a) == 0 && v->a > 0;
    } else if (times && d && !strcmp(d, "poisson")) {
        v->dist = LB_TRAIN_POISSON;
        v->a = 0;
        ok = sub_number(L, "lam", LB_TRAIN_LAM_MAX, &v->p) == 0;
    } else {
        v->dist = LB_TRAIN_NORMAL;
        lua_getfield(L, -1, "stddev");
        const char *sdk = lua_isnil(L, -1) ? "stdev" : "stddev";
        lua_pop(L, 1);
        int sd = sub_value(L, sdk, parse, &v->b);
        ok = (d == NULL || !strcmp(d, "normal")) && sub_value(L, "mean", parse, &v->a) == 0 &&
             (sd == 0 || sd == -ENOENT);
        v->b = sd == 0 ? v->b : 0;
    }
    if (!ok)
        bad(f, name, what);
    lua_pop(L, 1);
}

/* Refuses fields not in known[] (a NULL-terminated list). */
static void check_known(struct fields *f, const char *const *known)
{
    lua_State *L = f->L;
    lua_pushnil(L);
    while (lua_next(L, f->t)) {
        lua_pop(L, 1);
        const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        int found = 0;
        for (int i = 0; k && known[i]; i++)
            found |= !strcmp(k, known[i]);
        if (found)
            continue;
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        for (int i = 0; known[i]; i++) {
            luaL_addstring(&b, i ? ", " : "");
            luaL_addstring(&b, known[i]);
        }
        luaL_pushresult(&b);
        lb_usage_error(L, "%s: unknown field '%s' (known: %s)", f->fn,
                       k ? k : luaL_typename(L, -2), lua_tostring(L, -1));
    }
}

/* ---- progress: the Lua function, and interrupts ---- */

struct progress {
    lua_State *L;
    int fn;                      /* index of the function, 0: none */
    int failed;                  /* the function raised: message on top */
};

static int on_progress(void *arg, const char *phase, uint64_t done, uint64_t total)
{
    struct progress *p = arg;
    if (lb_host.signal)
        return 1;
    if (!p->fn || p->failed)
        return p->failed;
    lua_pushvalue(p->L, p->fn);
    lua_pushinteger(p->L, (lua_Integer)done);
    lua_pushinteger(p->L, (lua_Integer)total);
    lua_pushstring(p->L, phase);
    if (lua_pcall(p->L, 3, 0, 0) != LUA_OK) {
        p->failed = 1;                  /* raised after the run */
        return 1;
    }
    return 0;
}

/* Reads the progress field into p and points the core's callback (*cb,
 * *cb_arg) at it: interrupts stop the run even without a function. */
static void get_progress(struct fields *f, struct progress *p, lb_progress_fn *cb,
                         void **cb_arg)
{
    p->L = f->L;
    p->fn = 0;
    p->failed = 0;
    *cb = on_progress;
    *cb_arg = p;
    if (!field(f, "progress"))
        return;
    if (!lua_isfunction(f->L, -1))
        bad(f, "progress", "a function (done, total, phase)");
    p->fn = lua_gettop(f->L);           /* stays on the stack */
}

/* ---- pushing results ---- */

static void set_hist(lua_State *L, const char *k, const struct lb_hist *h)
{
    struct lb_hist *c = lb_hist_dup(h);
    if (c == NULL)
        luaL_error(L, "not enough memory for a histogram");
    lb_push_hist(L, c);
    lua_setfield(L, -2, k);
}

static void set_cpu(lua_State *L, const char *k, uint64_t usr_ns, uint64_t sys_ns)
{
    lua_createtable(L, 0, 3);
    lb_set_num(L, "usr_s", usr_ns / 1e9);
    lb_set_num(L, "sys_s", sys_ns / 1e9);
    lua_setfield(L, -2, k);
}

/* ---- lb.train ---- */

static int train_guard_gc(lua_State *L)
{
    lb_train_result_free(luaL_checkudata(L, 1, TRAIN_GUARD));
    return 0;
}

static const char *const train_fields[] = {
    "dir", "files", "samples_per_file", "sample_size", "file_format", "batch_size",
    "read_threads", "epochs", "shuffle", "seed", "compute_time", "prefetch",
    "accelerators", "checkpoint", "direct", "progress", "loader", "barrier",
    "drop_last", "preprocess_time", "exclude_start_steps", "exclude_end_steps", "total_training_steps",
    "format", "transfer_size", "shuffle_size", "chunk_size", "num_dset_per_record",
    "num_subfolders", "relayout",
    "compression", "compression_level", "names", "do_eval", "num_files_eval", "batch_size_eval",
    "eval_time",
    "eval_time_stdev", "eval_after_epoch", "epochs_between_evals", "num_subfolders_eval", NULL,
};

/* DLIO's evaluation: do_eval and its values, which need it. */
static void get_eval(struct fields *f, struct lb_train_cfg *c)
{
    static const char *const needs[] = {"num_files_eval", "batch_size_eval", "eval_time",
                                        "eval_time_stdev", "eval_after_epoch",
                                        "epochs_between_evals", "num_subfolders_eval", NULL};
    c->do_eval = get_bool(f, "do_eval", 0);
    for (int i = 0; !c->do_eval && needs[i]; i++)
        if (field(f, needs[i]))
            lb_usage_error(f->L, "%s: field '%s' needs do_eval=true", f->fn, needs[i]);
    if (!c->do_eval)
        return;
    if (!field(f, "num_files_eval"))
        bad(f, "num_files_eval", "given with do_eval=true (the evaluation's files)");
    lua_pop(f->L, 1);
    c->eval_files = get_uint(f, "num_files_eval", 0, 1);
    c->eval_batch_size = (uint32_t)get_uint(f, "batch_size_eval", 1, 1);   /* DLIO's 1 */
    get_value(f, "eval_time", &c->eval_ns, top_time_ns, 1, "a time per step: " TIME_FORMS);
    if (field(f, "eval_time_stdev")) {          /* DLIO's evaluation.eval_time_stdev */
        uint64_t sd;
        if (top_time_ns(f->L, &sd) < 0)
            bad(f, "eval_time_stdev", "a time (\"5ms\", seconds)");
        if (c->eval_ns.dist != LB_TRAIN_FIXED)
            bad(f, "eval_time_stdev", "given with a fixed eval_time (its mean)");
        lua_pop(f->L, 1);
        c->eval_ns.dist = LB_TRAIN_NORMAL;
        c->eval_ns.b = sd;
    }
    c->eval_after_epoch = (uint32_t)get_uint(f, "eval_after_epoch", 1, 1);
    c->eval_every = (uint32_t)get_uint(f, "epochs_between_evals", 1, 1);
    c->eval_subfolders = (uint32_t)get_uint(f, "num_subfolders_eval", 0, 0);
}

static void get_checkpoint(struct fields *f, struct lb_train_cfg *c)
{
    static const char *const what =
        "a table {every_steps=, size=} or {every_epochs=, after_epoch=, size=}";
    if (!field(f, "checkpoint"))
        return;
    if (!lua_istable(f->L, -1))
        bad(f, "checkpoint", what);
    struct fields sub = {f->L, lua_gettop(f->L), "lb.train: checkpoint"};
    static const char *const known[] = {"every_steps", "every_epochs", "after_epoch", "size",
                                        NULL};
    check_known(&sub, known);
    c->checkpoint_steps = get_uint(&sub, "every_steps", 0, 1);
    c->checkpoint_epochs = (uint32_t)get_uint(&sub, "every_epochs", 0, 1);
    c->checkpoint_after_epoch = (uint32_t)get_uint(&sub, "after_epoch", 1, 1);
    c->checkpoint_size = get_size(&sub, "size", 0);
    if (!(c->checkpoint_steps || c->checkpoint_epochs) || !c->checkpoint_size ||
        (c->checkpoint_steps && c->checkpoint_epochs))
        bad(f, "checkpoint", what);
    lua_pop(f->L, 1);
}

static void *new_guarded(lua_State *L, size_t size, const char *mt);

struct path_array {              /* dir= a list: the paths for the core */
    const char **v;
    size_t n;
};

static int paths_guard_gc(lua_State *L)
{
    struct path_array *a = luaL_checkudata(L, 1, PATHS_GUARD);
    lb_big_free(a->v, a->n * sizeof *a->v);
    a->v = NULL;
    return 0;
}

/* dir= a list of files, or a glob: an array of their paths, anchored in
 * a table left on the stack (the strings) and a userdata (the array, on
 * huge pages: ten million paths fill 80 MB). */
static const char *const *dataset_paths(struct fields *f, uint64_t *n)
{
    lua_State *L = f->L;
    int t = lua_gettop(L);
    if (lua_type(L, t) == LUA_TSTRING) {        /* a glob */
        glob_t g;
        const char *pat = lua_tostring(L, t);
        int rc = glob(pat, GLOB_ERR, NULL, &g);
        if (rc == GLOB_NOMATCH || (rc == 0 && g.gl_pathc == 0))
            lb_usage_error(L, "%s: field 'dir': no file matches '%s'", f->fn, pat);
        if (rc != 0)
            lb_failure_error(L, "%s: field 'dir': cannot expand '%s'", f->fn, pat);
        lua_createtable(L, (int)g.gl_pathc, 0);
        for (size_t i = 0; i < g.gl_pathc; i++) {
            lua_pushstring(L, g.gl_pathv[i]);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        globfree(&g);
        lua_replace(L, t);
    }
    size_t len = lua_rawlen(L, t);
    if (len == 0)
        bad(f, "dir", "a directory, a glob or a non-empty list of files");
    struct path_array *a = new_guarded(L, sizeof *a, PATHS_GUARD);
    const char **v = a->v = lb_big_alloc(len * sizeof *v);
    if (v == NULL)
        luaL_error(L, "%s: not enough memory for %I paths", f->fn, (lua_Integer)len);
    a->n = len;
    for (size_t i = 0; i < len; i++) {
        lua_rawgeti(L, t, (lua_Integer)i + 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            bad(f, "dir", "a list of file paths (strings)");
        v[i] = lua_tostring(L, -1);     /* anchored in the table */
        lua_pop(L, 1);
    }
    *n = len;
    return v;
}

static int is_glob(const char *s)
{
    return strpbrk(s, "*?[") != NULL;
}

static void train_cfg(struct fields *f, struct lb_train_cfg *c)
{
    static const char *const formats[] = {"one-sample-per-file", "packed", NULL};
    static const char *const shuffles[] = {"none", "file", "sample", NULL};
    static const char *const loaders[] = {"shard", "shared", NULL};
    static const char *const containers[] = {"raw", "npz", "tfrecord", "hdf5", NULL};
    check_known(f, train_fields);
    lb_train_cfg_init(c);
    if (!field(f, "dir") || (lua_type(f->L, -1) != LUA_TSTRING && !lua_istable(f->L, -1)))
        bad(f, "dir", "a directory path, a glob or a list of files");
    uint64_t npaths = 0;
    if (lua_istable(f->L, -1) || is_glob(lua_tostring(f->L, -1))) {
        c->paths = dataset_paths(f, &npaths);   /* stays on the stack */
        c->dir = NULL;
        c->files = get_uint(f, "files", npaths, 1);
        if (c->files > npaths)
            lb_usage_error(f->L, "%s: field 'files': %I, but dir names %I files", f->fn,
                           (lua_Integer)c->files, (lua_Integer)npaths);
    } else {
        c->dir = lua_tostring(f->L, -1);        /* stays on the stack */
        c->files = get_uint(f, "files", c->files, 1);
    }
    c->num_subfolders = (uint32_t)get_uint(f, "num_subfolders", 0, 0);
    c->relayout = get_bool(f, "relayout", 0);
    static const char *const namings[] = {"luabench", "dlio", NULL};
    c->dlio_names = get_enum(f, "names", namings, 0, "\"luabench\" or \"dlio\"");
    if (c->dlio_names && c->paths)
        bad(f, "names", "\"luabench\" with dir= a glob or a list (the files are named)");
    c->samples_per_file = (uint32_t)get_uint(f, "samples_per_file", 1, 1);
    get_value(f, "sample_size", &c->sample_size, top_size, 0,
              "a size, {dist=\"uniform\", min=, max=} or {dist=\"normal\", mean=, stddev=}");
    c->format = get_enum(f, "file_format", formats, c->samples_per_file > 1,
                         "\"one-sample-per-file\" or \"packed\"");
    if (c->format == LB_TRAIN_ONE_PER_FILE && c->samples_per_file != 1)
        bad(f, "samples_per_file", "1 with file_format=\"one-sample-per-file\"");
    c->container = get_enum(f, "format", containers, LB_TRAIN_RAW,
                            "\"raw\", \"npz\", \"tfrecord\" or \"hdf5\"");
    static const char *const compressions[] = {"none", "zip", "gzip", NULL};
    c->compression = get_enum(f, "compression", compressions, 0,
                              "\"none\", \"zip\" (npz) or \"gzip\" (hdf5)");
    c->compression_level = (uint32_t)get_uint(f, "compression_level", 4, 0);   /* DLIO's */
    if (c->compression_level > 9)
        bad(f, "compression_level", "an integer from 0 to 9 (gzip's levels, as h5py's)");
    c->transfer_size = get_size(f, "transfer_size", c->transfer_size);
    c->shuffle_size = (uint32_t)get_uint(f, "shuffle_size", c->shuffle_size, 1);
    c->chunk_size = get_size(f, "chunk_size", 0);
    c->num_dset_per_record = (uint32_t)get_uint(f, "num_dset_per_record", 1, 1);
    c->batch_size = (uint32_t)get_uint(f, "batch_size", c->batch_size, 1);
    c->read_threads = (uint32_t)get_uint(f, "read_threads", c->read_threads, 0);
    c->epochs = (uint32_t)get_uint(f, "epochs", c->epochs, 1);
    c->shuffle = get_enum(f, "shuffle", shuffles, c->shuffle,
                          "\"none\", \"file\" or \"sample\"");
    c->seed = get_uint(f, "seed", 0, 0);
    get_value(f, "compute_time", &c->compute_ns, top_time_ns, 1, TIME_FORMS);
    get_value(f, "preprocess_time", &c->preprocess_ns, top_time_ns, 1,
              "a time per sample: " TIME_FORMS);
    c->prefetch = (uint32_t)get_uint(f, "prefetch", c->prefetch, 0);
    c->accelerators = (uint32_t)get_uint(f, "accelerators", c->accelerators, 1);
    c->loader = get_enum(f, "loader", loaders, c->loader, "\"shard\" or \"shared\"");
    c->barrier = get_bool(f, "barrier", c->barrier);
    c->drop_last = get_bool(f, "drop_last", c->drop_last);
    c->exclude_start_steps = (uint32_t)get_uint(f, "exclude_start_steps",
                                                c->exclude_start_steps, 0);
    c->exclude_end_steps = (uint32_t)get_uint(f, "exclude_end_steps", 0, 0);
    c->total_training_steps = get_uint(f, "total_training_steps", 0, 0);
    get_checkpoint(f, c);
    c->direct = get_bool(f, "direct", 0);
    get_eval(f, c);
    c->readonly = lb_host.readonly;
    if (c->readonly && (c->checkpoint_steps || c->checkpoint_epochs))
        lb_usage_error(f->L, "lb.train: checkpoints write files, and --readonly was given");
}

static void push_epochs(lua_State *L, const struct lb_train_result *r)
{
    lua_createtable(L, (int)r->nepochs, 0);
    for (uint32_t e = 0; e < r->nepochs; e++) {
        lua_createtable(L, 0, 4);
        lb_set_num(L, "time_s", r->epochs[e].time_ns / 1e9);
        lb_set_int(L, "samples", r->epochs[e].samples);
        lb_set_num(L, "au", r->epochs[e].au);
        lb_set_num(L, "dlio_samples_per_s", r->epochs[e].dlio_samples_per_s);
        lua_rawseti(L, -2, (lua_Integer)e + 1);
    }
    lua_setfield(L, -2, "epochs");
}

/* Each evaluation, and DLIO's eval figures over them (do_eval). */
static void push_evals(lua_State *L, const struct lb_train_result *r)
{
    lua_createtable(L, (int)r->nevals, 0);
    for (uint32_t i = 0; i < r->nevals; i++) {
        const struct lb_train_eval *e = &r->evals[i];
        lua_createtable(L, 0, 7);
        lb_set_int(L, "epoch", e->epoch);
        lb_set_int(L, "steps", e->steps);
        lb_set_int(L, "samples", e->samples);
        lb_set_int(L, "bytes", e->bytes);
        lb_set_num(L, "time_s", e->time_ns / 1e9);
        lb_set_num(L, "au", e->au);
        lb_set_num(L, "dlio_samples_per_s", e->dlio_samples_per_s);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "evals");
    if (r->nevals == 0)
        return;
    lb_set_num(L, "eval_au", r->eval_au);
    lb_set_num(L, "eval_au_stdev", r->eval_au_stdev);
    lb_set_num(L, "eval_dlio_samples_per_s", r->eval_samples_per_s);
    lb_set_num(L, "eval_dlio_mb_per_s", r->eval_mib_per_s);
}

static void push_train_cpu(lua_State *L, const struct lb_train_result *r)
{
    lua_createtable(L, 0, 3);
    lb_set_num(L, "usr_s", r->cpu.usr_ns / 1e9);
    lb_set_num(L, "sys_s", r->cpu.sys_ns / 1e9);
    lua_createtable(L, (int)r->nreaders, 0);
    for (uint32_t i = 0; i < r->nreaders; i++) {
        lua_createtable(L, 0, 2);
        lb_set_num(L, "usr_s", r->reader_cpu[i].usr_ns / 1e9);
        lb_set_num(L, "sys_s", r->reader_cpu[i].sys_ns / 1e9);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "readers");
    lua_setfield(L, -2, "cpu");
}

static void push_train(lua_State *L, const struct lb_train_result *r)
{
    lua_createtable(L, 0, 28);
    lb_set_int(L, "samples", r->samples);
    lb_set_num(L, "samples_per_s", r->samples_per_s);
    lb_set_int(L, "bytes", r->bytes);
    lb_set_num(L, "bw_bytes", r->bw_bytes);
    lb_set_num(L, "au", r->au);
    lb_set_num(L, "au_stdev", r->au_stdev);
    lb_set_num(L, "au_steps", r->au_steps);
    lb_set_num(L, "dlio_samples_per_s", r->dlio_samples_per_s);
    lb_set_num(L, "dlio_mb_per_s", r->dlio_mib_per_s);
    lb_set_int(L, "steps", r->steps);
    lb_set_num(L, "time_s", r->time_ns / 1e9);
    lb_set_num(L, "compute_s", r->compute_ns / 1e9);
    lb_set_num(L, "wait_s", r->wait_ns / 1e9);
    push_epochs(L, r);
    push_evals(L, r);
    lb_push_latency(L, r->batch_wait);
    lua_setfield(L, -2, "batch_wait_ns");
    lb_push_latency(L, r->sample_read);
    lua_setfield(L, -2, "sample_read_ns");
    set_hist(L, "batch_wait_hist", r->batch_wait);
    set_hist(L, "sample_read_hist", r->sample_read);
    lua_createtable(L, 0, 3);
    lb_set_int(L, "count", r->checkpoints);
    lb_push_latency(L, r->checkpoint);
    lua_setfield(L, -2, "time_ns");
    set_hist(L, "hist", r->checkpoint);
    lua_setfield(L, -2, "checkpoints");
    push_train_cpu(L, r);
    lua_createtable(L, 0, 5);
    lb_set_int(L, "files", r->laid_out_files);
    lb_set_int(L, "bytes", r->laid_out_bytes);
    lb_set_num(L, "time_s", r->layout_ns / 1e9);
    lb_set_int(L, "rewritten", r->relaid_files);
    if (r->relaid[0]) {
        lua_pushstring(L, r->relaid);
        lua_setfield(L, -2, "relaid");
    }
    lua_setfield(L, -2, "layout");
    lua_pushboolean(L, r->stopped);
    lua_setfield(L, -2, "stopped");
}

/* A zeroed result of size bytes, freed by the guard metatable mt's __gc
 * when a Lua error leaves it behind. */
static void *new_guarded(lua_State *L, size_t size, const char *mt)
{
    void *r = lua_newuserdatauv(L, size, 0);
    memset(r, 0, size);
    luaL_setmetatable(L, mt);
    return r;
}

/* After a run: raises for a failure or an error in progress. */
static void check_run(lua_State *L, const char *fn, int rc, const char *err,
                      struct progress *p)
{
    if (p->failed)
        lua_error(L);                   /* the progress function's error */
    if (rc < 0)
        lb_failure_error(L, "%s: %s", fn, err[0] ? err : strerror(-rc));
}

/* ---- lb.train under MPI: every rank's result, merged ---- */

struct train_cluster {           /* held by a guard while the tables are built */
    int n;
    struct lb_train_result *parts, merged;
    uint64_t *words, *all, (*hosts)[8], *hall;
    size_t *counts, nwords;
};

static int cluster_guard_gc(lua_State *L)
{
    struct train_cluster *tc = luaL_checkudata(L, 1, CLUSTER_GUARD);
    for (int i = 0; tc->parts && i < tc->n; i++)
        lb_train_result_free(&tc->parts[i]);
    lb_train_result_free(&tc->merged);
    free(tc->parts);
    free(tc->words);
    free(tc->all);
    free(tc->hall);                      /* tc->hosts points into it */
    free(tc->counts);
    memset(tc, 0, sizeof *tc);
    return 0;
}

/* Gathers every rank's result and host name and merges them. */
static int cluster_gather(const struct lb_train_cfg *c, const struct lb_train_result *mine,
                          struct train_cluster *tc)
{
    int n = tc->n;
    uint64_t host[8] = {0};
    gethostname((char *)host, sizeof host - 1);
    tc->parts = calloc((size_t)n, sizeof *tc->parts);
    tc->counts = calloc((size_t)n, sizeof *tc->counts);
    if (!tc->parts || !tc->counts)
        return -ENOMEM;
    int rc = lb_mpi_gather_words(host, 8, &tc->hall, tc->counts);
    if (rc == 0)
        rc = lb_train_pack(mine, &tc->words, &tc->nwords);
    if (rc == 0)
        rc = lb_mpi_gather_words(tc->words, tc->nwords, &tc->all, tc->counts);
    tc->hosts = (uint64_t (*)[8])tc->hall;
    size_t at = 0;
    for (int i = 0; rc == 0 && i < n; i++) {
        rc = lb_train_unpack(tc->all + at, tc->counts[i], &tc->parts[i]);
        at += tc->counts[i];
        ((char *)tc->hosts[i])[63] = 0;
    }
    if (rc == 0)
        rc = lb_train_merge(c, tc->parts, (size_t)n, &tc->merged);
    return rc;
}

/* The cluster's result, with hosts (a row per rank, the names of a
 * result) and local (this rank's own). */
static void push_cluster(lua_State *L, const struct lb_train_cfg *c,
                         const struct lb_train_result *mine)
{
    struct train_cluster *tc = new_guarded(L, sizeof *tc, CLUSTER_GUARD);
    int guard = lua_gettop(L);
    tc->n = lb_mpi_size();
    int rc = cluster_gather(c, mine, tc);
    if (rc == -EINVAL)
        luaL_error(L, "lb.train: merging the ranks' results failed: "
                   "a rank sent a result of another shape");
    if (rc < 0)
        luaL_error(L, "lb.train: merging the ranks' results failed: %s", lb_mpi_error(rc));
    push_train(L, &tc->merged);
    lua_createtable(L, tc->n, 0);
    for (int i = 0; i < tc->n; i++) {
        push_train(L, &tc->parts[i]);
        lua_pushstring(L, (const char *)tc->hosts[i]);
        lua_setfield(L, -2, "hostname");
        lb_set_int(L, "rank", (uint64_t)i);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "hosts");
    push_train(L, mine);
    lua_setfield(L, -2, "local");
    lua_remove(L, guard);                /* collected later, with the parts */
}

static int l_train(lua_State *L)
{
    struct lb_train_cfg c;
    struct progress p;
    struct fields f = spec_fields(L, "lb.train");
    train_cfg(&f, &c);
    int cluster = lb_mpi_size() > 1 && !lb_mpi_solo();
    if (cluster) {                       /* DLIO's ranks: one shard of all each */
        c.rank = (uint32_t)lb_mpi_rank();
        c.nranks = (uint32_t)lb_mpi_size();
        c.sync = lb_mpi_train_sync;
    }
    const char *why = lb_train_check(&c);
    if (why)
        lb_usage_error(L, "lb.train: %s", why);
    get_progress(&f, &p, &c.progress, &c.progress_arg);
    struct lb_train_result *r = new_guarded(L, sizeof *r, TRAIN_GUARD);
    int rc = lb_train_run(&c, r);
    if (r->layout_refused)
        lb_usage_error(L, "lb.train: %s", r->err);
    if (r->relaid_files)                /* a rewrite is said, even with -q */
        fprintf(stderr, "luabench: lb.train: relayout=1: rewrote %llu files of %s "
                "(laid out with %s)\n", (unsigned long long)r->relaid_files, c.dir, r->relaid);
    check_run(L, "lb.train", rc, r->err, &p);
    if (cluster)
        push_cluster(L, &c, r);
    else
        push_train(L, r);
    lb_train_result_free(r);
    return 1;
}

/* lb.train_remove(spec): deletes the dataset spec describes (only the
 * files luabench created); returns how many files went. */
static int l_train_remove(lua_State *L)
{
    struct lb_train_cfg c;
    char err[512];
    uint64_t n;
    struct fields f = spec_fields(L, "lb.train_remove");
    train_cfg(&f, &c);
    if (lb_host.readonly)
        lb_usage_error(L, "lb.train_remove: deleting files, and --readonly was given");
    if (c.paths)
        lb_usage_error(L, "lb.train_remove: dir is a list of existing files: none is removed");
    if (lb_train_remove(&c, &n, err, sizeof err) < 0)
        return lb_failure_error(L, "lb.train_remove: %s", err);
    lua_pushinteger(L, (lua_Integer)n);
    return 1;
}

/* ---- lb.meta ---- */

static int meta_guard_gc(lua_State *L)
{
    lb_meta_result_free(luaL_checkudata(L, 1, META_GUARD));
    return 0;
}

static const char *const meta_fields[] = {
    "dir", "files", "size", "fanout", "threads", "ops", "seed", "openfiles",
    "progress", NULL,
};

static void get_ops(struct fields *f, struct lb_meta_cfg *c)
{
    lua_State *L = f->L;
    if (!field(f, "ops"))
        return;
    size_t n = lua_istable(L, -1) ? lua_rawlen(L, -1) : 0;
    if (n == 0 || n > LB_META_MAX_PHASES)
        bad(f, "ops", "a list of 1 to 16 of create, stat, read, unlink, mkdir, readdir");
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i + 1);
        int op = lua_type(L, -1) == LUA_TSTRING ? lb_meta_op_find(lua_tostring(L, -1)) : -1;
        if (op < 0)
            lb_usage_error(L, "lb.meta: field 'ops' has an unknown operation '%s' "
                           "(known: create, stat, read, unlink, mkdir, readdir)",
                           luaL_tolstring(L, -1, NULL));
        if (lb_host.readonly && op != LB_META_STAT && op != LB_META_READ &&
            op != LB_META_READDIR)
            lb_usage_error(L, "lb.meta: '%s' writes, and --readonly was given",
                           lb_meta_op_name(op));
        c->phases[i] = (enum lb_meta_op)op;
        lua_pop(L, 1);
    }
    c->nphases = (uint32_t)n;
    lua_pop(L, 1);
}

static void meta_cfg(struct fields *f, struct lb_meta_cfg *c)
{
    check_known(f, meta_fields);
    lb_meta_cfg_init(c);
    if (!field(f, "dir") || lua_type(f->L, -1) != LUA_TSTRING)
        bad(f, "dir", "a directory path (string)");
    c->dir = lua_tostring(f->L, -1);    /* stays on the stack */
    c->files = get_uint(f, "files", 0, 1);
    if (c->files == 0)
        bad(f, "files", "a positive integer");
    c->size = get_size(f, "size", c->size);
    c->fanout = (uint32_t)get_uint(f, "fanout", c->fanout, 1);
    c->threads = (uint32_t)get_uint(f, "threads", c->threads, 1);
    c->seed = get_uint(f, "seed", 0, 0);
    c->openfiles = (uint32_t)get_uint(f, "openfiles", 0, 0);
    get_ops(f, c);
}

static void push_meta_op(lua_State *L, const struct lb_meta_op_result *o)
{
    lua_createtable(L, 0, 8);
    lb_set_int(L, "count", o->count);
    lb_set_num(L, "ops_per_s", o->ops_per_s);
    lb_set_num(L, "time_s", o->time_ns / 1e9);
    lb_set_int(L, "bytes", o->bytes);
    lb_set_int(L, "skipped", o->skipped);
    lb_push_latency(L, o->lat);
    lua_setfield(L, -2, "lat_ns");
    set_hist(L, "hist", o->lat);
}

static void push_meta(lua_State *L, const struct lb_meta_cfg *c,
                      const struct lb_meta_result *r)
{
    lua_createtable(L, 0, 6);
    lua_createtable(L, 0, LB_META_NOPS);
    for (uint32_t i = 0; i < c->nphases; i++) {
        enum lb_meta_op op = c->phases[i];
        push_meta_op(L, &r->op[op]);
        lua_setfield(L, -2, lb_meta_op_name(op));
    }
    lua_setfield(L, -2, "ops");
    lb_set_int(L, "files", r->files);
    lb_set_int(L, "dirs", r->dirs);
    set_cpu(L, "cpu", r->usr_ns, r->sys_ns);
    lua_pushboolean(L, r->stopped);
    lua_setfield(L, -2, "stopped");
}

static int l_meta(lua_State *L)
{
    struct lb_meta_cfg c;
    struct progress p;
    struct fields f = spec_fields(L, "lb.meta");
    meta_cfg(&f, &c);
    const char *why = lb_meta_check(&c);
    if (why)
        lb_usage_error(L, "lb.meta: %s", why);
    get_progress(&f, &p, &c.progress, &c.progress_arg);
    struct lb_meta_result *r = new_guarded(L, sizeof *r, META_GUARD);
    int rc = lb_meta_run(&c, r);
    check_run(L, "lb.meta", rc, r->err, &p);
    push_meta(L, &c, r);
    lb_meta_result_free(r);
    return 1;
}

static void guard_metatable(lua_State *L, const char *name, lua_CFunction gc)
{
    luaL_newmetatable(L, name);
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
}

int lb_train_open(lua_State *L)
{
    guard_metatable(L, TRAIN_GUARD, train_guard_gc);
    guard_metatable(L, PATHS_GUARD, paths_guard_gc);
    guard_metatable(L, META_GUARD, meta_guard_gc);
    guard_metatable(L, CLUSTER_GUARD, cluster_guard_gc);
    lua_pushcfunction(L, l_train);
    lua_setfield(L, -2, "train");
    lua_pushcfunction(L, l_train_remove);
    lua_setfield(L, -2, "train_remove");
    lua_pushcfunction(L, l_meta);
    lua_setfield(L, -2, "meta");
    return 0;
}
