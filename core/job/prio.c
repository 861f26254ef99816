/*
 * fio's I/O priority options (prio.h): prio, prioclass and the cmdprio_*
 * family, their check, and the draw that gives one I/O its priority.  The
 * engines that honour a per-I/O priority call the draw; the thread's own
 * priority is set by the worker.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/units.h"
#include "job/options_values.h"
#include "job/prio.h"

#define NDIR 2                   /* reads and writes: trims carry none */

unsigned lb_ioprio_value(unsigned cls, unsigned level)
{
    return (cls ? cls : LB_IOPRIO_BE) << LB_IOPRIO_CLASS_SHIFT | level;
}

unsigned lb_job_ioprio(const struct lb_job *j)
{
    return j->ioprio_set ? lb_ioprio_value(j->ioprio_class, j->ioprio_level) : 0;
}

bool lb_job_cmdprio(const struct lb_job *j)
{
    for (int d = 0; d < NDIR; d++)
        if (j->cmdprio_pct[d] || j->ncmdprio_split[d])
            return true;
    return false;
}

int lb_job_check_prio(const struct lb_job *j, char *err, size_t n)
{
    bool pct = false, split = false;

    for (int d = 0; d < NDIR; d++) {
        pct |= j->cmdprio_pct[d] != 0;
        split |= j->ncmdprio_split[d] != 0;
    }
    if (pct && split)
        return lb_opt_say(err, n, "cmdprio_percentage and cmdprio_bssplit are mutually "
                          "exclusive");
    return 0;
}

static unsigned implicit_prio(const struct lb_job *j, unsigned d)
{
    return lb_ioprio_value(j->cmdprio_class[d] ? j->cmdprio_class[d] : LB_IOPRIO_RT,
                           j->cmdprio_level[d]);
}

static unsigned add_unique(unsigned *out, unsigned n, unsigned v)
{
    for (unsigned i = 0; i < n; i++)
        if (out[i] == v)
            return n;
    if (n < LB_IOPRIO_SLOTS)
        out[n++] = v;
    return n;
}

unsigned lb_job_prios(const struct lb_job *j, unsigned ddir, unsigned out[LB_IOPRIO_SLOTS])
{
    unsigned n = add_unique(out, 0, lb_job_ioprio(j));

    if (ddir >= NDIR)
        return n;
    if (j->cmdprio_pct[ddir])
        n = add_unique(out, n, implicit_prio(j, ddir));
    for (uint32_t i = 0; i < j->ncmdprio_split[ddir]; i++) {
        int16_t p = j->cmdprio_split[ddir][i].prio;

        n = add_unique(out, n, p < 0 ? implicit_prio(j, ddir) : (unsigned)p);
    }
    return n;
}

/* The share of I/Os of ddir and len that cmdprio gives a priority, and
 * where that block size's entries begin (bssplit). */
static unsigned share(const struct lb_job *j, unsigned d, uint32_t len, uint32_t *first)
{
    unsigned sum = 0;

    if (j->cmdprio_pct[d])
        return j->cmdprio_pct[d];
    *first = UINT32_MAX;
    for (uint32_t i = 0; i < j->ncmdprio_split[d]; i++) {
        if (j->cmdprio_split[d][i].bs != len)
            continue;
        if (*first == UINT32_MAX)
            *first = i;
        sum += j->cmdprio_split[d][i].pct;
    }
    return sum;
}

bool lb_cmdprio_draw(const struct lb_job *j, struct lb_rng *r, unsigned ddir,
                     uint32_t len, unsigned *prio)
{
    unsigned implicit, p, x, sum = 0;
    uint32_t first = 0;

    if (ddir >= NDIR || !(p = share(j, ddir, len, &first)))
        return false;
    x = (unsigned)lb_rng_below(r, 100);
    if (x >= p)
        return false;
    implicit = implicit_prio(j, ddir);
    if (j->cmdprio_pct[ddir]) {
        *prio = implicit;
        return true;
    }
    for (uint32_t i = first; i < j->ncmdprio_split[ddir]; i++) {
        const struct lb_prio_split *e = &j->cmdprio_split[ddir][i];

        if (e->bs != len)
            continue;
        sum += e->pct;
        if (x < sum) {
            *prio = e->prio < 0 ? implicit : (unsigned)e->prio;
            return true;
        }
    }
    return false;
}

