/*
 * Block headers, payloads and the two checksums behind verify=.
 *
 * crc32c: the reflected Castagnoli polynomial 0x82F63B78; the SSE4.2 crc32
 * instruction does 8 bytes per step when the CPU has it, otherwise eight
 * 256-entry tables fold 8 bytes per step (slice-by-8).  md5: written from
 * the description in RFC 1321; its sine table is computed once.  Tables are
 * built once per process (pthread_once).  See verify.h for the block format.
 */
#include "base/verify.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(struct lb_vhdr) <= LB_VHDR_SIZE, "header fits its slot");

#define CRC32C_POLY 0x82F63B78u

static uint32_t crc_tab[8][256];
static uint32_t md5_k[64];
static int crc_hw;
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void tables_build(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;

        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ CRC32C_POLY : c >> 1;
        crc_tab[0][i] = c;
    }
    for (int k = 1; k < 8; k++)
        for (int i = 0; i < 256; i++)
            crc_tab[k][i] = (crc_tab[k - 1][i] >> 8) ^ crc_tab[0][crc_tab[k - 1][i] & 0xff];
    for (int i = 0; i < 64; i++)
        md5_k[i] = (uint32_t)floor(fabs(sin((double)(i + 1))) * 4294967296.0);
#if defined(__x86_64__)
    __builtin_cpu_init();
    crc_hw = __builtin_cpu_supports("sse4.2");
#endif
}

