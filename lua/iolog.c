/*
 * fio's per-I/O logs (write_bw_log, write_iops_log, write_lat_log without
 * log_avg_msec): every completed I/O of the jobs that asked is kept by the
 * run's trace hook, on its worker's thread, in chunks owned by that
 * (job, clone) alone; after the run the main thread writes fio's lines
 *
 *   time_ms, value, ddir, bs[, offset], prio
 *
 * with value the latency in ns (lat, clat, slat), 1 (iops) or the I/O's
 * bandwidth bs * 10^6 / clat_ns (bw, as fio computes it).  A sync engine's
 * I/O has no submission latency: it gets no slat line (fio's slat log of a
 * sync engine is empty).  Compressed (log_store_compressed), a log holds
 * fio's samples instead of text, as fio's .fz does: per I/O the
 * little-endian u64 time_ms, u64 value, u32 ddir (bit 31: an offset
 * follows), u16 prio, 2 bytes of padding, u64 bs[, u64 offset], deflated
 * as one zlib stream; lb.inflate turns such a file (also fio's, made of
 * several streams) back into fio's text lines.
 *
 * Kind "iolog" is fio's write_iolog instead: what each clone issued, in
 * the order it issued it, as fio's version 3 text ("fio version 3 iolog",
 * then "usec file add|open|close" and "usec file read|write|trim|sync|
 * datasync offset length" lines, usec counted from the clone's start, ramp
 * included), every clone appending to the one file as fio's threads do.
 *
 * The spec's _io_log is a list of {job = J, kind = K, paths = {P...} (one
 * per clone) or path = P (every clone), offset = bool, compress = bool}.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#ifdef LB_HAVE_ZLIB
#include <zlib.h>
#endif

#include "clock.h"
#include "engine.h"
#include "job.h"
#include "run.h"
#include "host.h"
#include "iolog.h"
#include "files.h"
#include "sys.h"

#define IOLOG_MT "lb.iolog"
#define CHUNK 65536

struct rec {
    uint64_t t, offset, slat, clat;
    uint32_t len;
    uint8_t ddir;
    uint8_t sync : 1;        /* a sync engine's: no slat */
    uint8_t rt : 1;          /* issued at a realtime priority: fio's prio column */
    uint16_t file;           /* index into the stream's names */
};

struct chunk {
    struct chunk *next;
    size_t n;
    struct rec r[CHUNK];
};

#define MAX_NAMES 1024

struct stream {              /* one (job, clone) */
    struct chunk *head, *tail;
    int lost;                /* a chunk could not be allocated */
    const struct lb_file *last;  /* the file of the last record, and its index */
    uint16_t last_i;
    uint16_t nnames;
    const struct lb_file **files;  /* the files seen, by their index ... */
    char **names;            /* ... and their paths (kept past the run) */
};

struct lb_iolog {
    size_t njobs;
    unsigned *nclones;
    struct stream **s;       /* [job][clone]; NULL: the job keeps none */
    uint64_t t_base, ramp_ns;
};

/* The index of f in s's names, added when new; -1 when out of room. */
static int file_index(struct stream *s, const struct lb_file *f)
{
    if (s->last == f && s->nnames)
        return s->last_i;
    for (unsigned i = 0; i < s->nnames; i++)
        if (s->files[i] == f) {
            s->last = f;
            s->last_i = (uint16_t)i;
            return (int)i;
        }
    if (s->nnames == MAX_NAMES)
        return -1;
    if (!s->files) {
        s->files = calloc(MAX_NAMES, sizeof *s->files);
        s->names = calloc(MAX_NAMES, sizeof *s->names);
        if (!s->files || !s->names)
            return -1;
    }
    char *name = strdup(f->path ? f->path : "");
    if (!name)
        return -1;
    s->files[s->nnames] = f;
    s->names[s->nnames] = name;
    s->last = f;
    s->last_i = s->nnames;
    return s->nnames++;
}

