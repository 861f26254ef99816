/* Description: fio-style sizes, percentages, times, integers, doubles and
 * booleans parse to the documented values, and bad input is -EINVAL. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

#include "check.h"

struct size_case {
    const char *in;
    unsigned kb_base;
    uint64_t want;
};

static const struct size_case sizes[] = {
    { "4k", 1024, 4096 },        { "4K", 1024, 4096 },
    { "4kb", 1024, 4096 },       { "4KB", 1024, 4096 },
    { "4ki", 1024, 4096 },       { "4kib", 1024, 4096 },
    { "4KiB", 1024, 4096 },      { "4k", 0, 4096 },
    { "4k", 1000, 4000 },        { "4K", 1000, 4000 },
    { "4KB", 1000, 4000 },       { "4ki", 1000, 4096 },
    { "4kib", 1000, 4096 },      { "4KiB", 1000, 4096 },
    { "1m", 1024, 1048576 },     { "1M", 1000, 1000000 },
    { "1mib", 1000, 1048576 },   { "1g", 1024, 1073741824ull },
    { "1g", 1000, 1000000000ull }, { "1t", 1024, 1099511627776ull },
    { "1p", 1024, 1125899906842624ull }, { "2PB", 1000, 2000000000000000ull },
    { "512", 1024, 512 },        { "512b", 1024, 512 },
    { "0", 1024, 0 },            { "0x1000", 1024, 4096 },
    { "0X10k", 1024, 16384 },    { "1.5k", 1024, 1536 },
    { "1.5g", 1024, 1610612736ull }, { "0.3k", 1000, 300 },
    { "1.0001k", 1024, 1024 },   { " 8k ", 1024, 8192 },
    { "16383p", 1024, 16383ull << 50 },
    { "18446744073709551615", 1024, UINT64_MAX },
};

static const char *const bad_sizes[] = {
    "", " ", "-1", "4x", "k", "99999999999999999999t", "16384p",
    "18446744073709551616", "4 k", "4kk", "4kbb", "1e3", ".", "0x",
    "0x1.5", "+4k", "4%", "4k%", "nan", "4kibb", "1.5.5",
};

static void test_sizes(void)
{
    uint64_t v;
    int rc;

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        v = 12345;
        rc = lb_parse_size(sizes[i].in, sizes[i].kb_base, &v);
        CHECK(rc == 0 && v == sizes[i].want, "size '%s' kb_base %u: rc %d, %llu, want %llu",
              sizes[i].in, sizes[i].kb_base, rc, (unsigned long long)v,
              (unsigned long long)sizes[i].want);
    }
    for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
        rc = lb_parse_size(bad_sizes[i], 1024, &v);
        CHECK(rc == -EINVAL, "size '%s' should be -EINVAL, got %d (%llu)",
              bad_sizes[i], rc, (unsigned long long)v);
    }
    CHECK(lb_parse_size(NULL, 1024, &v) == -EINVAL, "NULL size");
    CHECK(lb_parse_size("4k", 1023, &v) == -EINVAL, "kb_base 1023 accepted");
}

static void test_pct(void)
{
    uint64_t v;
    int pct, rc;

    rc = lb_parse_size_pct("50%", 1024, &v, &pct);
    CHECK(rc == 0 && pct == 1 && v == 50000, "50%%: rc %d pct %d v %llu", rc, pct,
          (unsigned long long)v);
    rc = lb_parse_size_pct("12.5%", 1024, &v, &pct);
    CHECK(rc == 0 && pct == 1 && v == 12500, "12.5%%: rc %d pct %d v %llu", rc, pct,
          (unsigned long long)v);
    rc = lb_parse_size_pct("100%", 1024, &v, &pct);
    CHECK(rc == 0 && pct == 1 && v == 100000, "100%%");
    rc = lb_parse_size_pct("4k", 1024, &v, &pct);
    CHECK(rc == 0 && pct == 0 && v == 4096, "4k as size_pct: rc %d pct %d v %llu", rc,
          pct, (unsigned long long)v);
    CHECK(lb_parse_size_pct("%", 1024, &v, &pct) == -EINVAL, "'%%' accepted");
    CHECK(lb_parse_size_pct("-5%", 1024, &v, &pct) == -EINVAL, "-5%% accepted");
    CHECK(lb_parse_size_pct("5k%", 1024, &v, &pct) == -EINVAL, "5k%% accepted");
}

struct time_case {
    const char *in;
    uint64_t def;
    uint64_t want;
};

static const struct time_case times[] = {
    { "60", 1000000, 60000000 },       { "60s", 1, 60000000 },
    { "60sec", 1, 60000000 },          { "100ms", 1000000, 100000 },
    { "100msec", 1, 100000 },          { "1m", 1000000, 60000000 },
    { "2min", 1, 120000000 },          { "2h", 1, 7200000000ull },
    { "1d", 1, 86400000000ull },       { "10us", 1000000, 10 },
    { "10usec", 1, 10 },               { "0.5s", 1, 500000 },
    { "1.5", 1000000, 1500000 },       { "250", 1, 250 },
    { "1.5ms", 1, 1500 },              { "10S", 1, 10000000 },
    { "0", 1000000, 0 },               { " 3s ", 1, 3000000 },
};

static const char *const bad_times[] = {
    "", "-1", "-1s", "5x", "s", "1e3", "99999999999999999999", "1ns", "5 s",
    "213503982336d",
};

static void test_times(void)
{
    uint64_t v;
    int rc;

    for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
        v = 12345;
        rc = lb_parse_time_us(times[i].in, times[i].def, &v);
        CHECK(rc == 0 && v == times[i].want, "time '%s': rc %d, %llu us, want %llu",
              times[i].in, rc, (unsigned long long)v, (unsigned long long)times[i].want);
    }
    for (size_t i = 0; i < sizeof(bad_times) / sizeof(bad_times[0]); i++) {
        rc = lb_parse_time_us(bad_times[i], 1000000, &v);
        CHECK(rc == -EINVAL, "time '%s' should be -EINVAL, got %d", bad_times[i], rc);
    }
    CHECK(lb_parse_time_us("5", 0, &v) == -EINVAL, "bare number with no default unit");
    CHECK(lb_parse_time_us("5s", 0, &v) == 0 && v == 5000000, "5s with no default unit");
}

static void test_plain(void)
{
    uint64_t u;
    double d;
    int b;

    CHECK(lb_parse_u64("42", &u) == 0 && u == 42, "u64 42");
    CHECK(lb_parse_u64("0x2a", &u) == 0 && u == 42, "u64 0x2a");
    CHECK(lb_parse_u64("18446744073709551615", &u) == 0 && u == UINT64_MAX, "u64 max");
    CHECK(lb_parse_u64("18446744073709551616", &u) == -EINVAL, "u64 overflow");
    CHECK(lb_parse_u64("4k", &u) == -EINVAL, "u64 with suffix");
    CHECK(lb_parse_u64("1.5", &u) == -EINVAL, "u64 with fraction");
    CHECK(lb_parse_u64("-1", &u) == -EINVAL, "u64 negative");
    CHECK(lb_parse_u64("", &u) == -EINVAL, "u64 empty");
    CHECK(lb_parse_double("0.25", &d) == 0 && d == 0.25, "double 0.25");
    CHECK(lb_parse_double("-3", &d) == 0 && d == -3, "double -3");
    CHECK(lb_parse_double("1e3", &d) == 0 && d == 1000, "double 1e3");
    CHECK(lb_parse_double("inf", &d) == -EINVAL, "double inf");
    CHECK(lb_parse_double("nan", &d) == -EINVAL, "double nan");
    CHECK(lb_parse_double("1e999", &d) == -EINVAL, "double overflow");
    CHECK(lb_parse_double("1.5x", &d) == -EINVAL, "double garbage");
    CHECK(lb_parse_double("", &d) == -EINVAL, "double empty");

    static const char *const yes[] = { "1", "true", "TRUE", "yes", "Yes", "on", "ON" };
    static const char *const no[] = { "0", "false", "False", "no", "NO", "off", "Off" };
    for (size_t i = 0; i < 7; i++) {
        CHECK(lb_parse_bool(yes[i], &b) == 0 && b == 1, "bool '%s'", yes[i]);
        CHECK(lb_parse_bool(no[i], &b) == 0 && b == 0, "bool '%s'", no[i]);
    }
    CHECK(lb_parse_bool("2", &b) == -EINVAL, "bool 2");
    CHECK(lb_parse_bool("", &b) == -EINVAL, "bool empty");
    CHECK(lb_parse_bool("yess", &b) == -EINVAL, "bool yess");
}

static void test_fmt(void)
{
    static const struct { uint64_t v; const char *want; } cases[] = {
        { 0, "0B" }, { 512, "512B" }, { 1023, "1023B" }, { 1024, "1KiB" },
        { 4096, "4KiB" }, { 1536, "1.5KiB" }, { 1048576, "1MiB" },
        { 1572864, "1.5MiB" }, { 1000000000, "953.67MiB" },
        { 1099511627776ull, "1TiB" }, { UINT64_MAX, "15.99EiB" },
    };
    char buf[24];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        lb_fmt_bytes(cases[i].v, buf, sizeof(buf));
        CHECK(!strcmp(buf, cases[i].want), "fmt %llu: '%s', want '%s'",
              (unsigned long long)cases[i].v, buf, cases[i].want);
    }
    lb_fmt_bytes(1536, buf, 4);
    CHECK(!strcmp(buf, "1.5"), "fmt truncation: '%s'", buf);
}

int main(void)
{
    test_sizes();
    test_pct();
    test_times();
    test_plain();
    test_fmt();
    if (failures)
        printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
