/*
 * How option values read: fio's units, booleans, choices, and the options
 * whose value has a shape of its own (per-direction lists "4k,8k", bsrange,
 * bssplit, rw's stride, random_distribution...).  Each setter parses the
 * whole value before it stores anything, so a bad value leaves the job as
 * it was, and writes only the reason of a failure ("must be at least 1");
 * options.c adds the option's name.  The table that points here is in
 * options.c.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/options_values.h"
#include "base/pattern.h"
#include "base/rng.h"
#include "base/units.h"

#define FIELD(j, o, T) ((T *)((char *)(j) + (o)->off))

int lb_opt_say(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

static char *dup_str(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* ---- value parsers: each writes only the reason of a failure ---- */

static const char NOT_SIZE[] = "not a size (use a number with k, m, g, t: 4k, 100G)";
static const char NOT_TIME[] = "not a time (use a number with us, ms, s, m, h: 100ms, 60s)";

static int parse_uint(const struct lb_job *j, const char *v, uint64_t *out,
                      char *err, size_t n)
{
    if (*v == '-')
        return lb_opt_say(err, n, "must not be negative");
    /* fio reads its integers with k, m... suffixes too: rate_iops=10k */
    if (lb_parse_u64(v, out) == 0 || lb_parse_size(v, j->kb_base, out) == 0)
        return 0;
    return lb_opt_say(err, n, "not a whole number");
}

static int parse_size(const struct lb_job *j, const char *v, uint64_t *out,
                      char *err, size_t n)
{
    if (*v == '-')
        return lb_opt_say(err, n, "must not be negative");
    return lb_parse_size(v, j->kb_base, out) ? lb_opt_say(err, n, NOT_SIZE) : 0;
}

static int parse_time(const char *v, uint64_t unit_us, uint64_t *out,
                      char *err, size_t n)
{
    if (*v == '-')
        return lb_opt_say(err, n, "must not be negative");
    return lb_parse_time_us(v, unit_us, out) ? lb_opt_say(err, n, NOT_TIME) : 0;
}

static int parse_bool(const char *v, bool *out, char *err, size_t n)
{
    int b = 1;
    if (*v && lb_parse_bool(v, &b))
        return lb_opt_say(err, n, "not a boolean (use 1/0, true/false, yes/no, on/off)");
    *out = b;
    return 0;
}

/* v's index in the "a|b|c" list, or -1. */
static int enum_index(const char *values, const char *v, size_t vlen)
{
    int i = 0;
    for (const char *p = values; *p; i++) {
        size_t l = strcspn(p, "|");
        if (l == vlen && strncmp(p, v, l) == 0)
            return i;
        p += l + (p[l] == '|');
    }
    return -1;
}

/* A probability: 0..1, or a percentage "5%". */
static int parse_prob(const char *v, double *out, char *err, size_t n)
{
    size_t l = strlen(v);
    double d;
    int pct = l && v[l - 1] == '%';
    char *s = dup_str(v, l - pct);
    if (!s)
        return -ENOMEM;
    int rc = lb_parse_double(s, &d);
    free(s);
    if (rc)
        return lb_opt_say(err, n, "not a probability (use 0.01 or 1%%)");
    if (pct)
        d /= 100;
    if (!(d >= 0 && d <= 1))
        return lb_opt_say(err, n, "must be between 0 and 1 (or 0%% and 100%%)");
    *out = d;
    return 0;
}

static void fmt_time(uint64_t us, char *buf, size_t len)
{
    if (us && us % 1000000 == 0)
        snprintf(buf, len, "%llus", (unsigned long long)(us / 1000000));
    else if (us && us % 1000 == 0)
        snprintf(buf, len, "%llums", (unsigned long long)(us / 1000));
    else
        snprintf(buf, len, "%lluus", (unsigned long long)us);
}

static int check_bounds(const struct lb_opt *o, uint64_t v, char *err, size_t n)
{
    uint64_t max = o->max ? o->max : o->type == LB_OPT_U32 ? UINT32_MAX : UINT64_MAX;
    uint64_t lim = v < o->min ? o->min : v > max ? max : v;
    char buf[32];
    if (lim == v)
        return 0;
    if (o->type == LB_OPT_TIME_S || o->type == LB_OPT_TIME_US)
        fmt_time(lim, buf, sizeof buf);
    else
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)lim);
    return lb_opt_say(err, n, "must be at %s %s", v < o->min ? "least" : "most", buf);
}

