/*
 * Container layouts of a training dataset: npz, TFRecord and HDF5, written
 * and read as the Python readers DLIO uses do.
 *
 * npz is what numpy.savez(path, x=records, y=labels) writes: a stored
 * zip of x.npy (uint8, shape (sample bytes, samples)) and y.npy (int64
 * zeros), each local header with the zip64 extra field that numpy asks
 * for, the central directory, and a zip64 end record only when an offset
 * or size needs one, as Python's zipfile does; or, as
 * numpy.savez_compressed, the members deflated by zlib with zipfile's
 * settings (default level, raw deflate).  Python's zipfile and numpy open
 * it.  The reader parses the real structures, so it reads npz files made
 * by numpy too.
 *
 * TFRecord files hold one record per sample: length (uint64 LE), masked
 * crc32c of the length, a tf.train.Example {image: bytes, size: int64}
 * as DLIO's generator serializes it, masked crc32c of the data.  The
 * parser checks both CRCs, as TensorFlow's reader does.
 *
 * HDF5 is what h5py.File(name, 'w', libver='latest') writes for DLIO:
 * records_0 (uint8, samples x sample bytes, contiguous or chunked, the
 * chunks plain or deflated as compression='gzip' makes them) and labels.
 * train_hdf5.c plans the file, builds its metadata and reads it; here its
 * data is written around that metadata (deflated: before it).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef LB_HAVE_ZLIB
#include <zlib.h>
#endif

#include "base/verify.h"
#include "train/train_fmt.h"
#include "train/train_hdf5.h"

#define ZIP64_LIMIT ((1ull << 31) - 1)  /* Python's zipfile */
#define ZIP_LOCAL 30u
#define ZIP_CENTRAL 46u
#define ZIP_END 22u
#define ZIP64_END 56u
#define ZIP64_LOCATOR 20u
#define ZIP_EXTRA64 20u                 /* id, size, two uint64 */
#define NPY_ALIGN 64u

/* ---- little-endian fields ---- */

static void le16(uint8_t *p, uint64_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void le32(uint8_t *p, uint64_t v) { le16(p, v); le16(p + 2, v >> 16); }
static void le64(uint8_t *p, uint64_t v) { le32(p, v); le32(p + 4, v >> 32); }
static uint64_t rd16(const uint8_t *p) { return p[0] | (uint64_t)p[1] << 8; }
static uint64_t rd32(const uint8_t *p) { return rd16(p) | rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return rd32(p) | rd32(p + 4) << 32; }

/* ---- CRC-32 (zip) ---- */

static uint32_t crc_tab[8][256];

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
        crc_tab[0][i] = c;
    }
    for (int k = 1; k < 8; k++)
        for (uint32_t i = 0; i < 256; i++)
            crc_tab[k][i] = (crc_tab[k - 1][i] >> 8) ^ crc_tab[0][crc_tab[k - 1][i] & 0xff];
}

uint32_t lb_fmt_crc32(uint32_t crc, const void *buf, size_t n)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    const uint8_t *p = buf;
    uint32_t c = ~crc;
    pthread_once(&once, crc_init);
    for (; n >= 8; n -= 8, p += 8) {
        uint32_t a = c ^ (uint32_t)rd32(p), b = (uint32_t)rd32(p + 4);
        c = crc_tab[7][a & 0xff] ^ crc_tab[6][(a >> 8) & 0xff] ^
            crc_tab[5][(a >> 16) & 0xff] ^ crc_tab[4][a >> 24] ^
            crc_tab[3][b & 0xff] ^ crc_tab[2][(b >> 8) & 0xff] ^
            crc_tab[1][(b >> 16) & 0xff] ^ crc_tab[0][b >> 24];
    }
    while (n--)
        c = (c >> 8) ^ crc_tab[0][(c ^ *p++) & 0xff];
    return ~c;
}

/* ---- CRCs of runs of zeros ---- */

/* Both CRCs are reflected: bit 31 holds the x^0 term, and feeding a zero
 * byte multiplies the register by x^8 modulo the polynomial.  n zero bytes
 * multiply it by x^(8n), found by squaring. */
static uint32_t gf2_mulmod(uint32_t a, uint32_t b, uint32_t poly)
{
    uint32_t prod = 0;
    for (int k = 0; k < 32; k++) {      /* b holds b * x^k */
        if (a & (0x80000000u >> k))
            prod ^= b;
        b = b & 1 ? (b >> 1) ^ poly : b >> 1;
    }
    return prod;
}

static uint32_t crc_zeros(uint32_t crc, uint64_t n, uint32_t poly)
{
    uint32_t xn = 0x80000000u, sq = 0x80000000u >> 8;     /* x^0, x^8 */
    for (; n; n >>= 1, sq = gf2_mulmod(sq, sq, poly))
        if (n & 1)
            xn = gf2_mulmod(xn, sq, poly);
    return ~gf2_mulmod(~crc, xn, poly);
}

uint32_t lb_fmt_crc32_zeros(uint32_t crc, uint64_t n)
{
    return crc_zeros(crc, n, 0xEDB88320u);
}

uint32_t lb_fmt_crc32c_zeros(uint32_t crc, uint64_t n)
{
    return crc_zeros(crc, n, 0x82F63B78u);
}

