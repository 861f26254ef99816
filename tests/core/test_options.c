/* Description: option parsing.  Every option in the table can be set from a
 * string and lands in its field; fio's shapes (bs lists, bsrange, bssplit,
 * rw strides, units, times, booleans) parse as fio reads them; bad input
 * gets the one-line message a user sees; lb_job_check refuses the
 * combinations that cannot run; copies are deep; --help names every option. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "rng.h"

#include "check.h"

static char err[512];

/* Sets name=value on j and expects success. */
static void set_ok(struct lb_job *j, const char *name, const char *value)
{
    int rc = lb_job_set(j, name, value, err, sizeof err);
    CHECK(rc == 0, "setting %s=%s: %d %s", name, value, rc, err);
}

/* Sets name=value on a fresh job and expects exactly message msg. */
static void set_fails(const char *name, const char *value, const char *msg)
{
    struct lb_job j;
    lb_job_init(&j);
    int rc = lb_job_set(&j, name, value, err, sizeof err);
    CHECK(rc < 0 && strcmp(err, msg) == 0, "%s=%s: got %d '%s', want '%s'", name, value,
          rc, err, msg);
    lb_job_free(&j);
}

/* Expects lb_job_check to refuse j with exactly msg (NULL: to accept it). */
static void check_says(const struct lb_job *j, const char *msg, int line)
{
    int rc = lb_job_check(j, err, sizeof err);
    CHECK(msg ? rc == -EINVAL && strcmp(err, msg) == 0 : rc == 0,
          "line %d: check gave %d '%s', want '%s'", line, rc, err, msg ? msg : "");
}

static void test_defaults(void)
{
    struct lb_job j;
    lb_job_init(&j);
    CHECK(j.ioengine && strcmp(j.ioengine, "psync") == 0);
    CHECK(j.rw == LB_RW_READ && j.rw_skip == 0);
    for (int d = 0; d < LB_DDIR_N; d++)
        CHECK(j.bs_min[d] == 4096 && j.bs_max[d] == 4096 && j.nbssplit[d] == 0);
    CHECK(j.iodepth == 1 && j.numjobs == 1 && j.rwmixread == 50);
    CHECK(j.nrfiles == 1 && j.loops == 1 && j.randrepeat);
    CHECK(j.interval == 1000000 && j.kb_base == 1024);
    CHECK(j.iodepth_batch_submit == 1 && j.iodepth_batch_complete_min == 1);
    CHECK(j.iodepth_batch_complete_max == 0 && j.continue_on_error == 0);
    CHECK(!j.direct && j.size == 0 && j.runtime == 0 && !j.time_based);
    CHECK(j.name == NULL && j.filename == NULL && j.verify == LB_VERIFY_NONE);
    CHECK(j.random_distribution == LB_DIST_RANDOM);
    check_says(&j, NULL, __LINE__);
    lb_job_free(&j);
    lb_job_free(&j);            /* twice is safe */
}

/* ---- every option, set and read back ---- */

/* Options with a set function of their own: a sample and what it gives. */
static const char *const samples[][2] = {
    { "kb_base", "1000" }, { "rw", "randwrite" }, { "rwmixwrite", "30" },
    { "bs", "8k" }, { "bsrange", "1k-8k" }, { "bssplit", "4k/25:8k" },
    { "buffered", "0" }, { "cpus_allowed", "0-3,8" },
    { "file_service_type", "random:4" }, { "size", "1g" }, { "rate", "1m" },
    { "rate_iops", "500" }, { "rate_min", "1m,2m" }, { "rate_iops_min", "50" },
    { "percentage_random", "30,70" }, { "offset", "20%" }, { "offset_increment", "8k" },
    { "random_distribution", "zipf:1.2" }, { "nice", "-5" },
    { "continue_on_error", "io" }, { "verify", "md5" },
    { "ignore_error", "EAGAIN,ENOSPC:122" }, { "write_hint", "long" }, { "max_latency", "5ms,1" },
    { "verify_pattern", "0xdeadbeef" }, { "null_lat", "200us" },
    { "fault_eio", "1%" }, { "fault_short", "0.5" }, { "fault_enospc", "0.25" },
    { "fault_delay", "100%" }, { "prio", "3" }, { "prioclass", "1" },
    { "cmdprio_percentage", "20,30" }, { "cmdprio_class", "3" }, { "cmdprio", "5,6" },
    { "cmdprio_bssplit", "64k/75/3/2:1m/0:64k/25/1/1" },
    { "zero_buffers", "1" }, { "refill_buffers", "yes" }, { "scramble_buffers", "0" },
    { "buffer_pattern", "0xdeadbeef\"ab\"-12" }, { "dedupe_mode", "repeat" },
};