/* ---- the generic setter, by type ---- */

static int set_number(struct lb_job *j, const struct lb_opt *o, const char *v,
                      char *err, size_t n)
{
    uint64_t x;
    int rc;
    if (o->type == LB_OPT_SIZE)
        rc = parse_size(j, v, &x, err, n);
    else if (o->type == LB_OPT_TIME_S || o->type == LB_OPT_TIME_US)
        rc = parse_time(v, o->type == LB_OPT_TIME_S ? 1000000 : 1, &x, err, n);
    else
        rc = parse_uint(j, v, &x, err, n);
    if (rc || (rc = check_bounds(o, x, err, n)))
        return rc;
    if (o->type == LB_OPT_U32)
        *FIELD(j, o, uint32_t) = (uint32_t)x;
    else
        *FIELD(j, o, uint64_t) = x;
    return 0;
}

int lb_opt_set_generic(struct lb_job *j, const struct lb_opt *o, const char *v,
                       char *err, size_t n)
{
    int i;
    double d;
    char *s;
    switch (o->type) {
    case LB_OPT_BOOL:
        return parse_bool(v, FIELD(j, o, bool), err, n);
    case LB_OPT_STR:
        if (!(s = strdup(v)))
            return -ENOMEM;
        free(*FIELD(j, o, char *));
        *FIELD(j, o, char *) = s;
        return 0;
    case LB_OPT_ENUM:
        if ((i = enum_index(o->values, v, strlen(v))) < 0)
            return lb_opt_say(err, n, "expected %s", o->values);
        *FIELD(j, o, int) = i;
        return 0;
    case LB_OPT_DOUBLE:
        if (lb_parse_double(v, &d))
            return lb_opt_say(err, n, "not a number");
        *FIELD(j, o, double) = d;
        return 0;
    case LB_OPT_SPECIAL:
        return lb_opt_say(err, n, "no way to set it");
    default:
        return set_number(j, o, v, err, n);
    }
}

/* ---- options with a shape of their own ---- */

/* rw=read:8k: skip 8k after each I/O.  fio's randread:N means "N I/Os per
 * random offset", which has no field here, so it is refused. */
int lb_opt_set_rw(struct lb_job *j, const char *v, char *err, size_t n)
{
    size_t l = strcspn(v, ":");
    int rw = enum_index(LB_RW_VALUES "|readwrite", v, l);
    uint64_t skip = 0;
    if (rw < 0)
        return lb_opt_say(err, n, "expected read|write|trim|randread|randwrite|randtrim"
                          "|rw|readwrite|randrw|trimwrite|randtrimwrite");
    if (rw > LB_RW_RANDTRIMWRITE)        /* readwrite, fio's synonym of rw */
        rw = LB_RW_RW;
    if (v[l] && LB_RW_IS_RANDOM(rw))
        return lb_opt_say(err, n, "a ':' suffix is supported with sequential patterns only "
                          "(bytes skipped after each I/O)");
    if (v[l] && parse_size(j, v + l + 1, &skip, err, n))
        return -EINVAL;
    j->rw = rw;
    j->rw_skip = skip;
    return 0;
}

int lb_opt_set_rwmixwrite(struct lb_job *j, const char *v, char *err, size_t n)
{
    uint64_t x;
    if (parse_uint(j, v, &x, err, n))
        return -EINVAL;
    if (x > 100)
        return lb_opt_say(err, n, "must be at most 100");
    j->rwmixread = 100 - (uint32_t)x;
    return 0;
}

int lb_opt_set_buffered(struct lb_job *j, const char *v, char *err, size_t n)
{
    bool b = true;
    if (parse_bool(v, &b, err, n))
        return -EINVAL;
    j->direct = !b;
    return 0;
}

/* fio's scramble_buffers is on unless zero_buffers was given, and
 * refill_buffers on with compression unless given: what the user gave is
 * kept beside the value. */
static int set_given_bool(bool *f, struct lb_job *j, unsigned bit, const char *v,
                          char *err, size_t n)
{
    bool b = true;
    if (parse_bool(v, &b, err, n))
        return -EINVAL;
    *f = b;
    j->bufs_given |= (uint8_t)bit;
    return 0;
}