uint32_t lb_fmt_tf_mask(uint32_t crc)
{
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

/* ---- writing ---- */

struct fw {                      /* a file being written, front to back */
    int fd;
    uint64_t off;
    char *pat;                   /* pattern buffer, stamped in place */
    size_t patlen;
    uint64_t f;
    int sum;                     /* 1: zip crc, 2: crc32c, of what passes */
    uint32_t crc;
    void *z;                     /* a z_stream: what passes is deflated */
    int rc;
};

static void fw_write(struct fw *w, const void *p, size_t n)
{
    for (const char *q = p; n && w->rc == 0;) {
        ssize_t k = write(w->fd, q, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            w->rc = k < 0 ? -errno : -EIO;
            return;
        }
        q += k;
        n -= (size_t)k;
        w->off += (uint64_t)k;
    }
}

/* n bytes (finish: and the end of the stream) through the deflater. */
static void fw_deflate(struct fw *w, const void *p, size_t n, int finish)
{
#ifdef LB_HAVE_ZLIB
    unsigned char out[1u << 16];
    z_stream *z = w->z;
    z->next_in = (Bytef *)p;
    z->avail_in = (uInt)n;              /* n is at most the pattern's length */
    for (;;) {
        z->next_out = out;
        z->avail_out = sizeof out;
        int rc = deflate(z, finish ? Z_FINISH : Z_NO_FLUSH);
        if (rc == Z_STREAM_ERROR) {
            w->rc = -EIO;
            return;
        }
        fw_write(w, out, sizeof out - z->avail_out);
        if (w->rc || (finish ? rc == Z_STREAM_END : z->avail_in == 0 && z->avail_out))
            return;
    }
#else
    w->rc = -ENOTSUP;
#endif
}

static void fw_put(struct fw *w, const void *p, size_t n)
{
    if (w->sum == 1)
        w->crc = lb_fmt_crc32(w->crc, p, n);
    else if (w->sum == 2)
        w->crc = lb_crc32c(w->crc, p, n);
    if (w->z)
        fw_deflate(w, p, n, 0);
    else
        fw_write(w, p, n);
}

static void fw_zeros(struct fw *w, uint64_t n);

/* n bytes of zeros left as a hole: passed over, their CRC computed. */
static void fw_hole(struct fw *w, uint64_t n)
{
    if (w->sum == 1)
        w->crc = lb_fmt_crc32_zeros(w->crc, n);
    else if (w->sum == 2)
        w->crc = lb_fmt_crc32c_zeros(w->crc, n);
    w->off += n;
    if (w->rc == 0 && lseek(w->fd, (off_t)w->off, SEEK_SET) < 0)
        w->rc = -errno;
}

/* n bytes of pattern, each 4 KiB block stamped with the file and offset
 * (no pattern: a hole). */
static void fw_pattern(struct fw *w, uint64_t n)
{
    if (w->pat == NULL && !w->z) {
        fw_hole(w, n);
        return;
    }
    if (w->pat == NULL) {
        fw_zeros(w, n);                 /* deflated: zeros */
        return;
    }
    while (n && w->rc == 0) {
        size_t k = n < w->patlen ? (size_t)n : w->patlen;
        for (size_t b = 0; b + 16 <= k; b += 4096) {
            uint64_t stamp[2] = {w->f, w->off + b};
            memcpy(w->pat + b, stamp, sizeof stamp);
        }
        fw_put(w, w->pat, k);
        n -= k;
    }
}

static void fw_zeros(struct fw *w, uint64_t n)
{
    static const char z[4096];
    while (n && w->rc == 0) {
        size_t k = n < sizeof z ? (size_t)n : sizeof z;
        fw_put(w, z, k);
        n -= k;
    }
}

static void fw_at(struct fw *w, const void *p, size_t n, uint64_t off)
{
    if (w->rc == 0 && pwrite(w->fd, p, n, (off_t)off) != (ssize_t)n)
        w->rc = -EIO;
}

/* ---- npz ---- */

/* The .npy header (magic, version 1.0, length, dict padded to 64). */
static size_t npy_header(char *out, const char *descr, uint64_t a, uint64_t b, int two)
{
    char shape[64], dict[200];
    if (two)
        snprintf(shape, sizeof shape, "(%llu, %llu)", (unsigned long long)a,
                 (unsigned long long)b);
    else
        snprintf(shape, sizeof shape, "(%llu,)", (unsigned long long)a);
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     descr, shape);
    size_t total = (10 + (size_t)n + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    le16((uint8_t *)out + 8, total - 10);
    memcpy(out + 10, dict, (size_t)n);
    memset(out + 10 + n, ' ', total - 10 - (size_t)n - 1);
    out[total - 1] = '\n';
    return total;
}

struct npz_member {
    const char *name;
    char hdr[256];
    size_t hlen;
    uint64_t data;               /* bytes after the header */
    uint64_t off;                /* of the local header */
    uint32_t crc;
    int method;                  /* 0 stored, 8 deflated */
    uint64_t csize;              /* bytes stored in the zip */
};

static void npz_members(const struct lb_fmt_shape *s, struct npz_member m[2])
{
    m[0].name = "x.npy";
    m[0].hlen = npy_header(m[0].hdr, "|u1", s->len, s->spf, 1);
    m[0].data = s->len * s->spf;
    m[1].name = "y.npy";
    m[1].hlen = npy_header(m[1].hdr, "<i8", s->spf, 0, 0);
    m[1].data = 8ull * s->spf;
    for (int i = 0; i < 2; i++) {
        m[i].method = s->deflate ? 8 : 0;
        m[i].csize = m[i].hlen + m[i].data;     /* stored; deflated: once written */
    }
}

static uint64_t npz_size(const struct lb_fmt_shape *s, uint64_t *cd_off, uint64_t *cd_len)
{
    struct npz_member m[2];
    uint64_t off = 0, cd = 0;
    npz_members(s, m);
    for (int i = 0; i < 2; i++) {
        uint64_t size = m[i].csize;
        uint64_t x = (size > ZIP64_LIMIT ? 16 : 0) + (off > ZIP64_LIMIT ? 8 : 0);
        cd += ZIP_CENTRAL + 5 + (x ? 4 + x : 0);
        off += ZIP_LOCAL + 5 + ZIP_EXTRA64 + size;
    }
    *cd_off = off;
    *cd_len = cd;
    int z64 = off > ZIP64_LIMIT || cd > ZIP64_LIMIT;
    return off + cd + (z64 ? ZIP64_END + ZIP64_LOCATOR : 0) + ZIP_END;
}

/* 1980-01-01 00:00: files laid out twice are byte for byte the same. */
#define DOS_DATE ((0u << 9) | (1u << 5) | 1u)

static void zip_local(uint8_t *p, const struct npz_member *m)
{
    uint64_t size = m->hlen + m->data;
    memset(p, 0, ZIP_LOCAL + 5 + ZIP_EXTRA64);
    le32(p, 0x04034b50);
    le16(p + 4, 45);                    /* zip64 */
    le16(p + 8, m->method);
    le16(p + 12, DOS_DATE);
    le32(p + 14, m->crc);
    le32(p + 18, 0xffffffffu);
    le32(p + 22, 0xffffffffu);
    le16(p + 26, 5);
    le16(p + 28, ZIP_EXTRA64);
    memcpy(p + 30, m->name, 5);
    le16(p + 35, 1);
    le16(p + 37, 16);
    le64(p + 39, size);
    le64(p + 47, m->csize);
}

static size_t zip_central(uint8_t *p, const struct npz_member *m)
{
    uint64_t size = m->hlen + m->data, x[2];
    int big = size > ZIP64_LIMIT || m->csize > ZIP64_LIMIT, far = m->off > ZIP64_LIMIT;
    size_t nx = 0;
    memset(p, 0, ZIP_CENTRAL + 5 + 4 + 24);
    le32(p, 0x02014b50);
    p[4] = 45;
    p[5] = 3;                           /* made on Unix */
    le16(p + 6, 45);
    le16(p + 10, m->method);
    le16(p + 12, DOS_DATE);
    le32(p + 16, m->crc);
    le32(p + 20, big ? 0xffffffffu : m->csize);
    le32(p + 24, big ? 0xffffffffu : size);
    le16(p + 28, 5);
    le32(p + 38, 0600u << 16);
    le32(p + 42, far ? 0xffffffffu : m->off);
    memcpy(p + 46, m->name, 5);
    if (big)
        x[nx++] = size;
    if (big)
        x[nx++] = m->csize;
    size_t xl = (size_t)nx * 8 + (far ? 8 : 0);
    if (xl == 0)
        return ZIP_CENTRAL + 5;
    le16(p + 30, 4 + xl);
    le16(p + 51, 1);
    le16(p + 53, xl);
    for (size_t i = 0; i < nx; i++)
        le64(p + 55 + 8 * i, x[i]);
    if (far)
        le64(p + 55 + 8 * nx, m->off);
    return ZIP_CENTRAL + 5 + 4 + xl;
}

static void zip_end(struct fw *w, uint64_t cd_off, uint64_t cd_len)
{
    uint8_t e[ZIP64_END + ZIP64_LOCATOR + ZIP_END] = {0}, *p = e;
    int z64 = cd_off > ZIP64_LIMIT || cd_len > ZIP64_LIMIT;
    if (z64) {
        le32(p, 0x06064b50);
        le64(p + 4, ZIP64_END - 12);
        le16(p + 12, 45);
        le16(p + 14, 45);
        le64(p + 24, 2);
        le64(p + 32, 2);
        le64(p + 40, cd_len);
        le64(p + 48, cd_off);
        p += ZIP64_END;
        le32(p, 0x07064b50);
        le64(p + 8, cd_off + cd_len);
        le32(p + 16, 1);
        p += ZIP64_LOCATOR;
    }
    le32(p, 0x06054b50);
    le16(p + 8, 2);
    le16(p + 10, 2);
    le32(p + 12, cd_len > ZIP64_LIMIT ? 0xffffffffu : cd_len);
    le32(p + 16, cd_off > ZIP64_LIMIT ? 0xffffffffu : cd_off);
    fw_put(w, e, (size_t)(p + ZIP_END - e));
}

int lb_fmt_have_deflate(void)
{
#ifdef LB_HAVE_ZLIB
    return 1;
#else
    return 0;
#endif
}

/* A member's bytes from here on go through zlib as zipfile's
 * ZIP_DEFLATED sets it: the default level, a raw deflate stream. */
static int npz_deflate_begin(struct fw *w)
{
#ifdef LB_HAVE_ZLIB
    z_stream *z = calloc(1, sizeof *z);
    if (z == NULL || deflateInit2(z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8,
                                  Z_DEFAULT_STRATEGY) != Z_OK) {
        free(z);
        w->rc = -ENOMEM;
        return w->rc;
    }
    w->z = z;
    return 0;
#else
    w->rc = -ENOTSUP;
    return w->rc;
#endif
}

static void npz_deflate_end(struct fw *w)
{
#ifdef LB_HAVE_ZLIB
    if (w->rc == 0)
        fw_deflate(w, NULL, 0, 1);
    deflateEnd(w->z);
    free(w->z);
    w->z = NULL;
#endif
}

static void npz_write(struct fw *w, const struct lb_fmt_shape *s)
{
    struct npz_member m[2];
    uint8_t lh[ZIP_LOCAL + 5 + ZIP_EXTRA64], cd[2][ZIP_CENTRAL + 5 + 4 + 24];
    uint64_t cd_off = w->off, cd_len = 0;
    npz_members(s, m);
    for (int i = 0; i < 2 && w->rc == 0; i++) {
        m[i].off = w->off;
        m[i].crc = 0;
        zip_local(lh, &m[i]);
        fw_put(w, lh, sizeof lh);
        uint64_t data0 = w->off;
        if (s->deflate && npz_deflate_begin(w) < 0)
            return;
        w->sum = 1;
        w->crc = 0;
        fw_put(w, m[i].hdr, m[i].hlen);
        if (i == 0)
            fw_pattern(w, m[i].data);
        else
            fw_zeros(w, m[i].data);
        if (s->deflate)
            npz_deflate_end(w);
        w->sum = 0;
        m[i].crc = w->crc;
        m[i].csize = w->off - data0;
        zip_local(lh, &m[i]);           /* the CRC, once known */
        fw_at(w, lh, sizeof lh, m[i].off);
    }
    cd_off = w->off;
    for (int i = 0; i < 2; i++) {
        size_t n = zip_central(cd[i], &m[i]);
        fw_put(w, cd[i], n);
        cd_len += n;
    }
    zip_end(w, cd_off, cd_len);
}

/* ---- TFRecord ---- */

static size_t vlen(uint64_t v)
{
    size_t n = 1;
    while (v >>= 7)
        n++;
    return n;
}

static size_t vput(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    for (; v >= 0x80; v >>= 7)
        p[n++] = (uint8_t)(v | 0x80);
    p[n++] = (uint8_t)v;
    return n;
}

/* The tf.train.Example of a sample of L bytes: the bytes before the image
 * (pre), the image, the bytes after it (post: the size feature).  Returns
 * the serialized length. */
static uint64_t tf_example(uint64_t L, uint8_t *pre, size_t *npre, uint8_t *post, size_t *npost)
{
    uint64_t bl = 1 + vlen(L) + L, fe = 1 + vlen(bl) + bl;
    uint64_t en1 = 7 + 1 + vlen(fe) + fe;
    uint64_t il = 1 + vlen(vlen(L)) + vlen(L), fs = 1 + vlen(il) + il;
    uint64_t en2 = 6 + 1 + vlen(fs) + fs;
    uint64_t fts = 1 + vlen(en1) + en1 + 1 + vlen(en2) + en2;
    size_t n = 0, m = 0;
    if (pre) {
        pre[n++] = 0x0a, n += vput(pre + n, fts);           /* Example.features */
        pre[n++] = 0x0a, n += vput(pre + n, en1);           /* feature["image"] */
        memcpy(pre + n, "\x0a\x05image\x12", 8), n += 8;
        n += vput(pre + n, fe);
        pre[n++] = 0x0a, n += vput(pre + n, bl);            /* bytes_list */
        pre[n++] = 0x0a, n += vput(pre + n, L);             /* value */
        post[m++] = 0x0a, m += vput(post + m, en2);         /* feature["size"] */
        memcpy(post + m, "\x0a\x04size\x12", 7), m += 7;
        m += vput(post + m, fs);
        post[m++] = 0x1a, m += vput(post + m, il);          /* int64_list */
        post[m++] = 0x0a, m += vput(post + m, vlen(L));     /* packed value */
        m += vput(post + m, L);
        *npre = n;
        *npost = m;
    }
    return 1 + vlen(fts) + fts;
}

static void tf_write(struct fw *w, const struct lb_fmt_shape *s)
{
    uint8_t pre[64], post[64], hdr[12], tail[4];
    size_t npre, npost;
    uint64_t ex = tf_example(s->len, pre, &npre, post, &npost);
    le64(hdr, ex);
    le32(hdr + 8, lb_fmt_tf_mask(lb_crc32c(0, hdr, 8)));
    for (uint32_t j = 0; j < s->spf && w->rc == 0; j++) {
        fw_put(w, hdr, sizeof hdr);
        w->sum = 2;
        w->crc = 0;
        fw_put(w, pre, npre);
        fw_pattern(w, s->len);
        fw_put(w, post, npost);
        w->sum = 0;
        le32(tail, lb_fmt_tf_mask(w->crc));
        fw_put(w, tail, sizeof tail);
    }
}

void lb_fmt_tf_init(struct lb_fmt_tf *t)
{
    memset(t, 0, sizeof *t);
    t->need = 12;
}

static int tf_bad(char *msg, size_t len, const struct lb_fmt_tf *t, const char *what)
{
    snprintf(msg, len, "not a TFRecord file: %s in record %llu", what,
             (unsigned long long)t->records);
    return -EILSEQ;
}

int lb_fmt_tf_feed(struct lb_fmt_tf *t, const char *p, size_t n,
                   void (*rec)(void *, uint64_t, uint64_t), void *arg, char *msg, size_t len)
{
    while (n) {
        size_t k = n < t->need ? n : (size_t)t->need;
        if (t->part == 1)
            t->crc = lb_crc32c(t->crc, p, k);
        else
            memcpy(t->hdr + (t->part ? 4 : 12) - t->need, p, k);
        p += k;
        n -= k;
        if ((t->need -= k))
            continue;
        if (t->part == 0) {
            if (rd32(t->hdr + 8) != lb_fmt_tf_mask(lb_crc32c(0, t->hdr, 8)))
                return tf_bad(msg, len, t, "length CRC mismatch");
            t->len = rd64(t->hdr);
            t->crc = 0;
            t->part = t->len ? 1 : 2;
            t->need = t->len ? t->len : 4;
        } else if (t->part == 1) {
            t->part = 2;
            t->need = 4;
        } else {
            if (rd32(t->hdr) != lb_fmt_tf_mask(t->crc))
                return tf_bad(msg, len, t, "data CRC mismatch");
            rec(arg, t->records++, t->len);
            t->part = 0;
            t->need = 12;
        }
    }
    return 0;
}

int lb_fmt_tf_end(const struct lb_fmt_tf *t, char *msg, size_t len)
{
    if (t->part == 0 && t->need == 12)
        return 0;
    return tf_bad(msg, len, t, "file ends inside");
}

/* ---- HDF5 (train_hdf5.c plans it and builds its metadata) ---- */

#ifdef LB_HAVE_ZLIB
/* A chunk's cb bytes at raw: the pattern (none: zeros), each 4 KiB stamped
 * with the file and the offset the byte would have unfiltered (at). */
static void h5_chunk_fill(const struct fw *w, uint8_t *raw, uint64_t cb, uint64_t at)
{
    if (w->pat == NULL) {
        memset(raw, 0, cb);
        return;
    }
    for (uint64_t i = 0; i < cb; i += w->patlen)
        memcpy(raw + i, w->pat, cb - i < w->patlen ? cb - i : w->patlen);
    for (uint64_t b = 0; b + 16 <= cb; b += 4096) {
        uint64_t stamp[2] = {w->f, at + b};
        memcpy(raw + b, stamp, sizeof stamp);
    }
}

/* Each chunk as libhdf5's deflate filter stores it (compress2 at the
 * level: a zlib stream, kept even when larger than the chunk), back to
 * back from p->data; the metadata, which names their sizes, written last
 * at offset 0. */
static void h5_write_gzip(struct fw *w, struct lb_h5_plan *p)
{
    uint64_t n = p->ndset * p->nchunks, cb = p->cbytes;
    uLong bound = compressBound((uLong)cb);
    uint64_t *stored = calloc(n, sizeof *stored);
    uint8_t *raw = malloc(cb), *out = malloc(bound), *meta = NULL;
    if (stored == NULL || raw == NULL || out == NULL)
        w->rc = -ENOMEM;
    fw_hole(w, p->data);                /* the metadata's room */
    for (uint64_t i = 0; i < n && w->rc == 0; i++) {
        uLongf len = bound;
        h5_chunk_fill(w, raw, cb, p->data + i * cb);
        if (compress2(out, &len, raw, (uLong)cb, p->level) != Z_OK)
            w->rc = -EIO;
        fw_write(w, out, len);
        stored[i] = len;
    }
    free(raw);
    free(out);
    fw_zeros(w, 8 * p->rows);           /* labels */
    if (w->rc == 0) {
        lb_h5_place(p, stored);
        w->rc = lb_h5_meta(p, &meta);
    }
    if (w->rc == 0)
        fw_at(w, meta, p->meta, 0);
    free(meta);
    free(stored);
}
#else
static void h5_write_gzip(struct fw *w, struct lb_h5_plan *p)
{
    (void)p;
    w->rc = -ENOTSUP;
}
#endif

static void h5_write(struct fw *w, const struct lb_fmt_shape *s)
{
    struct lb_h5_plan p;
    uint8_t *meta;
    if ((w->rc = lb_h5_plan(s, &p)) < 0)
        return;
    if (p.gzip) {
        h5_write_gzip(w, &p);
        return;
    }
    if ((w->rc = lb_h5_meta(&p, &meta)) < 0)
        return;
    fw_put(w, meta, p.meta);
    free(meta);
    fw_pattern(w, p.ndset * p.data_len);   /* records_0 .. records_{N-1} */
    fw_zeros(w, 8 * p.rows);            /* labels */
}

/* ---- sizes and the writer's door ---- */

uint64_t lb_fmt_file_size(enum lb_train_container k, const struct lb_fmt_shape *s)
{
    struct lb_h5_plan p;
    uint64_t a, b;
    switch (k) {
    case LB_TRAIN_NPZ:
        return s->deflate ? 0 : npz_size(s, &a, &b);
    case LB_TRAIN_TFRECORD:
        return s->spf * (16 + tf_example(s->len, NULL, NULL, NULL, NULL));
    case LB_TRAIN_HDF5:
        return s->gzip || lb_h5_plan(s, &p) < 0 ? 0 : p.eof;
    default:
        return s->len * s->spf;
    }
}

int lb_fmt_write(enum lb_train_container k, int fd, const struct lb_fmt_shape *s,
                 uint64_t f, char *buf, size_t buflen)
{
    struct fw w = {.fd = fd, .pat = buf, .patlen = buflen, .f = f};
    if (k == LB_TRAIN_NPZ)
        npz_write(&w, s);
    else if (k == LB_TRAIN_TFRECORD)
        tf_write(&w, s);
    else if (k == LB_TRAIN_HDF5)
        h5_write(&w, s);
    else
        fw_pattern(&w, s->len * s->spf);
    if (w.rc == 0 && buf == NULL && ftruncate(fd, (off_t)w.off) < 0)
        w.rc = -errno;                  /* a hole at the end */
    return w.rc;
}

/* ---- reading ---- */

static int pread_all(int fd, void *buf, uint64_t len, uint64_t off, struct lb_fmt_io *io)
{
    char *p = buf;
    while (len) {
        ssize_t n = pread(fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -ENODATA;
        p += n;
        len -= (uint64_t)n;
        off += (uint64_t)n;
        io->bytes += (uint64_t)n;
    }
    return 0;
}

/* len bytes from off in reads of at most `piece` bytes into the scratch. */
static int read_span(int fd, uint64_t off, uint64_t len, uint64_t piece, struct lb_fmt_io *io)
{
    piece = piece < io->buflen ? piece : io->buflen;
    int rc = 0;
    while (rc == 0 && len) {
        uint64_t n = len < piece ? len : piece;
        rc = pread_all(fd, io->buf, n, off, io);
        off += n;
        len -= n;
    }
    return rc;
}

static int bad(struct lb_fmt_io *io, int rc, const char *what)
{
    snprintf(io->msg, sizeof io->msg, "%s", what);
    return rc;
}

/* The end records: where the central directory is and how long it is. */
static int npz_end(int fd, struct lb_fmt_io *io, uint64_t *cd_off, uint64_t *cd_len)
{
    uint8_t *b = (uint8_t *)io->buf;
    off_t size = lseek(fd, 0, SEEK_END);
    if (size < 0)
        return -errno;
    if ((uint64_t)size < ZIP_END)
        return bad(io, -EILSEQ, "not a zip file (too short)");
    uint64_t at = (uint64_t)size - ZIP_END;
    int rc = pread_all(fd, b, ZIP_END, at, io);
    if (rc == 0 && rd32(b) != 0x06054b50) {     /* a comment: search the tail */
        uint64_t tail = (uint64_t)size < 65536 + ZIP_END ? (uint64_t)size : 65536 + ZIP_END;
        rc = pread_all(fd, b, tail, (uint64_t)size - tail, io);
        int64_t i = (int64_t)tail - ZIP_END;
        while (rc == 0 && i >= 0 && rd32(b + i) != 0x06054b50)
            i--;
        if (rc == 0 && i < 0)
            return bad(io, -EILSEQ, "not a zip file (no end of central directory)");
        at = (uint64_t)size - tail + (uint64_t)i;
        memmove(b, b + i, ZIP_END);
    }
    if (rc < 0)
        return rc;
    *cd_len = rd32(b + 12);
    *cd_off = rd32(b + 16);
    if (at < ZIP64_LOCATOR)
        return 0;
    rc = pread_all(fd, b, ZIP64_LOCATOR, at - ZIP64_LOCATOR, io);   /* as zipfile */
    if (rc < 0 || rd32(b) != 0x07064b50)
        return rc;
    uint64_t e64 = rd64(b + 8);
    if ((rc = pread_all(fd, b, ZIP64_END, e64, io)) < 0)
        return rc;
    if (rd32(b) != 0x06064b50)
        return bad(io, -EILSEQ, "not a zip file (bad zip64 end record)");
    *cd_len = rd64(b + 40);
    *cd_off = rd64(b + 48);
    return 0;
}

/* x.npy as the central directory gives it. */
struct npz_entry {
    uint64_t hoff;               /* its local header */
    uint64_t csize, usize;       /* stored and array bytes */
    uint32_t crc;
    int method;
};

/* The zip64 extra field among the xl bytes of extra fields at p: the
 * 64-bit values of those of usize, csize and off (NULL: not in this
 * header) that hold 0xffffffff, in that order, as far as the field holds
 * them. */
static void zip64_extra(const uint8_t *p, uint64_t xl, uint64_t *usize, uint64_t *csize,
                        uint64_t *off)
{
    for (uint64_t i = 0; i + 4 <= xl;) {
        uint64_t id = rd16(p + i), end = i + 4 + rd16(p + i + 2), k = i + 4;
        if (end > xl)
            break;
        uint64_t *f[3] = { usize, csize, off };
        for (int j = 0; id == 1 && j < 3; j++)
            if (f[j] && *f[j] == 0xffffffffu && k + 8 <= end) {
                *f[j] = rd64(p + k);
                k += 8;
            }
        i = end;
    }
}

/* Finds x.npy in the central directory. */
static int npz_find(const uint8_t *cd, uint64_t len, struct lb_fmt_io *io,
                    struct npz_entry *x)
{
    for (uint64_t i = 0; i + ZIP_CENTRAL <= len;) {
        const uint8_t *e = cd + i;
        if (rd32(e) != 0x02014b50)
            return bad(io, -EILSEQ, "not a zip file (bad central directory)");
        uint64_t nl = rd16(e + 28), xl = rd16(e + 30), cl = rd16(e + 32);
        if (i + ZIP_CENTRAL + nl + xl > len)
            break;
        if (nl == 5 && !memcmp(e + 46, "x.npy", 5)) {
            x->method = (int)rd16(e + 10);
            if (x->method == 8 && !lb_fmt_have_deflate())
                return bad(io, -ENOTSUP, "x.npy is deflated (numpy.savez_compressed) and "
                           "this build has no zlib");
            if (x->method != 0 && x->method != 8)
                return bad(io, -ENOTSUP, "x.npy is compressed with neither store nor deflate");
            uint64_t csize = rd32(e + 20), usize = rd32(e + 24), off = rd32(e + 42);
            zip64_extra(e + 46 + nl, xl, &usize, &csize, &off);
            x->hoff = off;
            x->csize = csize;
            x->usize = usize;
            x->crc = (uint32_t)rd32(e + 16);
            return 0;
        }
        i += ZIP_CENTRAL + nl + xl + cl;
    }
    return bad(io, -EILSEQ, "no member x.npy in the npz file");
}

/* The .npy header at the front of x's bytes p (n of them): its length
 * with the magic, or 0 when more bytes are needed, -EILSEQ when bad. */
static int64_t npy_header_len(const uint8_t *p, uint64_t n, uint64_t size, struct lb_fmt_io *io)
{
    if (n >= 6 && memcmp(p, "\x93NUMPY", 6))
        return bad(io, -EILSEQ, "x.npy is not a .npy array");
    if (n < 8 || n < (p[6] == 1 ? 10u : 12u))
        return 0;
    uint64_t hl = p[6] == 1 ? rd16(p + 8) : rd32(p + 8), pre = p[6] == 1 ? 10 : 12;
    if (pre + hl > size)
        return bad(io, -EILSEQ, "x.npy has a bad header");
    return (int64_t)(pre + hl);
}

#ifdef LB_HAVE_ZLIB
#define ZIP_MIN_READ 4096u               /* zipfile's first read of a member */

struct inflating {                /* a deflated x.npy being read */
    z_stream z;
    uint32_t crc;                /* of what came out */
    uint64_t out;                /* bytes that came out */
    uint8_t head[16];            /* its first bytes: the .npy header's length */
    unsigned nhead;
    int64_t hlen;                /* that length, 0 while unknown */
};

/* Inflates n bytes at p into the scratch.  Z_OK or Z_STREAM_END, else
 * -EILSEQ with io->msg. */
static int npz_inflate_piece(struct inflating *st, const char *p, size_t n,
                             const struct npz_entry *x, struct lb_fmt_io *io)
{
    z_stream *z = &st->z;
    int zr;
    z->next_in = (Bytef *)p;
    z->avail_in = (uInt)n;
    do {
        z->next_out = (Bytef *)io->zbuf;
        z->avail_out = (uInt)io->zlen;
        zr = inflate(z, Z_NO_FLUSH);
        if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
            return bad(io, -EILSEQ, "x.npy: bad deflate data");
        uint64_t k = io->zlen - z->avail_out, room = sizeof st->head - st->nhead;
        st->crc = lb_fmt_crc32(st->crc, io->zbuf, k);
        st->out += k;
        if (st->hlen == 0 && k) {
            memcpy(st->head + st->nhead, io->zbuf, k < room ? k : room);
            st->nhead += (unsigned)(k < room ? k : room);
            st->hlen = npy_header_len(st->head, st->nhead, x->usize, io);
            if (st->hlen < 0)
                return (int)st->hlen;
        }
    } while (z->avail_out == 0 && zr != Z_STREAM_END);
    return zr == Z_BUF_ERROR ? Z_OK : zr;
}

/* The scratch inflated bytes go to, made on first use. */
static int zbuf_room(struct lb_fmt_io *io)
{
    if (io->zbuf)
        return 0;
    io->zlen = LB_FMT_NPY_BUFFER;
    return (io->zbuf = malloc(io->zlen)) ? 0 : -ENOMEM;
}

/* A raw deflate stream (zip's) set up, the scratch made. */
static int inflating_begin(struct inflating *st, struct lb_fmt_io *io)
{
    memset(st, 0, sizeof *st);
    if (zbuf_room(io) < 0 || inflateInit2(&st->z, -15) != Z_OK)
        return -ENOMEM;
    return 0;
}

/* The end of a deflated x.npy read: what came out checked against the
 * member's sizes and CRC. */
static int npz_inflated(const struct inflating *st, int zr, const struct npz_entry *x,
                        struct lb_fmt_io *io)
{
    if (zr != Z_STREAM_END || st->out != x->usize || st->hlen <= 0)
        return bad(io, -EILSEQ, "x.npy: the deflate stream and the member's size disagree");
    if (st->crc != x->crc)
        return bad(io, -EILSEQ, "x.npy: bad CRC-32");
    io->member = x->usize - (uint64_t)st->hlen;
    return 0;
}

/* A deflated x.npy from off, as zipfile hands it to numpy: its first
 * 4 KiB, then transfer-sized pieces, inflated, the CRC checked at the end. */
static int npz_inflate(int fd, uint64_t off, const struct npz_entry *x, struct lb_fmt_io *io)
{
    struct inflating st;
    if (inflating_begin(&st, io) < 0)
        return -ENOMEM;
    uint64_t left = x->csize, piece = ZIP_MIN_READ;
    uint64_t most = io->transfer < io->buflen ? io->transfer : io->buflen;
    int rc = 0, zr = Z_OK;
    while (rc == 0 && left && zr != Z_STREAM_END) {
        uint64_t n = left < piece ? left : piece;
        if ((rc = pread_all(fd, io->buf, n, off, io)) < 0)
            break;
        off += n;
        left -= n;
        piece = most;
        zr = npz_inflate_piece(&st, io->buf, (size_t)n, x, io);
        rc = zr < 0 ? zr : 0;
    }
    inflateEnd(&st.z);
    return rc < 0 ? rc : npz_inflated(&st, zr, x, io);
}

/* A deflated x.npy of x->csize bytes in memory at p, inflated. */
static int npz_inflate_mem(const char *p, const struct npz_entry *x, struct lb_fmt_io *io)
{
    struct inflating st;
    if (inflating_begin(&st, io) < 0)
        return -ENOMEM;
    uint64_t left = x->csize;
    int zr = Z_OK;
    while (left && zr == Z_OK) {        /* avail_in is 32 bits */
        size_t n = left < (1u << 30) ? (size_t)left : (1u << 30);
        zr = npz_inflate_piece(&st, p, n, x, io);
        p += n;
        left -= n;
    }
    inflateEnd(&st.z);
    return zr < 0 ? zr : npz_inflated(&st, zr, x, io);
}
#else
static int npz_inflate(int fd, uint64_t off, const struct npz_entry *x, struct lb_fmt_io *io)
{
    return bad(io, -ENOTSUP, "x.npy is deflated and this build has no zlib");
}

static int npz_inflate_mem(const char *p, const struct npz_entry *x, struct lb_fmt_io *io)
{
    return bad(io, -ENOTSUP, "x.npy is deflated and this build has no zlib");
}
#endif

int lb_fmt_npz_read(int fd, struct lb_fmt_io *io)
{
    uint8_t *b = (uint8_t *)io->buf;
    uint64_t cd_off = 0, cd_len = 0, hoff, size;
    struct npz_entry x;
    int rc = npz_end(fd, io, &cd_off, &cd_len);
    if (rc < 0)
        return rc;
    if (cd_len > io->buflen)
        return bad(io, -EFBIG, "npz central directory larger than the read buffer");
    if ((rc = pread_all(fd, b, cd_len, cd_off, io)) < 0 ||
        (rc = npz_find(b, cd_len, io, &x)) < 0)
        return rc;
    hoff = x.hoff;
    size = x.csize;
    if ((rc = pread_all(fd, b, ZIP_LOCAL, hoff, io)) < 0)
        return rc;
    if (rd32(b) != 0x04034b50)
        return bad(io, -EILSEQ, "not a zip file (bad local header)");
    uint64_t nl = rd16(b + 26), xl = rd16(b + 28), data = hoff + ZIP_LOCAL + nl + xl;
    if ((rc = pread_all(fd, b, nl, hoff + ZIP_LOCAL, io)) < 0)  /* the name, compared */
        return rc;
    if (x.method == 8)
        return npz_inflate(fd, data, &x, io);
    if ((rc = pread_all(fd, b, 10, data, io)) < 0)
        return rc;
    uint64_t got = b[6] == 1 ? 10 : 12;       /* version 2 and 3: a 4-byte length */
    if (got > 10 && (rc = pread_all(fd, b + 10, 2, data + 10, io)) < 0)
        return rc;
    int64_t hl = npy_header_len(b, got, size, io);
    if (hl < 0)
        return (int)hl;
    if (hl == 0 || (uint64_t)hl > io->buflen)
        return bad(io, -EILSEQ, "x.npy has a bad header");
    if ((rc = pread_all(fd, b, (uint64_t)hl - got, data + got, io)) < 0)
        return rc;
    io->member = size - (uint64_t)hl;
    return read_span(fd, data + (uint64_t)hl, size - (uint64_t)hl, io->transfer, io);
}

/* size bytes from 0 in reads of what is left rounded up to the alignment:
 * one read, unless the kernel returns less before the end (2 GiB at most a
 * call); the last may stop short, at the end of the file. */
static int read_whole(int fd, uint64_t size, struct lb_fmt_io *io)
{
    uint64_t got = 0, want = (size + LB_FMT_DIRECT_ALIGN - 1) & ~(uint64_t)(LB_FMT_DIRECT_ALIGN - 1);
    if (want > io->buflen)
        return bad(io, -EFBIG, "npz file larger than the read buffer");
    while (got < size) {
        ssize_t n = pread(fd, io->buf + got, want - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : bad(io, -ENODATA, "npz file shorter than its size");
        got += (uint64_t)n;
        io->bytes += (uint64_t)n;
        if (got < size && got % LB_FMT_DIRECT_ALIGN)
            return bad(io, -ENODATA, "npz file shorter than its size");
    }
    return 0;
}

/* The local header at b + pos (of n bytes): the member's name, sizes, CRC,
 * method and where its data starts.  0, 1 at the end of the members, or
 * -EILSEQ. */
static int npz_local_mem(const uint8_t *b, uint64_t n, uint64_t pos, struct lb_fmt_io *io,
                         const uint8_t **name, uint64_t *nl, struct npz_entry *x, uint64_t *data)
{
    if (pos + ZIP_LOCAL > n || rd32(b + pos) != 0x04034b50)
        return 1;
    const uint8_t *h = b + pos;
    uint64_t xl = rd16(h + 28);
    *nl = rd16(h + 26);
    if (pos + ZIP_LOCAL + *nl + xl > n)
        return bad(io, -EILSEQ, "not a zip file (a local header past the end)");
    x->method = (int)rd16(h + 8);
    x->crc = (uint32_t)rd32(h + 14);
    x->csize = rd32(h + 18);
    x->usize = rd32(h + 22);
    x->hoff = pos;
    *name = h + ZIP_LOCAL;
    zip64_extra(h + ZIP_LOCAL + *nl, xl, &x->usize, &x->csize, NULL);
    *data = pos + ZIP_LOCAL + *nl + xl;
    if (x->csize > n - *data)
        return bad(io, -EILSEQ, "not a zip file (a member past the end)");
    return 0;
}

int lb_fmt_npz_read_whole(int fd, uint64_t size, struct lb_fmt_io *io)
{
    const uint8_t *b = (const uint8_t *)io->buf, *name;
    uint64_t pos = 0, nl, data;
    struct npz_entry x;
    int rc = read_whole(fd, size, io);
    while (rc == 0) {
        if ((rc = npz_local_mem(b, size, pos, io, &name, &nl, &x, &data)) != 0)
            return rc < 0 ? rc : bad(io, -EILSEQ, pos ? "no member x.npy in the npz file"
                                                      : "not a zip file (bad local header)");
        pos = data + x.csize;
        if (nl != 5 || memcmp(name, "x.npy", 5))
            continue;
        if (x.method == 8)
            return npz_inflate_mem((const char *)b + data, &x, io);
        if (x.method != 0)
            return bad(io, -ENOTSUP, "x.npy is compressed with neither store nor deflate");
        int64_t hl = npy_header_len(b + data, x.csize, x.csize, io);
        if (hl < 0)
            return (int)hl;
        if (hl == 0)
            return bad(io, -EILSEQ, "x.npy has a bad header");
        io->member = x.csize - (uint64_t)hl;
        return 0;
    }
    return rc;
}