static bool sample_landed(const char *name, const struct lb_job *j)
{
#define IS(nm, expr) if (strcmp(name, nm) == 0) return (expr)
    IS("kb_base", j->kb_base == 1000);
    IS("rw", j->rw == LB_RW_RANDWRITE);
    IS("rwmixwrite", j->rwmixread == 70);
    IS("bs", j->bs_min[0] == 8192 && j->bs_max[2] == 8192);
    IS("bsrange", j->bs_min[1] == 1024 && j->bs_max[1] == 8192);
    IS("bssplit", j->nbssplit[0] == 2 && j->bssplit[2][1].pct == 75);
    IS("prio", j->ioprio_set && j->ioprio_level == 3);
    IS("prioclass", j->ioprio_set && j->ioprio_class == 1);
    IS("cmdprio_percentage", j->cmdprio_pct[0] == 20 && j->cmdprio_pct[1] == 30);
    IS("cmdprio_class", j->cmdprio_class[0] == 3 && j->cmdprio_class[1] == 3);
    IS("cmdprio", j->cmdprio_level[0] == 5 && j->cmdprio_level[1] == 6);
    /* the 0 percent entry left out; both directions; fio's values */
    IS("cmdprio_bssplit", j->ncmdprio_split[1] == 2 && j->cmdprio_split[1][1].pct == 25 &&
                          j->cmdprio_split[1][0].prio == (3 << 13 | 2) &&
                          j->cmdprio_split[0][1].prio == (1 << 13 | 1));
    IS("zero_buffers", j->zero_buffers && j->bufs_given == LB_BUFS_GIVEN_ZERO);
    IS("refill_buffers", j->refill_buffers && j->bufs_given == LB_BUFS_GIVEN_REFILL);
    IS("scramble_buffers", !j->scramble_buffers && j->bufs_given == LB_BUFS_GIVEN_SCRAMBLE);
    IS("buffer_pattern", strcmp(j->buffer_pattern, "0xdeadbeef\"ab\"-12") == 0);
    IS("dedupe_mode", j->dedupe_mode == LB_DEDUPE_REPEAT);
    IS("buffered", j->direct);
    IS("cpus_allowed", strcmp(j->cpus_allowed, "0-3,8") == 0);
    IS("file_service_type", j->file_service_type == LB_FST_RANDOM);
    IS("size", j->size == 1ull << 30 && j->size_pct == 0);
    IS("rate", j->rate[0] == 1 << 20 && j->rate[2] == 1 << 20);
    IS("rate_iops", j->rate_iops[0] == 500 && j->rate_iops[1] == 500);
    IS("offset", j->offset == 0 && j->offset_pct == 20);
    IS("offset_increment", j->offset_increment == 8192 && j->offset_increment_pct == 0);
    IS("percentage_random", j->perc_rand[0] == 30 && j->perc_rand[1] == 70 &&
       j->perc_rand[2] == 70);
    IS("nice", j->nice == -5);
    IS("rate_min", j->rate_min[0] == 1 << 20 && j->rate_min[1] == 2 << 20);
    IS("rate_iops_min", j->rate_iops_min[0] == 50 && j->rate_iops_min[2] == 50);
    IS("random_distribution", j->random_distribution == LB_DIST_ZIPF && j->random_param == 1.2);
    IS("continue_on_error", j->continue_on_error == (LB_COE_READ | LB_COE_WRITE));
    IS("ignore_error", j->continue_on_error == (LB_COE_READ | LB_COE_WRITE) &&
       j->nignore_error[0] == 1 && j->ignore_error[0][0] == EAGAIN &&
       j->nignore_error[1] == 2 && j->ignore_error[1][0] == ENOSPC &&
       j->ignore_error[1][1] == 122 && j->nignore_error[2] == 0);
    IS("write_hint", j->write_hint == 4);
    IS("max_latency", j->max_latency[0] == 5000 && j->max_latency[1] == 1 &&
       j->max_latency[2] == 1);
    IS("verify", j->verify == LB_VERIFY_MD5);
    IS("verify_pattern", j->verify_pattern == 0xdeadbeef && j->verify == LB_VERIFY_PATTERN);
    IS("null_lat", j->null_lat == 200000);
    IS("fault_eio", fabs(j->fault_eio - 0.01) < 1e-12);
    IS("fault_short", j->fault_short == 0.5);
    IS("fault_enospc", j->fault_enospc == 0.25);
    IS("fault_delay", j->fault_delay == 1.0);
#undef IS
    fprintf(stderr, "no check for option '%s'\n", name);
    return false;
}