void lb_cmdprio_init(struct lb_cmdprio *c, const struct lb_job *j, unsigned clone)
{
    uint64_t k = j->randseed ^ ((uint64_t)clone << 32) ^ 0x70726f69u;

    c->job = j;
    c->on = lb_job_cmdprio(j);
    c->own = lb_job_ioprio(j);
    lb_rng_seed(&c->rng, lb_rng_splitmix64(&k));
}

/* ---- setters ---- */

static int parse_bounded(const char *v, unsigned lo, unsigned hi, unsigned *out,
                         char *err, size_t n)
{
    uint64_t x;

    if (!v || !*v || *v == '-' || lb_parse_u64(v, &x))
        return lb_opt_say(err, n, "not a whole number from %u to %u", lo, hi);
    if (x < lo || x > hi)
        return lb_opt_say(err, n, "must be from %u to %u", lo, hi);
    *out = (unsigned)x;
    return 0;
}

/* fio's read[,write] pair: one value is both. */
static int set_pair(uint32_t field[NDIR], const char *v, unsigned lo, unsigned hi,
                    char *err, size_t n)
{
    char *s = strdup(v ? v : ""), *comma;
    unsigned x[NDIR] = { 0, 0 };
    int rc;

    if (!s)
        return -ENOMEM;
    comma = strchr(s, ',');
    if (comma)
        *comma++ = '\0';
    if (comma && strchr(comma, ','))
        rc = lb_opt_say(err, n, "at most 2 comma-separated values (read,write)");
    else
        rc = parse_bounded(s, lo, hi, &x[0], err, n);
    if (!rc)
        rc = comma && *comma ? parse_bounded(comma, lo, hi, &x[1], err, n) : 0;
    if (!rc) {
        field[0] = x[0];
        field[1] = comma && *comma ? x[1] : x[0];
    }
    free(s);
    return rc;
}

/* prio or prioclass: either one gives the clones a priority of their own. */
static int set_own(struct lb_job *j, uint32_t *field, const char *v, unsigned hi,
                   char *err, size_t n)
{
    unsigned x = 0;
    int rc = parse_bounded(v, 0, hi, &x, err, n);

    if (!rc) {
        *field = x;
        j->ioprio_set = true;
    }
    return rc;
}

int lb_opt_set_prio(struct lb_job *j, const char *v, char *err, size_t n)
{
    return set_own(j, &j->ioprio_level, v, 7, err, n);
}

int lb_opt_set_prioclass(struct lb_job *j, const char *v, char *err, size_t n)
{
    return set_own(j, &j->ioprio_class, v, 3, err, n);
}

int lb_opt_set_cmdprio_percentage(struct lb_job *j, const char *v, char *err, size_t n)
{
    return set_pair(j->cmdprio_pct, v, 0, 100, err, n);
}

int lb_opt_set_cmdprio_class(struct lb_job *j, const char *v, char *err, size_t n)
{
    return set_pair(j->cmdprio_class, v, 1, 3, err, n);
}

int lb_opt_set_cmdprio(struct lb_job *j, const char *v, char *err, size_t n)
{
    return set_pair(j->cmdprio_level, v, 0, 7, err, n);
}

/* "bs/pct[/class/level]" (fio clamps pct, class and level to their
 * largest values, and so does this). */