int lb_opt_set_zero_buffers(struct lb_job *j, const char *v, char *err, size_t n)
{
    return set_given_bool(&j->zero_buffers, j, LB_BUFS_GIVEN_ZERO, v, err, n);
}

int lb_opt_set_refill_buffers(struct lb_job *j, const char *v, char *err, size_t n)
{
    return set_given_bool(&j->refill_buffers, j, LB_BUFS_GIVEN_REFILL, v, err, n);
}

int lb_opt_set_scramble_buffers(struct lb_job *j, const char *v, char *err, size_t n)
{
    return set_given_bool(&j->scramble_buffers, j, LB_BUFS_GIVEN_SCRAMBLE, v, err, n);
}

/* Checked here, parsed again where the buffers are filled. */
int lb_opt_set_buffer_pattern(struct lb_job *j, const char *v, char *err, size_t n)
{
    uint8_t pat[LB_PATTERN_MAX];
    char *s;
    if (lb_pattern_parse(v, pat, err, n) < 0)
        return -EINVAL;
    if (!(s = strdup(v)))
        return -ENOMEM;
    free(j->buffer_pattern);
    j->buffer_pattern = s;
    return 0;
}

int lb_opt_set_dedupe_mode(struct lb_job *j, const char *v, char *err, size_t n)
{
    if (strcmp(v, "repeat") == 0) {
        j->dedupe_mode = LB_DEDUPE_REPEAT;
        return 0;
    }
    if (strcmp(v, "working_set") == 0)
        return lb_opt_say(err, n, "working_set is not supported (use repeat)");
    return lb_opt_say(err, n, "expected repeat");
}

/* fio's per-direction lists "read[,write[,trim]]": a part left empty keeps
 * the current value, parts not given repeat the last one given (bs=4k,8k
 * is 8k for writes and trims).  Splits s in place. */
static int ddir_parts(char *s, const char *part[LB_DDIR_N], char *err, size_t n)
{
    int k = 0;
    for (char *p = s;; p++) {
        if (k == LB_DDIR_N)
            return lb_opt_say(err, n, "at most 3 comma-separated values (read,write,trim)");
        part[k++] = p;
        if (!(p = strchr(p, ',')))
            break;
        *p = '\0';
    }
    for (int d = k; d < LB_DDIR_N; d++)
        part[d] = part[k - 1];
    return 0;
}

static int parse_bs(const struct lb_job *j, const char *v, uint32_t *out,
                    char *err, size_t n)
{
    uint64_t x;
    if (parse_size(j, v, &x, err, n))
        return -EINVAL;
    if (x < 1 || x > UINT32_MAX)
        return lb_opt_say(err, n, x ? "must be at most 4g" : "must be at least 1");
    *out = (uint32_t)x;
    return 0;
}

/* lo-hi (fio also takes lo:hi) */
static int parse_bs_range(const struct lb_job *j, char *v, uint32_t r[2],
                          char *err, size_t n)
{
    char *sep = strpbrk(v, "-:");
    if (!sep)
        return lb_opt_say(err, n, "not a range (use min-max: 4k-64k)");
    *sep = '\0';
    if (parse_bs(j, v, &r[0], err, n) || parse_bs(j, sep + 1, &r[1], err, n))
        return -EINVAL;
    if (r[0] > r[1])
        return lb_opt_say(err, n, "the minimum is larger than the maximum");
    return 0;
}

/* Parses every part into lo/hi first, so that a bad part changes nothing. */
typedef int (*ddir_parse_fn)(const struct lb_job *j, char *part, void *out,
                             char *err, size_t n);

static int parse_ddir_list(const struct lb_job *j, const char *v, ddir_parse_fn fn,
                           void *outs, size_t outsize, bool given[LB_DDIR_N],
                           char *err, size_t n)
{
    const char *part[LB_DDIR_N];
    char *s = strdup(v), *p = NULL;
    int rc = s ? ddir_parts(s, part, err, n) : -ENOMEM;
    for (int d = 0; d < LB_DDIR_N && !rc; d++) {
        given[d] = part[d][0] != '\0';
        if (given[d] && !(rc = (p = strdup(part[d])) ? 0 : -ENOMEM))
            rc = fn(j, p, (char *)outs + d * outsize, err, n);
        free(p);
        p = NULL;
    }
    free(s);
    return rc;
}