static const char *sample_of(const char *name)
{
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        if (strcmp(samples[i][0], name) == 0)
            return samples[i][1];
    }
    return NULL;
}

/* By type: a value, and whether the field now holds it. */
static bool generic_round_trip(const struct lb_opt *o, struct lb_job *j)
{
    void *f = (char *)j + o->off;
    bool was;
    switch (o->type) {
    case LB_OPT_BOOL:
        was = *(bool *)f;
        set_ok(j, o->name, was ? "off" : "yes");
        return *(bool *)f == !was;
    case LB_OPT_U32: set_ok(j, o->name, "7"); return *(uint32_t *)f == 7;
    case LB_OPT_U64: set_ok(j, o->name, "7"); return *(uint64_t *)f == 7;
    case LB_OPT_SIZE: set_ok(j, o->name, "8k"); return *(uint64_t *)f == 8192;
    case LB_OPT_TIME_S: set_ok(j, o->name, "2"); return *(uint64_t *)f == 2000000;
    case LB_OPT_TIME_US: set_ok(j, o->name, "250"); return *(uint64_t *)f == 250;
    case LB_OPT_STR: set_ok(j, o->name, "abc"); return strcmp(*(char **)f, "abc") == 0;
    case LB_OPT_DOUBLE: set_ok(j, o->name, "0.25"); return *(double *)f == 0.25;
    case LB_OPT_ENUM: {
        const char *last = strrchr(o->values, '|') + 1;
        int n = 0;
        for (const char *p = o->values; (p = strchr(p, '|')); p++)
            n++;
        set_ok(j, o->name, last);
        return *(int *)f == n;
    }
    default:
        return false;
    }
}

static void test_every_option(void)
{
    int n = 0;
    for (const struct lb_opt *o = lb_opts; o->name; o++, n++) {
        struct lb_job j;
        const char *v = sample_of(o->name);
        bool ok;
        lb_job_init(&j);
        CHECK(o->help && *o->help && o->group);
        CHECK(lb_opt_find(o->name) == o);
        CHECK(!o->alias || lb_opt_find(o->alias) == o);
        if (o->set || o->type == LB_OPT_SPECIAL) {
            ok = v && (set_ok(&j, o->name, v), sample_landed(o->name, &j));
        } else {
            ok = generic_round_trip(o, &j);
        }
        CHECK(ok, "option '%s' did not round-trip", o->name);
        lb_job_free(&j);
    }
    CHECK(n >= 70);
}

/* ---- the shapes fio gives values ---- */

