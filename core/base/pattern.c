/*
 * fio's byte patterns: parsing the text of buffer_pattern into bytes and
 * repeating them over a buffer.  See pattern.h for the syntax.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/pattern.h"

static int say(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* 0x... up to the next 0x ("0xff0x14" is two numbers), as fio: an odd
 * count of digits gives the first byte one digit. */
static const char *hex_elem(const char *s, uint8_t *out, size_t *len, size_t room)
{
    const char *p = s + 2, *end = p;
    size_t nd, k = 0;

    while (hexval((unsigned char)*end) >= 0 &&
           !(end > p && end[0] == '0' && (end[1] | 0x20) == 'x' &&
             hexval((unsigned char)end[2]) >= 0))
        end++;
    nd = (size_t)(end - p);
    if (!nd || (nd + 1) / 2 > room)
        return NULL;
    if (nd & 1)
        out[k++] = (uint8_t)hexval((unsigned char)*p++);
    for (; p < end; p += 2)
        out[k++] = (uint8_t)(hexval((unsigned char)p[0]) << 4 | hexval((unsigned char)p[1]));
    *len = k;
    return end;
}

static const char *dec_elem(const char *s, uint8_t *out, size_t *len, size_t room)
{
    char num[32], *end;
    const char *x = s;
    size_t k = 0, nl;
    unsigned u;
    long v;

    while (*x && !(x[0] == '0' && (x[1] | 0x20) == 'x'))
        x++;                         /* "120xff" is 12 then 0xff, as fio reads it */
    nl = (size_t)(x - s) < sizeof num - 1 ? (size_t)(x - s) : sizeof num - 1;
    memcpy(num, s, nl);
    num[nl] = '\0';
    v = strtol(num, &end, 10);
    if (end == num)
        return NULL;
    end = (char *)s + (end - num);
    if (v > INT_MAX || v > INT_MAX || v < INT_MIN || !room)
        return NULL;
    u = (unsigned)v;
    out[k++] = (uint8_t)u;
    for (u >>= 8; u; u >>= 8) {
        if (k == room)
            return NULL;
        out[k++] = (uint8_t)u;
    }
    *len = k;
    return end;
}

static const char *quoted(const char *s, char q, size_t *n)
{
    const char *end = strchr(s + 1, q);

    if (end)
        *n = (size_t)(end - s - 1);
    return end;
}

static const char *file_elem(const char *s, uint8_t *out, size_t *len, size_t room,
                             char *err, size_t n)
{
    size_t l;
    const char *end = quoted(s, '\'', &l);
    char path[4096];
    ssize_t got;
    int fd;

    if (!end || l >= sizeof path)
        return NULL;
    memcpy(path, s + 1, l);
    path[l] = '\0';
    fd = open(path, O_RDONLY);
    got = fd < 0 ? -1 : read(fd, out, room);
    if (fd >= 0)
        close(fd);
    if (got <= 0) {
        say(err, n, "cannot read pattern file '%s'", path);
        return NULL;
    }
    *len = (size_t)got;
    return end + 1;
}

int lb_pattern_parse(const char *s, uint8_t *out, char *err, size_t n)
{
    size_t total = 0;

    err[0] = '\0';
    if (!s || !*s)
        return say(err, n, "empty pattern");
    while (*s) {
        size_t room = LB_PATTERN_MAX - total, l = 0;
        const char *end;

        if (*s == '%')
            return say(err, n, "formats such as %%o belong to verify_pattern");
        if (*s == '"') {
            end = quoted(s, '"', &l);
            if (end && (!l || l > room))
                end = NULL;
            if (end)
                memcpy(out + total, s + 1, l), end++;
        } else if (*s == '\'') {
            end = file_elem(s, out + total, &l, room, err, n);
        } else if (s[0] == '0' && (s[1] | 0x20) == 'x' && hexval((unsigned char)s[2]) >= 0) {
            end = hex_elem(s, out + total, &l, room);
        } else {
            end = dec_elem(s, out + total, &l, room);
        }
        if (!end) {
            if (!err[0])
                say(err, n, "expected 0x hex, a decimal number, \"string\" or 'file' "
                    "(at most %d bytes) at '%s'", LB_PATTERN_MAX, s);
            return -EINVAL;
        }
        total += l;
        s = end;
    }
    return (int)total;
}

void lb_pattern_fill(void *buf, size_t len, const uint8_t *pat, size_t plen)
{
    uint8_t *p = buf;
    size_t done;

    if (!len || !plen)
        return;
    done = plen < len ? plen : len;
    memcpy(p, pat, done);
    while (done < len) {             /* doubling: a few large copies */
        size_t k = done < len - done ? done : len - done;

        memcpy(p + done, p, k);
        done += k;
    }
}