static void on_io(void *arg, unsigned job, unsigned clone, const struct lb_io *io)
{
    struct lb_iolog *g = arg;
    if (job >= g->njobs || !g->s[job] || clone >= g->nclones[job])
        return;
    if (io->ddir > LB_DATASYNC_OP || io->result < 0)
        return;
    struct stream *s = &g->s[job][clone];
    int fi = file_index(s, io->file);
    if (fi < 0) {
        s->lost = 1;
        return;
    }
    if (!s->tail || s->tail->n == CHUNK) {
        struct chunk *c = malloc(sizeof *c);
        if (!c) {
            s->lost = 1;
            return;
        }
        c->next = NULL;
        c->n = 0;
        if (s->tail)
            s->tail->next = c;
        else
            s->head = c;
        s->tail = c;
    }
    struct rec *r = &s->tail->r[s->tail->n++];
    r->t = io->t_done;
    r->file = (uint16_t)fi;
    r->offset = io->offset;
    r->len = io->len;
    r->ddir = io->ddir;
    r->sync = io->t_issue == 0;
    r->rt = io->ioprio >> 13 == 1;       /* fio logs whether the class is realtime */
    r->slat = r->sync ? 0 : io->t_issue - io->t_start;
    r->clat = io->t_done - (r->sync ? io->t_start : io->t_issue);
}

static void iolog_free(struct lb_iolog *g)
{
    if (!g->s)
        return;
    for (size_t j = 0; j < g->njobs; j++) {
        if (!g->s[j])
            continue;
        for (unsigned c = 0; c < g->nclones[j]; c++) {
            struct stream *s = &g->s[j][c];
            for (struct chunk *k = s->head, *next; k; k = next) {
                next = k->next;
                free(k);
            }
            for (unsigned i = 0; i < s->nnames; i++)
                free(s->names[i]);
            free(s->names);
            free(s->files);
        }
        free(g->s[j]);
    }
    free(g->s);
    free(g->nclones);
    g->s = NULL;
}

static int iolog_gc(lua_State *L)
{
    iolog_free(luaL_checkudata(L, 1, IOLOG_MT));
    return 0;
}

struct lb_iolog *lb_iolog_setup(lua_State *L, int spec, struct lb_run *run)
{
    lua_getfield(L, spec, "_io_log");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return NULL;
    }
    luaL_checktype(L, -1, LUA_TTABLE);
    int list = lua_gettop(L);
    if (luaL_newmetatable(L, IOLOG_MT)) {
        lua_pushcfunction(L, iolog_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, iolog_gc);
        lua_setfield(L, -2, "__close");
    }
    lua_pop(L, 1);
    struct lb_iolog *g = lua_newuserdatauv(L, sizeof *g, 1);
    memset(g, 0, sizeof *g);
    luaL_setmetatable(L, IOLOG_MT);
    lua_pushvalue(L, list);
    lua_setiuservalue(L, -2, 1);
    g->njobs = lb_run_njobs(run);
    g->nclones = calloc(g->njobs ? g->njobs : 1, sizeof *g->nclones);
    g->s = calloc(g->njobs ? g->njobs : 1, sizeof *g->s);
    if (!g->nclones || !g->s)
        luaL_error(L, "lb.run: out of memory for the I/O logs");
    for (lua_Integer i = 1; lua_geti(L, list, i) == LUA_TTABLE; i++) {
        lua_getfield(L, -1, "job");
        lua_Integer j = lua_tointeger(L, -1);
        lua_pop(L, 2);
        if (j < 1 || (size_t)j > g->njobs)
            luaL_error(L, "lb.run: _io_log entry %d: no job %d", (int)i, (int)j);
        const struct lb_job *job = lb_run_job(run, (size_t)j - 1);
        if (g->s[j - 1])
            continue;
        g->nclones[j - 1] = job->numjobs ? job->numjobs : 1;
        g->s[j - 1] = calloc(g->nclones[j - 1], sizeof **g->s);
        if (!g->s[j - 1])
            luaL_error(L, "lb.run: out of memory for the I/O logs");
        if (job->ramp_time * 1000 > g->ramp_ns)
            g->ramp_ns = job->ramp_time * 1000;
    }
    lua_pop(L, 1);
    lua_remove(L, list);
    lb_run_set_trace(run, on_io, g);
    return g;
}

void lb_iolog_start(struct lb_iolog *g)
{
    g->t_base = lb_clock_now() + g->ramp_ns;
}

/* A growing text buffer. */
struct buf {
    char *p;
    size_t n, cap;
};

static int buf_room(struct buf *b, size_t more)
{
    if (b->n + more <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap * 2 : 1 << 20;
    while (cap < b->n + more)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p)
        return -ENOMEM;
    b->p = p;
    b->cap = cap;
    return 0;
}