static void test_bs(void)
{
    struct lb_job j;
    lb_job_init(&j);
    set_ok(&j, "bs", "4k,8k");             /* trims repeat the last given */
    CHECK(j.bs_min[0] == 4096 && j.bs_min[1] == 8192 && j.bs_min[2] == 8192);
    CHECK(j.bs_max[1] == 8192);
    set_ok(&j, "blocksize", ",16k");       /* an empty part keeps the value */
    CHECK(j.bs_min[0] == 4096 && j.bs_min[1] == 16384 && j.bs_min[2] == 16384);
    set_ok(&j, "bs", "1k,");
    CHECK(j.bs_min[0] == 1024 && j.bs_min[1] == 16384 && j.bs_min[2] == 16384);
    set_ok(&j, "bs", "1k,2k,3k");
    CHECK(j.bs_min[0] == 1024 && j.bs_min[1] == 2048 && j.bs_min[2] == 3072);
    set_fails("bs", "1k,2k,3k,4k",
              "bad value '1k,2k,3k,4k' for 'bs': at most 3 comma-separated values "
              "(read,write,trim)");
    CHECK(lb_job_set(&j, "bs", "4k,0", err, sizeof err) == -EINVAL);
    CHECK(j.bs_min[0] == 1024);            /* a failure changes nothing */
    lb_job_free(&j);
}

static void test_bsrange(void)
{
    struct lb_job j;
    lb_job_init(&j);
    set_ok(&j, "bsrange", "4k-16k");
    for (int d = 0; d < LB_DDIR_N; d++)
        CHECK(j.bs_min[d] == 4096 && j.bs_max[d] == 16384);
    set_ok(&j, "blocksize_range", "1k-2k,8k:64k");
    CHECK(j.bs_min[0] == 1024 && j.bs_max[0] == 2048);
    CHECK(j.bs_min[1] == 8192 && j.bs_max[1] == 65536 && j.bs_max[2] == 65536);
    set_fails("bsrange", "16k-4k",
              "bad value '16k-4k' for 'bsrange': the minimum is larger than the maximum");
    set_fails("bsrange", "4k", "bad value '4k' for 'bsrange': not a range (use min-max: 4k-64k)");
    lb_job_free(&j);
}

static void test_bssplit(void)
{
    struct lb_job j;
    lb_job_init(&j);
    set_ok(&j, "bssplit", "4k/10:64k/50:32k/40");
    CHECK(j.nbssplit[0] == 3 && j.nbssplit[1] == 3 && j.nbssplit[2] == 3);
    CHECK(j.bssplit[0][0].bs == 4096 && j.bssplit[0][0].pct == 10);
    CHECK(j.bssplit[0][1].bs == 65536 && j.bssplit[0][1].pct == 50);
    CHECK(j.bssplit[0][2].bs == 32768 && j.bssplit[0][2].pct == 40);
    CHECK(j.bs_min[0] == 4096 && j.bs_max[0] == 65536);
    set_ok(&j, "bssplit", "4k/10:64k:32k/");      /* no percent shares the rest */
    CHECK(j.bssplit[1][1].pct == 45 && j.bssplit[1][2].pct == 45);
    set_ok(&j, "bssplit", "4k:8k:16k");
    CHECK(j.bssplit[0][0].pct == 34 && j.bssplit[0][1].pct == 33 && j.bssplit[0][2].pct == 33);
    set_ok(&j, "bssplit", "4k/50:8k/50,16k");     /* per direction */
    CHECK(j.nbssplit[0] == 2 && j.nbssplit[1] == 1 && j.bssplit[1][0].pct == 100);
    CHECK(j.bs_min[1] == 16384 && j.nbssplit[2] == 1);
    set_ok(&j, "bssplit", "4k/10:8k/20");         /* the last takes what is left */
    CHECK(j.bssplit[0][1].pct == 90);
    set_fails("bssplit", "4k/60:8k/50",
              "bad value '4k/60:8k/50' for 'bssplit': percentages add up to 110 (at most 100)");
    set_fails("bssplit", "4k/x", "bad value '4k/x' for 'bssplit': 'x' is not a percentage");
    lb_job_free(&j);
}