static int split_entry(const struct lb_job *j, char *e, struct lb_prio_split *out,
                       char *err, size_t n)
{
    char whole[64], *f[4] = { e, NULL, NULL, NULL };
    uint64_t bs, x[3] = { 0, 0, 0 };
    int k = 1;

    snprintf(whole, sizeof whole, "%s", e);
    for (char *p = e; k < 4 && (p = strchr(p, '/')); k++) {
        *p++ = '\0';
        f[k] = p;
    }
    if (k == 3 || (k == 4 && strchr(f[3], '/')))
        return lb_opt_say(err, n, "'%s': use bs/percent or bs/percent/class/level",
                          whole);
    if (lb_parse_size(f[0], j->kb_base, &bs) || bs == 0 || bs > UINT32_MAX)
        return lb_opt_say(err, n, "'%s' is not a block size", f[0]);
    for (int i = 1; i < k; i++) {
        if (*f[i] && (*f[i] == '-' || lb_parse_u64(f[i], &x[i - 1])))
            return lb_opt_say(err, n, "'%s' is not a whole number", f[i]);
    }
    out->bs = (uint32_t)bs;
    out->pct = (uint16_t)(x[0] > 100 ? 100 : x[0]);
    out->prio = k == 4 ? (int16_t)lb_ioprio_value(x[1] > 3 ? 3 : (unsigned)x[1],
                                                  x[2] > 7 ? 7 : (unsigned)x[2]) : -1;
    return 0;
}

/* One direction's "entry:entry..."; entries of 0 percent are left out and
 * one block size's percentages may not pass 100. */
static int split_dir(const struct lb_job *j, char *s, struct lb_prio_split *out,
                     uint32_t *nout, char *err, size_t n)
{
    uint32_t k = 0;

    for (char *save = NULL, *e = strtok_r(s, ":", &save); e; e = strtok_r(NULL, ":", &save)) {
        if (k == LB_BSSPLIT_MAX)
            return lb_opt_say(err, n, "at most %d entries", LB_BSSPLIT_MAX);
        if (split_entry(j, e, &out[k], err, n))
            return -EINVAL;
        k += out[k].pct != 0;
    }
    for (uint32_t i = 1; i < k; i++) {       /* by block size, as fio's */
        struct lb_prio_split e = out[i];
        uint32_t m = i;

        for (; m > 0 && out[m - 1].bs > e.bs; m--)
            out[m] = out[m - 1];
        out[m] = e;
    }
    for (uint32_t i = 0; i < k; i++) {
        unsigned sum = 0;

        for (uint32_t m = 0; m < k; m++)
            sum += out[m].bs == out[i].bs ? out[m].pct : 0;
        if (sum > 100)
            return lb_opt_say(err, n, "the percentages of bs %u add up to %u (at most 100)",
                              out[i].bs, sum);
    }
    *nout = k;
    return 0;
}

/* fio's read[,write[,trim]] lists: one list is every direction's; trims
 * carry no priority. */
int lb_opt_set_cmdprio_bssplit(struct lb_job *j, const char *v, char *err, size_t n)
{
    struct lb_prio_split (*tmp)[LB_BSSPLIT_MAX] = calloc(NDIR, sizeof *tmp);
    char *s = strdup(v ? v : ""), *part[NDIR];
    uint32_t cnt[NDIR] = { 0, 0 };
    int rc = 0;

    if (!tmp || !s) {
        free(tmp);
        free(s);
        return -ENOMEM;
    }
    part[0] = s;
    part[1] = strchr(s, ',');
    if (part[1]) {
        *part[1]++ = '\0';
        char *trim = strchr(part[1], ',');
        if (trim)
            *trim = '\0';
    }
    for (int d = 0; d < NDIR && !rc; d++) {
        char *p = strdup(part[1] ? part[d] : part[0]);

        rc = p ? split_dir(j, p, tmp[d], &cnt[d], err, n) : -ENOMEM;
        free(p);
    }
    for (int d = 0; d < NDIR && !rc; d++) {
        j->ncmdprio_split[d] = cnt[d];
        memcpy(j->cmdprio_split[d], tmp[d], sizeof tmp[d]);
    }
    free(tmp);
    free(s);
    return rc;
}