static uint32_t crc32c_sw(uint32_t c, const uint8_t *p, size_t n)
{
    while (n >= 8) {
        uint64_t v;

        memcpy(&v, p, 8);
        v ^= c;
        c = crc_tab[7][v & 0xff] ^ crc_tab[6][(v >> 8) & 0xff] ^
            crc_tab[5][(v >> 16) & 0xff] ^ crc_tab[4][(v >> 24) & 0xff] ^
            crc_tab[3][(v >> 32) & 0xff] ^ crc_tab[2][(v >> 40) & 0xff] ^
            crc_tab[1][(v >> 48) & 0xff] ^ crc_tab[0][v >> 56];
        p += 8;
        n -= 8;
    }
    while (n--)
        c = (c >> 8) ^ crc_tab[0][(c ^ *p++) & 0xff];
    return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(uint32_t c, const uint8_t *p, size_t n)
{
    uint64_t c64;

    while (n && ((uintptr_t)p & 7)) {
        c = __builtin_ia32_crc32qi(c, *p++);
        n--;
    }
    c64 = c;
    while (n >= 8) {
        uint64_t v;

        memcpy(&v, p, 8);
        c64 = __builtin_ia32_crc32di(c64, v);
        p += 8;
        n -= 8;
    }
    c = (uint32_t)c64;
    while (n--)
        c = __builtin_ia32_crc32qi(c, *p++);
    return c;
}
#endif

uint32_t lb_crc32c(uint32_t crc, const void *buf, size_t len)
{
    pthread_once(&tables_once, tables_build);
#if defined(__x86_64__)
    if (crc_hw)
        return ~crc32c_hw(~crc, buf, len);
#endif
    return ~crc32c_sw(~crc, buf, len);
}

/* md5 (RFC 1321) */

struct md5 {
    uint32_t h[4];
    uint64_t bytes;
    uint8_t blk[64];
};

static const uint8_t md5_s[64] = {
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
    5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
    6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
};

static inline uint32_t rotl32(uint32_t x, unsigned k) { return (x << k) | (x >> (32 - k)); }

static void md5_block(uint32_t h[4], const uint8_t *p)
{
    uint32_t m[16], a = h[0], b = h[1], c = h[2], d = h[3];

    for (int i = 0; i < 16; i++)
        m[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
               (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
    for (unsigned i = 0; i < 64; i++) {
        uint32_t f, g;

        if (i < 16) {
            f = (b & c) | (~b & d);
            g = i;
        } else if (i < 32) {
            f = (d & b) | (~d & c);
            g = (5 * i + 1) & 15;
        } else if (i < 48) {
            f = b ^ c ^ d;
            g = (3 * i + 5) & 15;
        } else {
            f = c ^ (b | ~d);
            g = (7 * i) & 15;
        }
        f += a + md5_k[i] + m[g];
        a = d;
        d = c;
        c = b;
        b += rotl32(f, md5_s[i]);
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
}

static void md5_update(struct md5 *m, const uint8_t *p, size_t n)
{
    size_t used = m->bytes & 63;

    m->bytes += n;
    if (used) {
        size_t take = 64 - used < n ? 64 - used : n;

        memcpy(m->blk + used, p, take);
        p += take;
        n -= take;
        if (used + take < 64)
            return;
        md5_block(m->h, m->blk);
    }
    for (; n >= 64; p += 64, n -= 64)
        md5_block(m->h, p);
    memcpy(m->blk, p, n);
}

void lb_md5(const void *buf, size_t len, uint8_t out[16])
{
    struct md5 m = { .h = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476 } };
    uint8_t pad[72] = { 0x80 };
    uint64_t bits;
    size_t npad;

    pthread_once(&tables_once, tables_build);
    md5_update(&m, buf, len);
    bits = m.bytes * 8;
    npad = ((m.bytes & 63) < 56 ? 56 : 120) - (m.bytes & 63);
    for (int i = 0; i < 8; i++)
        pad[npad + i] = (uint8_t)(bits >> (8 * i));
    md5_update(&m, pad, npad + 8);
    for (int i = 0; i < 16; i++)
        out[i] = (uint8_t)(m.h[i / 4] >> (8 * (i % 4)));
}

/* blocks */

void lb_verify_cfg_init(struct lb_verify_cfg *v, int kind, uint64_t pattern)
{
    unsigned n = 1;

    memset(v, 0, sizeof(*v));
    v->kind = kind;
    while (n < 8 && (pattern >> (8 * n)))
        n++;
    for (unsigned i = 0; i < n; i++)
        v->pattern[i] = (uint8_t)(pattern >> (8 * (n - 1 - i)));
    v->plen = n;
}

static void payload_fill(uint8_t *p, size_t n, uint64_t seed, uint64_t offset)
{
    uint64_t x = seed ^ (offset * 0x9E3779B97F4A7C15ull);

    for (; n >= 8; p += 8, n -= 8) {
        uint64_t z = (x += 0x9E3779B97F4A7C15ull);

        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        memcpy(p, &z, 8);
    }
    for (; n; n--)
        *p++ = (uint8_t)(x >> (8 * n));
}

static void payload_sum(int kind, const uint8_t *p, size_t n, uint8_t sum[16])
{
    memset(sum, 0, 16);
    if (kind == LB_VERIFY_META)
        return;
    if (kind == LB_VERIFY_MD5) {
        lb_md5(p, n, sum);
    } else {
        uint32_t c = lb_crc32c(0, p, n);

        for (int i = 0; i < 4; i++)
            sum[i] = (uint8_t)(c >> (8 * i));
    }
}

void lb_verify_fill(const struct lb_verify_cfg *v, void *buf, uint32_t len,
                    uint64_t offset, uint64_t generation, uint64_t seed)
{
    uint8_t *p = buf;
    struct lb_vhdr h;

    if (v->kind == LB_VERIFY_PATTERN || len < LB_VHDR_SIZE) {
        for (uint32_t i = 0; i < len; i++)
            p[i] = v->pattern[i % v->plen];
        return;
    }
    memset(&h, 0, sizeof(h));
    h.magic = LB_VHDR_MAGIC;
    h.len = len;
    h.offset = offset;
    h.generation = generation;
    h.seed = seed;
    h.kind = (uint32_t)v->kind;
    payload_fill(p + LB_VHDR_SIZE, len - LB_VHDR_SIZE, seed, offset);
    payload_sum(v->kind, p + LB_VHDR_SIZE, len - LB_VHDR_SIZE, h.sum);
    memset(p, 0, LB_VHDR_SIZE);
    memcpy(p, &h, sizeof(h));
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case LB_VERIFY_CRC32C: return "crc32c";
    case LB_VERIFY_MD5: return "md5";
    case LB_VERIFY_PATTERN: return "pattern";
    case LB_VERIFY_META: return "meta";
    default: return "none";
    }
}

static int where_msg(char *msg, size_t len, const struct lb_vwhere *at, const char *what)
{
    snprintf(msg, len, "verify: %s in %s at offset %llu (block %llu): ",
             what, at->path, (unsigned long long)at->offset,
             (unsigned long long)at->block);
    return (int)strlen(msg);
}

static int check_pattern(const struct lb_verify_cfg *v, const uint8_t *p,
                         const struct lb_vwhere *at, char *msg, size_t len)
{
    for (uint32_t i = 0; i < at->len; i++) {
        uint8_t want = v->pattern[i % v->plen];

        if (p[i] != want) {
            int n = where_msg(msg, len, at, "pattern mismatch");

            snprintf(msg + n, len - n, "expected 0x%02x, found 0x%02x at byte %u",
                     want, p[i], i);
            return -EILSEQ;
        }
    }
    return 0;
}

static int bad_field(char *msg, size_t len, const struct lb_vwhere *at,
                     const char *field, uint64_t want, uint64_t got)
{
    int n = where_msg(msg, len, at, "bad header");

    snprintf(msg + n, len - n, "%s 0x%llx expected, found 0x%llx", field,
             (unsigned long long)want, (unsigned long long)got);
    return -EILSEQ;
}

static int check_header(const struct lb_verify_cfg *v, const struct lb_vhdr *h,
                        const struct lb_vwhere *at, char *msg, size_t len)
{
    if (h->magic != LB_VHDR_MAGIC)
        return bad_field(msg, len, at, "magic", LB_VHDR_MAGIC, h->magic);
    if (h->offset != at->offset)
        return bad_field(msg, len, at, "offset", at->offset, h->offset);
    if (h->len != at->len)
        return bad_field(msg, len, at, "length", at->len, h->len);
    if (h->kind != (uint32_t)v->kind) {
        int n = where_msg(msg, len, at, "bad header");

        snprintf(msg + n, len - n, "written with verify=%s, checked as %s",
                 kind_name((int)h->kind), kind_name(v->kind));
        return -EILSEQ;
    }
    if (at->generation != UINT64_MAX && h->generation != at->generation)
        return bad_field(msg, len, at, "generation", at->generation, h->generation);
    return 0;
}

static void hex(char *out, const uint8_t *b, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

static int sum_mismatch(int kind, const uint8_t want[16], const uint8_t got[16],
                        const struct lb_vwhere *at, char *msg, size_t len)
{
    char a[40], b[40];
    int n = where_msg(msg, len, at, kind == LB_VERIFY_MD5 ? "md5 mismatch" : "crc32c mismatch");

    if (kind == LB_VERIFY_MD5) {
        hex(a, want, 16);
        hex(b, got, 16);
    } else {
        snprintf(a, sizeof(a), "0x%02x%02x%02x%02x", want[3], want[2], want[1], want[0]);
        snprintf(b, sizeof(b), "0x%02x%02x%02x%02x", got[3], got[2], got[1], got[0]);
    }
    snprintf(msg + n, len - n, "expected %s, found %s", a, b);
    return -EILSEQ;
}

int lb_verify_check(const struct lb_verify_cfg *v, const void *buf,
                    const struct lb_vwhere *at, char *msg, size_t len)
{
    const uint8_t *p = buf;
    struct lb_vhdr h;
    uint8_t sum[16];
    int ret;

    if (v->kind == LB_VERIFY_PATTERN || at->len < LB_VHDR_SIZE)
        return check_pattern(v, p, at, msg, len);
    memcpy(&h, p, sizeof(h));
    ret = check_header(v, &h, at, msg, len);
    if (ret)
        return ret;
    payload_sum(v->kind, p + LB_VHDR_SIZE, at->len - LB_VHDR_SIZE, sum);
    if (memcmp(sum, h.sum, 16) != 0)
        return sum_mismatch(v->kind, h.sum, sum, at, msg, len);
    return 0;
}