static void test_rw(void)
{
    struct lb_job j;
    lb_job_init(&j);
    set_ok(&j, "rw", "read:8k");
    CHECK(j.rw == LB_RW_READ && j.rw_skip == 8192);
    set_ok(&j, "readwrite", "write");
    CHECK(j.rw == LB_RW_WRITE && j.rw_skip == 0);
    set_ok(&j, "rw", "readwrite");
    CHECK(j.rw == LB_RW_RW);
    set_ok(&j, "rw", "randrw");
    CHECK(j.rw == LB_RW_RANDRW && LB_RW_IS_RANDOM(j.rw));
    set_ok(&j, "rw", "randtrim");
    CHECK(j.rw == LB_RW_RANDTRIM);
    set_ok(&j, "rwmixwrite", "30");
    CHECK(j.rwmixread == 70);
    set_fails("rw", "randread:8", "bad value 'randread:8' for 'rw': a ':' suffix is "
              "supported with sequential patterns only (bytes skipped after each I/O)");
    set_fails("rwmixread", "101", "bad value '101' for 'rwmixread': must be at most 100");
    lb_job_free(&j);
}

static void test_units(void)
{
    struct lb_job j;
    lb_job_init(&j);
    set_ok(&j, "kb_base", "1000");
    set_ok(&j, "bs", "4k");
    set_ok(&j, "size", "1m");
    CHECK(j.bs_min[0] == 4000 && j.size == 1000000);
    set_ok(&j, "size", "50%");
    CHECK(j.size == 0 && j.size_pct == 50000);
    set_ok(&j, "rate_iops", "10k");           /* fio's integers take suffixes */
    CHECK(j.rate_iops[0] == 10000);
    set_ok(&j, "rate", "1m,2m");
    CHECK(j.rate[0] == 1000000 && j.rate[1] == 2000000 && j.rate[2] == 2000000);
    set_fails("kb_base", "512", "bad value '512' for 'kb_base': expected 1024|1000");
    set_fails("size", "0%", "bad value '0%' for 'size': a percentage must be over 0 and at most 100");
    lb_job_free(&j);
}

static void test_times(void)
{
    struct lb_job j;
    lb_job_init(&j);
    set_ok(&j, "runtime", "60");
    CHECK(j.runtime == 60000000);
    set_ok(&j, "timeout", "100ms");
    CHECK(j.runtime == 100000);
    set_ok(&j, "thinktime", "100");
    CHECK(j.thinktime == 100);
    set_ok(&j, "thinktime", "2ms");
    CHECK(j.thinktime == 2000);
    set_ok(&j, "interval", "500ms");
    CHECK(j.interval == 500000);
    set_ok(&j, "io_timeout", "5");
    CHECK(j.io_timeout == 5000000);
    set_ok(&j, "fault_delay_time", "3");
    CHECK(j.fault_delay_us == 3);
    set_ok(&j, "null_lat", "1500");
    CHECK(j.null_lat == 1500);
    set_ok(&j, "null_lat", "1500ns");
    CHECK(j.null_lat == 1500);
    set_ok(&j, "null_lat", "2ms");
    CHECK(j.null_lat == 2000000);
    set_fails("interval", "0", "bad value '0' for 'interval': must be at least 1ms");
    set_fails("runtime", "soon",
              "bad value 'soon' for 'runtime': not a time (use a number with us, ms, s, m, h: 100ms, 60s)");
    lb_job_free(&j);
}

static void test_booleans(void)
{
    static const char *const yes[] = { "", "1", "true", "yes", "on", " on " };
    static const char *const no[] = { "0", "false", "no", "off" };
    struct lb_job j;
    lb_job_init(&j);
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        j.group_reporting = false;
        set_ok(&j, "group_reporting", yes[i]);
        CHECK(j.group_reporting);
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        j.time_based = true;
        set_ok(&j, "time_based", no[i]);
        CHECK(!j.time_based);
    }
    set_ok(&j, "buffered", "");
    CHECK(!j.direct);
    set_ok(&j, "buffered", "0");
    CHECK(j.direct);
    set_fails("direct", "maybe",
              "bad value 'maybe' for 'direct': not a boolean (use 1/0, true/false, yes/no, on/off)");
    lb_job_free(&j);
}