static int bs_one(const struct lb_job *j, char *p, void *out, char *err, size_t n)
{
    uint32_t *r = out;
    if (parse_bs(j, p, &r[0], err, n))
        return -EINVAL;
    r[1] = r[0];
    return 0;
}

static int bsrange_one(const struct lb_job *j, char *p, void *out, char *err, size_t n)
{
    return parse_bs_range(j, p, out, err, n);
}

/* bs and bsrange are fio's bs and min_bs/max_bs: a direction bsrange gave
 * keeps its range whatever bs says, before or after it. */
static int set_bs_with(struct lb_job *j, const char *v, ddir_parse_fn fn, bool range,
                       char *err, size_t n)
{
    uint32_t r[LB_DDIR_N][2];
    bool given[LB_DDIR_N];
    int rc = parse_ddir_list(j, v, fn, r, sizeof r[0], given, err, n);
    for (int d = 0; d < LB_DDIR_N && !rc; d++) {
        if (given[d] && (range || !j->bs_ranged[d])) {
            j->bs_min[d] = r[d][0];
            j->bs_max[d] = r[d][1];
            j->bs_ranged[d] |= range;
        }
    }
    return rc;
}

int lb_opt_set_bs(struct lb_job *j, const char *v, char *err, size_t n)
{
    return set_bs_with(j, v, bs_one, false, err, n);
}

int lb_opt_set_bsrange(struct lb_job *j, const char *v, char *err, size_t n)
{
    return set_bs_with(j, v, bsrange_one, true, err, n);
}

struct split {
    uint32_t n;
    struct lb_bssplit e[LB_BSSPLIT_MAX];
};

/* Shares what the given percentages leave among the entries without one
 * (the first ones get the odd points); with none, the last entry takes the
 * rest, which is what fio's draw does. */
static int split_normalise(struct split *s, char *err, size_t n)
{
    uint32_t sum = 0, missing = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        sum += s->e[i].pct;
        missing += s->e[i].pct == 0;
    }
    if (sum > 100)
        return lb_opt_say(err, n, "percentages add up to %u (at most 100)", sum);
    uint32_t left = 100 - sum, k = 0;
    for (uint32_t i = 0; i < s->n && missing; i++) {
        if (s->e[i].pct == 0)
            s->e[i].pct = left / missing + (k++ < left % missing);
    }
    if (!missing)
        s->e[s->n - 1].pct += left;
    return 0;
}

/* "4k/10:64k/50:32k" (fio: a missing or zero percent shares the rest) */
static int split_one(const struct lb_job *j, char *p, void *out, char *err, size_t n)
{
    struct split *s = out;
    s->n = 0;
    for (char *save = NULL, *e = strtok_r(p, ":", &save); e; e = strtok_r(NULL, ":", &save)) {
        char *slash = strchr(e, '/');
        uint64_t pct = 0;
        if (s->n == LB_BSSPLIT_MAX)
            return lb_opt_say(err, n, "at most %d block sizes", LB_BSSPLIT_MAX);
        if (slash)
            *slash = '\0';
        if (parse_bs(j, e, &s->e[s->n].bs, err, n))
            return -EINVAL;
        if (slash && slash[1] && (slash[1] == '-' || lb_parse_u64(slash + 1, &pct)))
            return lb_opt_say(err, n, "'%s' is not a percentage", slash + 1);
        if (pct > 100)
            return lb_opt_say(err, n, "a percentage is over 100");
        s->e[s->n++].pct = (uint32_t)pct;
    }
    if (s->n == 0)
        return lb_opt_say(err, n, "no block sizes (use 4k/10:64k/90)");
    return split_normalise(s, err, n);
}

static void apply_split(struct lb_job *j, int d, const struct split *s)
{
    j->nbssplit[d] = s->n;
    j->bs_min[d] = UINT32_MAX;
    j->bs_max[d] = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        j->bssplit[d][i] = s->e[i];
        if (s->e[i].bs < j->bs_min[d])
            j->bs_min[d] = s->e[i].bs;
        if (s->e[i].bs > j->bs_max[d])
            j->bs_max[d] = s->e[i].bs;
    }
}