#define SAMPLE_OFFSET_BIT 0x80000000u

static void put_le(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* One sample as fio's text line. */
static int text_line(char *out, size_t len, uint64_t ms, uint64_t v, unsigned ddir,
                     uint64_t bs, int offset, uint64_t off, unsigned prio)
{
    return offset ? snprintf(out, len, "%" PRIu64 ", %" PRIu64 ", %u, %" PRIu64 ", %" PRIu64
                             ", %u\n", ms, v, ddir, bs, off, prio)
                  : snprintf(out, len, "%" PRIu64 ", %" PRIu64 ", %u, %" PRIu64 ", %u\n",
                             ms, v, ddir, bs, prio);
}

static int line(struct buf *b, const struct lb_iolog *g, const struct rec *r, const char *kind,
                int offset, int bin)
{
    uint64_t v;
    if (r->ddir >= LB_DDIR_N)
        return 0;
    if (!strcmp(kind, "slat")) {
        if (r->sync)
            return 0;
        v = r->slat;
    } else if (!strcmp(kind, "clat")) {
        v = r->clat;
    } else if (!strcmp(kind, "lat")) {
        v = r->slat + r->clat;
    } else if (!strcmp(kind, "iops")) {
        v = 1;
    } else {
        v = r->clat ? (uint64_t)((unsigned __int128)r->len * 1000000u / r->clat) : 0;
    }
    if (buf_room(b, 128) < 0)
        return -ENOMEM;
    uint64_t ms = r->t > g->t_base ? (r->t - g->t_base) / 1000000u : 0;
    if (bin) {
        unsigned char *p = (unsigned char *)b->p + b->n;
        memset(p, 0, 40);
        put_le(p, ms, 8);
        put_le(p + 8, v, 8);
        put_le(p + 16, r->ddir | (offset ? SAMPLE_OFFSET_BIT : 0), 4);
        put_le(p + 20, r->rt, 2);
        put_le(p + 24, r->len, 8);
        if (offset)
            put_le(p + 32, r->offset, 8);
        b->n += offset ? 40 : 32;
        return 0;
    }
    b->n += (size_t)text_line(b->p + b->n, 128, ms, v, r->ddir, r->len, offset, r->offset,
                                  r->rt);
    return 0;
}

static uint64_t rec_start(const struct rec *r)
{
    return r->t - r->clat - r->slat;
}

static int by_start(const void *a, const void *b)
{
    uint64_t x = rec_start(*(const struct rec *const *)a);
    uint64_t y = rec_start(*(const struct rec *const *)b);
    return x < y ? -1 : x > y;
}

static int iolog_line(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int iolog_line(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || buf_room(b, (size_t)n + 1) < 0)
        return -ENOMEM;
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)n;
    return 0;
}

/* One clone's fio iolog (version 3): its files added and opened, what it
 * issued in issue order, its files closed after its last completion. */
static int clone_iolog(struct buf *b, const struct lb_iolog *g, const struct stream *s)
{
    static const char *const act[] = {"read", "write", "trim", "sync", "datasync"};
    uint64_t base = g->t_base - g->ramp_ns, end = base;
    size_t n = 0, i = 0;
    for (const struct chunk *k = s->head; k; k = k->next)
        n += k->n;
    const struct rec **v = malloc((n ? n : 1) * sizeof *v);
    if (!v || iolog_line(b, "fio version 3 iolog\n") < 0)
        goto fail;
    for (const struct chunk *k = s->head; k; k = k->next)
        for (size_t x = 0; x < k->n; x++) {
            v[i++] = &k->r[x];
            if (k->r[x].t > end)
                end = k->r[x].t;
        }
    qsort(v, n, sizeof *v, by_start);
    for (unsigned f = 0; f < s->nnames; f++)
        if (iolog_line(b, "0 %s add\n", s->names[f]) < 0 ||
            iolog_line(b, "0 %s open\n", s->names[f]) < 0)
            goto fail;
    for (i = 0; i < n; i++) {
        const struct rec *r = v[i];
        uint64_t t0 = rec_start(r), us = t0 > base ? (t0 - base) / 1000u : 0;
        int sync = r->ddir >= LB_DDIR_N;
        if (iolog_line(b, "%" PRIu64 " %s %s %" PRIu64 " %" PRIu32 "\n", us,
                       s->names[r->file], act[r->ddir == LB_SYNC_OP ? 3 : sync ? 4 : r->ddir],
                       sync ? 0 : r->offset, sync ? 0 : r->len) < 0)
            goto fail;
    }
    for (unsigned f = 0; f < s->nnames; f++)
        if (iolog_line(b, "%" PRIu64 " %s close\n", (end - base) / 1000u, s->names[f]) < 0)
            goto fail;
    free(v);
    return 0;
fail:
    free(v);
    return -ENOMEM;
}