static void test_distribution(void)
{
    struct lb_job j;
    lb_job_init(&j);
    set_ok(&j, "random_distribution", "pareto:0.3");
    CHECK(j.random_distribution == LB_DIST_PARETO && j.random_param == 0.3);
    set_ok(&j, "random_distribution", "normal:5");
    CHECK(j.random_distribution == LB_DIST_NORMAL && j.random_param == 5);
    set_ok(&j, "random_distribution", "zipf");
    CHECK(j.random_distribution == LB_DIST_ZIPF && j.random_param == 1.1);
    set_ok(&j, "random_distribution", "random");
    CHECK(j.random_distribution == LB_DIST_RANDOM);
    set_fails("random_distribution", "zoned", "bad value 'zoned' for 'random_distribution': "
              "expected random|zipf:theta|pareto:h|normal:sigma");
    set_fails("random_distribution", "pareto:1.5", "bad value 'pareto:1.5' for "
              "'random_distribution': pareto's h must be between 0 and 1");
    set_fails("random_distribution", "zipf:0", "bad value 'zipf:0' for "
              "'random_distribution': zipf's theta must be over 0");
    set_fails("random_distribution", "normal", "bad value 'normal' for "
              "'random_distribution': normal needs a parameter: normal:5");
    set_fails("random_distribution", "random:2", "bad value 'random:2' for "
              "'random_distribution': random takes no parameter");
    lb_job_free(&j);
}

static void test_errors_and_verify(void)
{
    static const struct { const char *v; uint32_t bits; } coe[] = {
        { "none", 0 }, { "read", LB_COE_READ }, { "write", LB_COE_WRITE },
        { "io", LB_COE_READ | LB_COE_WRITE }, { "verify", LB_COE_VERIFY },
        { "all", 7 }, { "0", 0 }, { "1", 7 },
    };
    static const struct { const char *v; int method; } ver[] = {
        { "0", LB_VERIFY_NONE }, { "none", LB_VERIFY_NONE }, { "crc32c", LB_VERIFY_CRC32C },
        { "crc32c-intel", LB_VERIFY_CRC32C }, { "md5", LB_VERIFY_MD5 },
        { "pattern", LB_VERIFY_PATTERN },
    };
    struct lb_job j;
    lb_job_init(&j);
    for (size_t i = 0; i < sizeof coe / sizeof coe[0]; i++) {
        set_ok(&j, "continue_on_error", coe[i].v);
        CHECK(j.continue_on_error == coe[i].bits);
    }
    for (size_t i = 0; i < sizeof ver / sizeof ver[0]; i++) {
        set_ok(&j, "verify", ver[i].v);
        CHECK(j.verify == ver[i].method);
    }
    set_fails("continue_on_error", "2", "bad value '2' for 'continue_on_error': "
              "expected none|read|write|io|verify|all (or 0, 1)");
    set_fails("verify", "sha256", "bad value 'sha256' for 'verify': "
              "expected none|crc32c|md5|pattern|meta (or 0, crc32c-intel)");
    set_fails("fault_eio", "2", "bad value '2' for 'fault_eio': must be between 0 and 1 (or 0% and 100%)");
    lb_job_free(&j);
}