int lb_opt_set_bssplit(struct lb_job *j, const char *v, char *err, size_t n)
{
    struct split *s = malloc(LB_DDIR_N * sizeof *s);
    bool given[LB_DDIR_N];
    int rc = s ? parse_ddir_list(j, v, split_one, s, sizeof *s, given, err, n) : -ENOMEM;
    for (int d = 0; d < LB_DDIR_N && !rc; d++) {
        if (given[d])
            apply_split(j, d, &s[d]);
    }
    free(s);
    return rc;
}

static int rate_one(const struct lb_job *j, char *p, void *out, char *err, size_t n)
{
    return parse_size(j, p, out, err, n);
}

static int iops_one(const struct lb_job *j, char *p, void *out, char *err, size_t n)
{
    return parse_uint(j, p, out, err, n);
}

static int set_u64_ddir(struct lb_job *j, uint64_t *field, const char *v,
                        ddir_parse_fn fn, char *err, size_t n)
{
    uint64_t r[LB_DDIR_N];
    bool given[LB_DDIR_N];
    int rc = parse_ddir_list(j, v, fn, r, sizeof r[0], given, err, n);
    for (int d = 0; d < LB_DDIR_N && !rc; d++) {
        if (given[d])
            field[d] = r[d];
    }
    return rc;
}

int lb_opt_set_rate(struct lb_job *j, const char *v, char *err, size_t n)
{
    return set_u64_ddir(j, j->rate, v, rate_one, err, n);
}

int lb_opt_set_rate_iops(struct lb_job *j, const char *v, char *err, size_t n)
{
    return set_u64_ddir(j, j->rate_iops, v, iops_one, err, n);
}

static int pct_one(const struct lb_job *j, char *p, void *out, char *err, size_t n)
{
    if (parse_uint(j, p, out, err, n))
        return -EINVAL;
    return *(uint64_t *)out > 100 ? lb_opt_say(err, n, "must be at most 100") : 0;
}

/* fio's percentage_random: read,write,trim as bs's list (a,b is b for trims) */
int lb_opt_set_percentage_random(struct lb_job *j, const char *v, char *err, size_t n)
{
    uint64_t r[LB_DDIR_N];
    bool given[LB_DDIR_N];
    int rc = parse_ddir_list(j, v, pct_one, r, sizeof r[0], given, err, n);
    for (int d = 0; d < LB_DDIR_N && !rc; d++) {
        if (given[d])
            j->perc_rand[d] = (uint32_t)r[d];
    }
    return rc;
}

static int usec_one(const struct lb_job *j, char *p, void *out, char *err, size_t n)
{
    (void)j;
    return parse_time(p, 1, out, err, n);
}

int lb_opt_set_max_latency(struct lb_job *j, const char *v, char *err, size_t n)
{
    return set_u64_ddir(j, j->max_latency, v, usec_one, err, n);
}

/* write_hint: the kernel's RWH_WRITE_LIFE_NONE (1) to _EXTREME (5); 0 is
 * "not given", where no fcntl is made, as in fio. */
int lb_opt_set_write_hint(struct lb_job *j, const char *v, char *err, size_t n)
{
    const char *values = "none|short|medium|long|extreme";
    int i = enum_index(values, v, strlen(v));
    if (i < 0)
        return lb_opt_say(err, n, "expected %s", values);
    j->write_hint = i + 1;
    return 0;
}

int lb_opt_set_nice(struct lb_job *j, const char *v, char *err, size_t n)
{
    char *end;
    long x;

    errno = 0;
    x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < -20 || x > 19)
        return lb_opt_say(err, n, "expected a nice value from -20 to 19");
    j->nice = (int)x;
    return 0;
}

int lb_opt_set_rate_min(struct lb_job *j, const char *v, char *err, size_t n)
{
    return set_u64_ddir(j, j->rate_min, v, rate_one, err, n);
}

int lb_opt_set_rate_iops_min(struct lb_job *j, const char *v, char *err, size_t n)
{
    return set_u64_ddir(j, j->rate_iops_min, v, iops_one, err, n);
}