/* The text of one clone's log. */
static int clone_text(struct buf *b, const struct lb_iolog *g, const struct stream *s,
                      const char *kind, int offset, int bin)
{
    if (!strcmp(kind, "iolog"))
        return clone_iolog(b, g, s);
    for (const struct chunk *k = s->head; k; k = k->next)
        for (size_t i = 0; i < k->n; i++)
            if (k->r[i].t >= g->t_base && line(b, g, &k->r[i], kind, offset, bin) < 0)
                return -ENOMEM;
    return 0;
}

static int put(FILE *f, const struct buf *b, int compress, const char **why)
{
    if (!compress)
        return fwrite(b->p, 1, b->n, f) == b->n ? 0 : -1;
#ifdef LB_HAVE_ZLIB
    uLongf len = compressBound((uLong)b->n);
    Bytef *z = malloc(len ? len : 1);
    if (!z) {
        *why = "out of memory";
        return -1;
    }
    int rc = compress2(z, &len, (const Bytef *)b->p, (uLong)b->n, Z_DEFAULT_COMPRESSION);
    int ok = rc == Z_OK && fwrite(z, 1, len, f) == len;
    free(z);
    if (rc != Z_OK)
        *why = "zlib failed";
    return ok ? 0 : -1;
#else
    *why = "this build has no zlib";
    return -1;
#endif
}

/* One file: paths[c] for clone c, or every clone into path. */
static int write_one(lua_State *L, const struct lb_iolog *g, size_t j, const char *kind,
                     const char *path, unsigned c0, unsigned c1, int offset, int compress,
                     int append, bool allow)
{
    struct buf b = {0};
    for (unsigned c = c0; c < c1; c++)
        if (clone_text(&b, g, &g->s[j][c], kind, offset, compress) < 0) {
            free(b.p);
            return lb_failure_error(L, "cannot write log %s: out of memory", path);
        }
    /* as every result file: a user's file is not replaced unless allowed,
     * and nothing is written through a link */
    int rc = append ? 0 : lb_replace_allowed(path, allow);
    if (rc == -EPERM) {
        free(b.p);
        return lb_failure_error(L, "refusing to replace %s: not created by luabench (use "
                          "--allow-overwrite)", path);
    }
    int fd = rc < 0 ? -1 : open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC |
                                      (append ? O_APPEND : O_TRUNC), 0666);
    FILE *f = fd < 0 ? NULL : fdopen(fd, append ? "a" : "w");
    const char *why = NULL;
    int e = rc < 0 ? -rc : 0;
    if (!f) {
        e = e ? e : errno;
        if (fd >= 0)
            close(fd);
    } else {
        if (put(f, &b, compress, &why) < 0)
            e = errno ? errno : EIO;
        if (!e && !append)
            lb_file_mark(fd, path);
        if (fclose(f) != 0 && !e)
            e = errno;
    }
    free(b.p);
    if (e || why)
        return lb_failure_error(L, "cannot write log %s: %s", path, why ? why : strerror(e));
    return 0;
}