static void test_messages(void)
{
    set_fails("blocksze", "4k", "unknown option 'blocksze' (did you mean 'blocksize'?)");
    set_fails("zzz", "1", "unknown option 'zzz'");
    set_fails("bs", "0", "bad value '0' for 'bs': must be at least 1");
    set_fails("size", "4x",
              "bad value '4x' for 'size': not a size (use a number with k, m, g, t: 4k, 100G)");
    set_fails("rw", "foo", "bad value 'foo' for 'rw': expected "
              "read|write|trim|randread|randwrite|randtrim|rw|readwrite|randrw"
              "|trimwrite|randtrimwrite");
    set_fails("iodepth", "-1", "bad value '-1' for 'iodepth': must not be negative");
    set_fails("size", "-4k", "bad value '-4k' for 'size': must not be negative");
    set_fails("iodepth", "0", "bad value '0' for 'iodepth': must be at least 1");
    set_fails("iodepth", "lots", "bad value 'lots' for 'iodepth': not a whole number");
    set_fails("numjobs", "70000", "bad value '70000' for 'numjobs': must be at most 65536");
    set_fails("filename", "", "bad value '' for 'filename': needs a value");
    set_fails("rate_process", "burst", "bad value 'burst' for 'rate_process': expected linear|poisson");
    set_fails("cpus_allowed", "0-", "bad value '0-' for 'cpus_allowed': not a CPU list (use 0-3,8)");

    CHECK(lb_opt_suggest("blocksze") && strcmp(lb_opt_suggest("blocksze"), "blocksize") == 0);
    CHECK(lb_opt_suggest("iodepht") && strcmp(lb_opt_suggest("iodepht"), "iodepth") == 0);
    CHECK(lb_opt_suggest("zzzzzzzz") == NULL);

    /* fio's own knobs are accepted with a note */
    struct lb_job j;
    lb_job_init(&j);
    CHECK(lb_job_set(&j, "thread", "", err, sizeof err) == 0);
    CHECK(strncmp(err, "option 'thread' is ignored: ", 28) == 0);
    CHECK(lb_job_set(&j, "iodepth", "4", NULL, 0) == 0 && j.iodepth == 4);
    lb_job_free(&j);
}

static void test_check(void)
{
    struct lb_job j;
    lb_job_init(&j);
    set_ok(&j, "size", "1k");
    check_says(&j, "size (1024) is smaller than bs (4096)", __LINE__);
    set_ok(&j, "size", "1m");
    check_says(&j, NULL, __LINE__);
    set_ok(&j, "io_size", "512");
    check_says(&j, "io_size (512) is smaller than bs (4096)", __LINE__);
    lb_job_free(&j);

    lb_job_init(&j);
    j.bs_min[0] = 8192;
    check_says(&j, "bs minimum (8192) is larger than its maximum (4096) for reads", __LINE__);
    lb_job_free(&j);
    lb_job_init(&j);
    j.rwmixread = 150;
    check_says(&j, "rwmixread (150) must be at most 100", __LINE__);
    j.rwmixread = 50;
    j.iodepth = 0;
    check_says(&j, "iodepth must be at least 1", __LINE__);
    j.iodepth = 1;
    j.numjobs = 70000;
    check_says(&j, "numjobs (70000) must be between 1 and 65536", __LINE__);
    j.numjobs = 0;
    check_says(&j, "numjobs (0) must be between 1 and 65536", __LINE__);
    j.numjobs = 1;
    j.nbssplit[1] = 2;
    j.bssplit[1][0] = (struct lb_bssplit){ 4096, 60 };
    j.bssplit[1][1] = (struct lb_bssplit){ 8192, 50 };
    check_says(&j, "bssplit percentages for writes add up to 110 (at most 100)", __LINE__);
    lb_job_free(&j);

    lb_job_init(&j);
    set_ok(&j, "verify", "crc32c");
    check_says(&j, NULL, __LINE__);      /* as in fio, a read job checks what it reads */
    set_ok(&j, "verify_only", "1");
    check_says(&j, NULL, __LINE__);
    set_ok(&j, "rw", "write");
    set_ok(&j, "readonly", "1");
    set_ok(&j, "verify_only", "0");
    check_says(&j, "readonly is set but rw=write writes", __LINE__);
    set_ok(&j, "rw", "randtrim");
    set_ok(&j, "verify", "0");
    check_says(&j, "readonly is set but rw=randtrim trims", __LINE__);
    lb_job_free(&j);

    lb_job_init(&j);
    set_ok(&j, "direct", "1");
    set_ok(&j, "bs", "1000");
    check_says(&j, "direct=1 needs bs to be a multiple of 512 (bs is 1000)", __LINE__);
    set_ok(&j, "bs", "4k");
    set_ok(&j, "ba", "100");
    check_says(&j, "direct=1 needs blockalign to be a multiple of 512 (blockalign is 100)",
               __LINE__);
    set_ok(&j, "buffered", "1");
    check_says(&j, NULL, __LINE__);
    lb_job_free(&j);
}

