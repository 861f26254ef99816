/*
 * Parsing of fio-style numbers with units, and byte formatting.
 *
 * Every parser splits its input the same way: blanks, a number (decimal
 * with an optional fraction, or 0x hex), a suffix, blanks.  The number is
 * kept as whole + frac/div so that "1.5g" scales exactly in integers and
 * rounds down once at the end; the suffix is looked up in a small table
 * per kind (sizes, times).  Nothing here allocates or prints.
 */
#include "base/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LB_FRAC_DIGITS 19               /* 10^19 still fits in uint64_t */

struct lb_num {
    uint64_t whole;
    uint64_t frac;                      /* fraction = frac / div, < 1 */
    uint64_t div;
    int dot;                            /* a '.' was seen */
    char suffix[8];                     /* lower case, blanks stripped */
};

static const char *lb_skip_blanks(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

static int lb_digit_val(int c, unsigned base)
{
    int v = isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : 99;

    return v < (int)base ? v : -1;
}

/* Accumulates digits of one base into *v; the number of digits read, or
 * -1 on overflow. */
static int lb_read_digits(const char **pp, unsigned base, uint64_t *v)
{
    const char *p = *pp;
    int d, n = 0;

    for (; (d = lb_digit_val((unsigned char)*p, base)) >= 0; p++, n++)
        if (__builtin_mul_overflow(*v, base, v) ||
            __builtin_add_overflow(*v, (uint64_t)d, v))
            return -1;
    *pp = p;
    return n;
}

/* Decimal fraction digits after '.', keeping the first LB_FRAC_DIGITS. */
static int lb_read_frac(const char **pp, struct lb_num *n)
{
    const char *p = *pp;
    int digits = 0;

    for (; isdigit((unsigned char)*p); p++, digits++) {
        if (digits >= LB_FRAC_DIGITS)
            continue;
        n->frac = n->frac * 10 + (uint64_t)(*p - '0');
        n->div *= 10;
    }
    *pp = p;
    return digits;
}

static int lb_read_suffix(const char *p, struct lb_num *n)
{
    size_t len = 0;

    while (*p && !isspace((unsigned char)*p)) {
        if (len + 1 >= sizeof(n->suffix))
            return -EINVAL;
        n->suffix[len++] = (char)tolower((unsigned char)*p++);
    }
    n->suffix[len] = '\0';
    return *lb_skip_blanks(p) ? -EINVAL : 0;
}

static int lb_split(const char *s, struct lb_num *n)
{
    const char *p;
    int w, f = 0;

    *n = (struct lb_num){ .div = 1 };
    if (!s)
        return -EINVAL;
    p = lb_skip_blanks(s);
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        if (lb_read_digits(&p, 16, &n->whole) <= 0)
            return -EINVAL;
        return lb_read_suffix(p, n);
    }
    w = lb_read_digits(&p, 10, &n->whole);
    if (w < 0)
        return -EINVAL;
    if (*p == '.') {
        p++;
        n->dot = 1;
        f = lb_read_frac(&p, n);
    }
    if (w + f == 0)
        return -EINVAL;
    return lb_read_suffix(p, n);
}

/* whole * mult + floor(frac * mult / div), or -EINVAL on overflow. */
static int lb_scale(const struct lb_num *n, uint64_t mult, uint64_t *out)
{
    unsigned __int128 part = (unsigned __int128)n->frac * mult / n->div;
    uint64_t v;

    if (__builtin_mul_overflow(n->whole, mult, &v) ||
        __builtin_add_overflow(v, (uint64_t)part, &v))
        return -EINVAL;
    *out = v;
    return 0;
}

/* Multiplier of a size suffix: "", "b", then k m g t p with "", "b"
 * (kb_base) or "i", "ib" (1024).  0 when unknown. */
static uint64_t lb_size_mult(const char *sfx, unsigned kb_base)
{
    static const char prefixes[] = "kmgtp";
    const char *at;
    uint64_t base = kb_base, m = 1;

    if (!sfx[0] || !strcmp(sfx, "b"))
        return 1;
    at = strchr(prefixes, sfx[0]);
    if (!at)
        return 0;
    if (!strcmp(sfx + 1, "i") || !strcmp(sfx + 1, "ib"))
        base = 1024;
    else if (sfx[1] && strcmp(sfx + 1, "b"))
        return 0;
    for (const char *q = prefixes; q <= at; q++)
        m *= base;
    return m;
}