void lb_iolog_write(lua_State *L, struct lb_iolog *g, int ud)
{
    lua_getiuservalue(L, ud, 1);
    int list = lua_gettop(L);
    lua_newtable(L);                       /* paths written already: append */
    int seen = lua_gettop(L);
    for (lua_Integer i = 1; lua_geti(L, list, i) == LUA_TTABLE; i++) {
        int e = lua_gettop(L);
        lua_getfield(L, e, "job");
        size_t j = (size_t)lua_tointeger(L, -1) - 1;
        lua_getfield(L, e, "kind");
        const char *kind = luaL_checkstring(L, -1);
        lua_getfield(L, e, "offset");
        int offset = lua_toboolean(L, -1);
        lua_getfield(L, e, "compress");
        int compress = lua_toboolean(L, -1);
        lua_getfield(L, e, "allow");
        bool allow = lua_toboolean(L, -1);
        for (size_t c = 0; c < g->nclones[j]; c++)
            if (g->s[j][c].lost)
                luaL_error(L, "the I/O log of job %d lost entries: out of memory", (int)j + 1);
        lua_getfield(L, e, "path");
        int one = lua_isstring(L, -1);
        for (unsigned c = 0; c < (one ? 1 : g->nclones[j]); c++) {
            if (!one) {
                lua_pop(L, 1);
                lua_getfield(L, e, "paths");
                lua_geti(L, -1, (lua_Integer)c + 1);
                lua_remove(L, -2);
            }
            const char *path = luaL_checkstring(L, -1);
            lua_getfield(L, seen, path);
            int append = lua_toboolean(L, -1);
            lua_getfield(L, e, "append");           /* fio's write_iolog appends */
            append = append || lua_toboolean(L, -1);
            lua_pop(L, 2);
            write_one(L, g, j, kind, path, one ? 0 : c, one ? g->nclones[j] : c + 1,
                      offset, compress, append, allow);
            lua_pushboolean(L, 1);
            lua_setfield(L, seen, path);
        }
        lua_settop(L, e - 1);
    }
    lua_settop(L, list - 1);
}

/* lb.inflate(path) -> text | nil, message: the zlib streams of path
 * (one after another, as fio's .fz logs hold them) inflated. */
static int l_inflate(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
#ifdef LB_HAVE_ZLIB
    FILE *f = fopen(path, "rb");
    if (!f) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    struct buf out = {0};
    z_stream z;
    memset(&z, 0, sizeof z);
    int rc = inflateInit(&z), bad = rc != Z_OK;
    unsigned char in[65536], o[65536];
    size_t n;
    while (!bad && (n = fread(in, 1, sizeof in, f)) > 0) {
        z.next_in = in;
        z.avail_in = (uInt)n;
        while (z.avail_in > 0 && !bad) {
            z.next_out = o;
            z.avail_out = sizeof o;
            rc = inflate(&z, Z_NO_FLUSH);
            size_t got = sizeof o - z.avail_out;
            if (buf_room(&out, got) < 0) {
                bad = 2;
                break;
            }
            if (got) {                  /* out.p is NULL until the first bytes */
                memcpy(out.p + out.n, o, got);
                out.n += got;
            }
            if (rc == Z_STREAM_END) {
                inflateReset(&z);
            } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
                bad = 1;
            }
            if (rc == Z_BUF_ERROR && z.avail_out == sizeof o)
                break;
        }
    }
    int rerr = ferror(f);
    fclose(f);
    inflateEnd(&z);
    luaL_Buffer text;
    luaL_buffinit(L, &text);
    const unsigned char *p = (const unsigned char *)out.p;
    size_t at = 0;
    while (!bad && at + 32 <= out.n) {
        uint32_t dd = (uint32_t)get_le(p + at + 16, 4);
        int offset = (dd & SAMPLE_OFFSET_BIT) != 0;
        if (offset && at + 40 > out.n)
            break;
        char l[160];
        int n = text_line(l, sizeof l, get_le(p + at, 8), get_le(p + at + 8, 8),
                          dd & ~SAMPLE_OFFSET_BIT, get_le(p + at + 24, 8), offset,
                          offset ? get_le(p + at + 32, 8) : 0, (unsigned)get_le(p + at + 20, 2));
        luaL_addlstring(&text, l, (size_t)n);
        at += offset ? 40 : 32;
    }
    free(out.p);
    luaL_pushresult(&text);
    if (bad || rerr || at != out.n) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, rerr ? "read error" : bad == 2 ? "out of memory" :
                        "not a compressed fio log");
        return 2;
    }
    return 1;
#else
    lua_pushnil(L);
    lua_pushfstring(L, "%s: this build has no zlib: compressed logs are not read", path);
    return 2;
#endif
}

static int l_have_zlib(lua_State *L)
{
#ifdef LB_HAVE_ZLIB
    lua_pushboolean(L, 1);
#else
    lua_pushboolean(L, 0);
#endif
    return 1;
}

void lb_iolog_open(lua_State *L)
{
    lua_pushcfunction(L, l_inflate);
    lua_setfield(L, -2, "inflate");
    lua_pushcfunction(L, l_have_zlib);
    lua_setfield(L, -2, "have_zlib");
}