static void test_copy(void)
{
    struct lb_job a, b;
    lb_job_init(&a);
    set_ok(&a, "name", "seq");
    set_ok(&a, "filename", "/tmp/x:/tmp/y");
    set_ok(&a, "cpus_allowed", "0-1");
    set_ok(&a, "bssplit", "4k/50:8k");
    CHECK(lb_job_copy(&b, &a) == 0);
    CHECK(b.name != a.name && strcmp(b.name, "seq") == 0);
    CHECK(b.ioengine != a.ioengine && strcmp(b.ioengine, "psync") == 0);
    CHECK(b.filename != a.filename && strcmp(b.filename, "/tmp/x:/tmp/y") == 0);
    CHECK(b.cpus_allowed != a.cpus_allowed && b.directory == NULL);
    CHECK(b.nbssplit[0] == 2 && b.bssplit[0][1].pct == 50);
    lb_job_free(&a);
    CHECK(strcmp(b.name, "seq") == 0);  /* still b's own after a is gone */
    lb_job_free(&b);
    lb_job_free(&b);
}

static void test_prio(void)
{
    struct lb_job j;

    set_fails("cmdprio_percentage", "101",
              "bad value '101' for 'cmdprio_percentage': must be from 0 to 100");
    set_fails("cmdprio_class", "0", "bad value '0' for 'cmdprio_class': must be from 1 to 3");
    set_fails("prioclass", "x", "bad value 'x' for 'prioclass': not a whole number from 0 to 3");
    set_fails("cmdprio_bssplit", "4k/x",
              "bad value '4k/x' for 'cmdprio_bssplit': 'x' is not a whole number");
    lb_job_init(&j);
    set_ok(&j, "cmdprio_bssplit", "4k/150/7/9");   /* fio clamps these */
    CHECK(j.cmdprio_split[0][0].pct == 100 && j.cmdprio_split[0][0].prio == (3 << 13 | 7));
    set_ok(&j, "cmdprio_percentage", "10");
    char err[160];
    CHECK(lb_job_check(&j, err, sizeof err) == -EINVAL &&
          strstr(err, "mutually exclusive"), "%s", err);
    lb_job_free(&j);
}

static void test_help(void)
{
    size_t need = lb_opts_help(NULL, 0);
    char *buf = malloc(need + 1);
    CHECK(buf && lb_opts_help(buf, need + 1) == need && strlen(buf) == need);
    for (const struct lb_opt *o = lb_opts; buf && o->name; o++) {
        char line[128];
        const char *at;
        snprintf(line, sizeof line, "\n  %s%s%s", o->name, o->alias ? ", " : "",
                 o->alias ? o->alias : "");
        at = strstr(buf, line);
        while (at && at[strlen(line)] != ' ' && at[strlen(line)] != '\n')
            at = strstr(at + 1, line);        /* cmdprio after cmdprio_percentage */
        CHECK(at && (at[strlen(line)] == ' ' || at[strlen(line)] == '\n'),
              "--help lacks '%s'", line + 1);
    }
    CHECK(buf && strstr(buf, "Accepted and ignored") && strstr(buf, "thread"));
    free(buf);
    char small[16];
    CHECK(lb_opts_help(small, sizeof small) == need && strlen(small) == sizeof small - 1);
}

int main(void)
{
    test_defaults();
    test_every_option();
    test_bs();
    test_bsrange();
    test_bssplit();
    test_rw();
    test_units();
    test_times();
    test_booleans();
    test_distribution();
    test_errors_and_verify();
    test_messages();
    test_check();
    test_copy();
    test_prio();
    test_help();
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