static int lb_kb_base_ok(unsigned *kb_base)
{
    if (*kb_base == 0)
        *kb_base = 1024;
    return *kb_base == 1024 || *kb_base == 1000;
}

int lb_parse_size(const char *s, unsigned kb_base, uint64_t *out)
{
    struct lb_num n;
    uint64_t mult;

    if (!lb_kb_base_ok(&kb_base) || lb_split(s, &n))
        return -EINVAL;
    mult = lb_size_mult(n.suffix, kb_base);
    return mult ? lb_scale(&n, mult, out) : -EINVAL;
}

int lb_parse_size_pct(const char *s, unsigned kb_base, uint64_t *out, int *is_pct)
{
    struct lb_num n;

    *is_pct = 0;
    if (lb_split(s, &n))
        return -EINVAL;
    if (strcmp(n.suffix, "%"))
        return lb_parse_size(s, kb_base, out);
    *is_pct = 1;
    return lb_scale(&n, 1000, out);
}

struct lb_time_unit {
    const char *name;
    uint64_t us;
};

static const struct lb_time_unit lb_time_units[] = {
    { "us", 1 },                 { "usec", 1 },
    { "ms", 1000 },              { "msec", 1000 },
    { "s", 1000000 },            { "sec", 1000000 },
    { "m", 60000000 },           { "min", 60000000 },
    { "h", 3600000000ull },      { "hour", 3600000000ull },
    { "d", 86400000000ull },     { "day", 86400000000ull },
};

int lb_parse_time_us(const char *s, uint64_t default_unit_us, uint64_t *out_us)
{
    struct lb_num n;
    uint64_t mult = 0;

    if (lb_split(s, &n))
        return -EINVAL;
    if (!n.suffix[0])
        mult = default_unit_us;
    for (size_t i = 0; i < sizeof(lb_time_units) / sizeof(lb_time_units[0]); i++)
        if (!strcmp(n.suffix, lb_time_units[i].name))
            mult = lb_time_units[i].us;
    return mult ? lb_scale(&n, mult, out_us) : -EINVAL;
}

int lb_parse_u64(const char *s, uint64_t *out)
{
    struct lb_num n;

    if (lb_split(s, &n) || n.dot || n.suffix[0])
        return -EINVAL;
    *out = n.whole;
    return 0;
}

int lb_parse_double(const char *s, double *out)
{
    char *end;
    double v;

    if (!s || !*lb_skip_blanks(s))
        return -EINVAL;
    v = strtod(s, &end);
    if (end == s || *lb_skip_blanks(end) || !isfinite(v))
        return -EINVAL;
    *out = v;
    return 0;
}

int lb_parse_bool(const char *s, int *out)
{
    static const char *const yes[] = { "1", "true", "yes", "on" };
    static const char *const no[] = { "0", "false", "no", "off" };
    struct lb_num n = { 0 };

    if (!s || lb_read_suffix(lb_skip_blanks(s), &n))
        return -EINVAL;
    for (int i = 0; i < 4; i++) {
        if (!strcmp(n.suffix, yes[i]) || !strcmp(n.suffix, no[i])) {
            *out = !strcmp(n.suffix, yes[i]);
            return 0;
        }
    }
    return -EINVAL;
}

char *lb_fmt_bytes(uint64_t v, char *buf, unsigned len)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    unsigned u = 0;
    uint64_t whole, cents;

    if (!len)
        return buf;
    while (u < 6 && (v >> (10 * (u + 1))))
        u++;
    whole = v >> (10 * u);
    cents = (uint64_t)(((unsigned __int128)(v - (whole << (10 * u))) * 100) >> (10 * u));
    if (cents == 0)
        snprintf(buf, len, "%llu%s", (unsigned long long)whole, units[u]);
    else if (cents % 10 == 0)
        snprintf(buf, len, "%llu.%llu%s", (unsigned long long)whole,
                 (unsigned long long)(cents / 10), units[u]);
    else
        snprintf(buf, len, "%llu.%02llu%s", (unsigned long long)whole,
                 (unsigned long long)cents, units[u]);
    return buf;
}