int lb_opt_set_size(struct lb_job *j, const char *v, char *err, size_t n)
{
    uint64_t x;
    int pct;
    if (*v == '-')
        return lb_opt_say(err, n, "must not be negative");
    if (lb_parse_size_pct(v, j->kb_base, &x, &pct))
        return lb_opt_say(err, n, NOT_SIZE);
    if (pct && (x == 0 || x > 100000))
        return lb_opt_say(err, n, "a percentage must be over 0 and at most 100");
    j->size = pct ? 0 : x;
    j->size_pct = pct ? (uint32_t)x : 0;
    return 0;
}

/* offset and offset_increment: a size, or fio's whole percentage of the
 * file (fio 3.33 reads "20.5%" as 20 bytes: refused here). */
static int size_or_pct(const struct lb_job *j, const char *v, uint64_t *size, uint32_t *pct,
                       char *err, size_t n)
{
    uint64_t x;
    int is_pct;

    if (*v == '-')
        return lb_opt_say(err, n, "must not be negative");
    if (lb_parse_size_pct(v, j->kb_base, &x, &is_pct))
        return lb_opt_say(err, n, "not a size or a percentage (4k, 100G, 20%%)");
    if (is_pct && (x % 1000 || x > 100000))
        return lb_opt_say(err, n, "a percentage must be a whole number from 0 to 100");
    *size = is_pct ? 0 : x;
    *pct = is_pct ? (uint32_t)(x / 1000) : 0;
    return 0;
}

int lb_opt_set_offset(struct lb_job *j, const char *v, char *err, size_t n)
{
    return size_or_pct(j, v, &j->offset, &j->offset_pct, err, n);
}

int lb_opt_set_offset_increment(struct lb_job *j, const char *v, char *err, size_t n)
{
    return size_or_pct(j, v, &j->offset_increment, &j->offset_increment_pct, err, n);
}

int lb_opt_set_kb_base(struct lb_job *j, const char *v, char *err, size_t n)
{
    if (strcmp(v, "1024") && strcmp(v, "1000"))
        return lb_opt_say(err, n, "expected 1024|1000");
    j->kb_base = strcmp(v, "1024") == 0 ? 1024 : 1000;
    return 0;
}

/* fio's random:N (switch files after N I/Os) is accepted; N is not used. */
int lb_opt_set_file_service_type(struct lb_job *j, const char *v, char *err, size_t n)
{
    size_t l = strcspn(v, ":");
    int i = enum_index("roundrobin|sequential|random", v, l);
    uint64_t nr;
    if (i < 0)
        return lb_opt_say(err, n, "expected roundrobin|sequential|random");
    if (v[l] && lb_parse_u64(v + l + 1, &nr))
        return lb_opt_say(err, n, "expected a number of I/Os after ':'");
    j->file_service_type = i;
    return 0;
}

struct dist {
    const char *name;
    enum lb_dist_kind kind;
    double def;              /* parameter when none is given; < 0: required */
    double lo, hi;           /* lo < parameter <= hi (pareto: < hi) */
    const char *range;
};

static const struct dist dists[] = {
    { "random", LB_DIST_RANDOM, 0, 0, 0, NULL },
    { "zipf", LB_DIST_ZIPF, 1.1, 0, INFINITY, "zipf's theta must be over 0" },
    { "pareto", LB_DIST_PARETO, 0.2, 0, 1, "pareto's h must be between 0 and 1" },
    { "normal", LB_DIST_NORMAL, -1, 0, 100,
      "normal's sigma must be over 0 and at most 100 (percent of the range)" },
};

static int dist_param(const struct dist *d, const char *p, double *out,
                      char *err, size_t n)
{
    if (!p && d->def < 0)
        return lb_opt_say(err, n, "%s needs a parameter: %s:5", d->name, d->name);
    if (!p) {
        *out = d->def;
        return 0;
    }
    if (d->kind == LB_DIST_RANDOM)
        return lb_opt_say(err, n, "random takes no parameter");
    if (lb_parse_double(p, out))
        return lb_opt_say(err, n, "'%s' is not a number", p);
    if (!(*out > d->lo && *out <= d->hi && isfinite(*out))
        || (d->kind == LB_DIST_PARETO && *out == d->hi))
        return lb_opt_say(err, n, "%s", d->range);
    return 0;
}

int lb_opt_set_random_distribution(struct lb_job *j, const char *v, char *err, size_t n)
{
    size_t l = strcspn(v, ":");
    for (size_t i = 0; i < sizeof dists / sizeof dists[0]; i++) {
        double p;
        if (strlen(dists[i].name) != l || strncmp(dists[i].name, v, l))
            continue;
        if (dist_param(&dists[i], v[l] ? v + l + 1 : NULL, &p, err, n))
            return -EINVAL;
        j->random_distribution = dists[i].kind;
        j->random_param = p;
        return 0;
    }
    return lb_opt_say(err, n, "expected random|zipf:theta|pareto:h|normal:sigma");
}

int lb_opt_set_continue_on_error(struct lb_job *j, const char *v, char *err, size_t n)
{
    static const char *const names[] = {
        "none", "read", "write", "io", "verify", "all", "0", "1",
    };
    static const uint32_t bits[] = {
        0, LB_COE_READ, LB_COE_WRITE, LB_COE_READ | LB_COE_WRITE, LB_COE_VERIFY,
        LB_COE_READ | LB_COE_WRITE | LB_COE_VERIFY, 0,
        LB_COE_READ | LB_COE_WRITE | LB_COE_VERIFY,
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(v, names[i]) == 0) {
            j->continue_on_error = bits[i];
            return 0;
        }
    }
    return lb_opt_say(err, n, "expected none|read|write|io|verify|all (or 0, 1)");
}

/* fio's names for ignore_error (options.c str2error): the errnos 1 to 34
 * in their order, so a name's errno is its index plus one. */
static const char *const errno_names[] = {
    "EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG", "ENOEXEC", "EBADF",
    "ECHILD", "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK", "EBUSY", "EEXIST",
    "EXDEV", "ENODEV", "ENOTDIR", "EISDIR", "EINVAL", "ENFILE", "EMFILE", "ENOTTY",
    "ETXTBSY", "EFBIG", "ENOSPC", "ESPIPE", "EROFS", "EMLINK", "EPIPE", "EDOM", "ERANGE",
};

/* One errno of a list: one of those names, or a number (its sign dropped). */
static int errno_one(const char *p, int *out, char *err, size_t n)
{
    long x = 0;
    if (p[0] == 'E') {
        for (size_t i = 0; i < sizeof errno_names / sizeof errno_names[0]; i++)
            if (strcmp(p, errno_names[i]) == 0)
                x = (long)i + 1;
    } else {
        x = labs(strtol(p, NULL, 10));      /* atoi's reading, as fio's */
    }
    if (x <= 0 || x > INT_MAX)
        return lb_opt_say(err, n, "unknown error %s, please use number value", p);
    *out = (int)x;
    return 0;
}

/* One error type's "E1:E2:..."; its first empty name ends it, as in fio. */
static int ignore_list(char *s, int *errs, uint32_t *count, char *err, size_t n)
{
    uint32_t k = 0;
    for (char *p; (p = strsep(&s, ":")) && *p;) {
        if (k == LB_IGNORE_MAX)
            return lb_opt_say(err, n, "at most %d errors in a list", LB_IGNORE_MAX);
        if (errno_one(p, &errs[k], err, n))
            return -EINVAL;
        k++;
    }
    *count = k;
    return 0;
}

/* fio's ignore_error=READ_LIST,WRITE_LIST,VERIFY_LIST: a type with a list
 * continues on the errnos it names (its continue_on_error bit set), in
 * place of the default EIO and EILSEQ; an empty list leaves the type as
 * it was.  A missing list is not copied from the one before it. */
int lb_opt_set_ignore_error(struct lb_job *j, const char *v, char *err, size_t n)
{
    static const uint32_t bit[LB_ERRT_N] = { LB_COE_READ, LB_COE_WRITE, LB_COE_VERIFY };
    int errs[LB_ERRT_N][LB_IGNORE_MAX];
    uint32_t count[LB_ERRT_N] = { 0 };
    char *s = strdup(v), *rest = s, *part;
    int t = 0, rc = s ? 0 : -ENOMEM;

    while (!rc && rest) {
        part = strsep(&rest, ",");
        if (t == LB_ERRT_N)
            rc = lb_opt_say(err, n, "at most 3 comma-separated lists (read,write,verify)");
        else
            rc = ignore_list(part, errs[t], &count[t], err, n);
        t++;
    }
    free(s);
    for (t = 0; t < LB_ERRT_N && !rc; t++) {
        if (!count[t])
            continue;
        memcpy(j->ignore_error[t], errs[t], count[t] * sizeof errs[t][0]);
        j->nignore_error[t] = count[t];
        j->continue_on_error |= bit[t];
    }
    return rc;
}

int lb_opt_set_verify(struct lb_job *j, const char *v, char *err, size_t n)
{
    int i = enum_index("none|crc32c|md5|pattern|meta", v, strlen(v));
    if (strcmp(v, "0") == 0)
        i = LB_VERIFY_NONE;
    else if (strcmp(v, "crc32c-intel") == 0)
        i = LB_VERIFY_CRC32C;
    if (i < 0)
        return lb_opt_say(err, n, "expected none|crc32c|md5|pattern|meta (or 0, crc32c-intel)");
    j->verify = i;
    return 0;
}

/* 0xdeadbeef or decimal; fio's quoted strings are not taken.  Like fio, a
 * pattern turns verify=pattern on when no other method was chosen. */
int lb_opt_set_verify_pattern(struct lb_job *j, const char *v, char *err, size_t n)
{
    bool hex = v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
    const char *digits = hex ? v + 2 : v;
    char *end;
    if (!*digits || strspn(digits, hex ? "0123456789abcdefABCDEF" : "0123456789")
        != strlen(digits))
        return lb_opt_say(err, n, "not a pattern (use a number: 0xdeadbeef)");
    errno = 0;
    unsigned long long x = strtoull(digits, &end, hex ? 16 : 10);
    if (errno)
        return lb_opt_say(err, n, "must fit in 64 bits");
    j->verify_pattern = x;
    if (j->verify == LB_VERIFY_NONE)
        j->verify = LB_VERIFY_PATTERN;
    return 0;
}

/* "0-3,8": CPU numbers and ranges separated by commas */
static int valid_cpu_list(const char *v)
{
    const char *p = v;
    while (*p) {
        size_t a = strspn(p, "0123456789");
        if (!a)
            return 0;
        p += a;
        if (*p == '-') {
            size_t b = strspn(++p, "0123456789");
            if (!b)
                return 0;
            p += b;
        }
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            return 0;
    }
    return 1;
}

int lb_opt_set_cpus_allowed(struct lb_job *j, const char *v, char *err, size_t n)
{
    char *s;
    if (!valid_cpu_list(v))
        return lb_opt_say(err, n, "not a CPU list (use 0-3,8)");
    if (!(s = strdup(v)))
        return -ENOMEM;
    free(j->cpus_allowed);
    j->cpus_allowed = s;
    return 0;
}

/* A time stored in ns: "1500ns", "200us", "1ms"; a bare number is ns. */
int lb_opt_set_null_lat(struct lb_job *j, const char *v, char *err, size_t n)
{
    size_t l = strlen(v), digits = strspn(v, "0123456789");
    uint64_t x = 0;
    char *num = NULL;
    int rc;
    if (*v == '-')
        return lb_opt_say(err, n, "must not be negative");
    if (digits && (l == digits || strcmp(v + digits, "ns") == 0 ||
                   strcmp(v + digits, "nsec") == 0)) {
        if (!(num = dup_str(v, digits)))
            return -ENOMEM;
        rc = lb_parse_u64(num, &x);
        free(num);
    } else {
        rc = lb_parse_time_us(v, 1, &x);
        if (!rc && x > UINT64_MAX / 1000)
            rc = -ERANGE;
        x *= 1000;
    }
    if (rc)
        return lb_opt_say(err, n, "not a time (use a number with ns, us, ms: 200us, 1500ns)");
    j->null_lat = x;
    return 0;
}

#define PROB_SETTER(f)                                                      \
    int lb_opt_set_##f(struct lb_job *j, const char *v, char *err, size_t n) \
    {                                                                       \
        return parse_prob(v, &j->f, err, n);                                \
    }
PROB_SETTER(fault_eio)
PROB_SETTER(fault_short)
PROB_SETTER(fault_enospc)
PROB_SETTER(fault_delay)
