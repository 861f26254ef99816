/*
 * HDF5 as h5py writes DLIO's files with libver='latest': a version 3
 * superblock, version 2 object headers (OHDR), a compact root group (Link
 * Info, Group Info, one Link message per dataset), records_0 .. records_{N-1}
 * (DLIO's num_dset_per_record, uint8, each of shape (samples, sample bytes /
 * N), holding the sample's parts) and labels (int64 zeros, one per sample), each
 * with Dataspace, Datatype, Fill Value and Data Layout (version 4)
 * messages.  records_0 is contiguous, or chunked: one chunk indexed by the
 * layout itself (libhdf5's single-chunk index) or a Fixed Array (FAHD,
 * FADB, paged past 2^10 entries).  With compression='gzip' each chunk goes
 * through the deflate filter: a filter pipeline message names it and its
 * level, and the index holds each chunk's stored size and filter mask
 * (filtered Fixed Array entries, or the layout for a single chunk); the
 * chunk shape is h5py's guess when none is asked for.  Every structure
 * carries its lookup3 checksum, so h5py opens the files.
 *
 * The reader is h5py's File(f, 'r')['records_k'][j] for each k, as DLIO
 * reads a sample, the way libhdf5 1.10 does it: fstat and a shared flock,
 * the signature (8 bytes), the superblock (16, then the rest), getcwd for a
 * relative name and an lstat of it, a 512-byte speculative read of the root
 * group's header and a read of each continuation chunk (OCHK) it names
 * (h5py's root group of three or more datasets spills over into one; this
 * writer keeps all links in the first chunk), then per dataset a 512-byte
 * read of its header and for contiguous data the sieve buffer (64 KiB from the
 * sample, at most to the data's end) or, for a larger sample, the sample
 * itself; for chunked data the index (FAHD, the data block or its page)
 * and each chunk the sample touches whole, or only the sample's part of a
 * chunk larger than the chunk cache (1 MiB); a deflated chunk always whole
 * at its stored size, in one read, then inflated.  It parses what it reads
 * and checks the checksums, so files that h5py wrote are read too; filters
 * other than deflate, dense groups, other chunk indexes and superblocks
 * before version 2 are refused by name.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef LB_HAVE_ZLIB
#include <zlib.h>
#endif

#include "train/train_hdf5.h"

#define UNDEF UINT64_MAX                /* HDF5's undefined address */
#define SB_LEN 48u                      /* superblock version 2 and 3 */
#define OH_SPEC 512u                    /* libhdf5's speculative header read */
#define SIEVE (64u << 10)               /* its sieve buffer */
#define CHUNK_CACHE (1u << 20)          /* its chunk cache */
#define PAGE_BITS 10u                   /* Fixed Array entries per page, log2 */
#define FAHD_LEN 28u
#define FADB_PREFIX 14u                 /* signature, version, client, header */
#define DATA_ALIGN 4096u
#define GUESS_BASE 16384.0              /* h5py's chunk guess: base, least, most */
#define GUESS_MIN 8192.0
#define GUESS_MAX 1048576.0
#define FILTER_DEFLATE 1                /* HDF5's filter id of deflate (gzip) */
static const uint8_t sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

/* ---- little-endian fields ---- */

static void put(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> 8 * i);
}

static uint64_t get(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* ---- lookup3 ---- */

static uint32_t rot(uint32_t x, int k) { return x << k | x >> (32 - k); }

static void mix(uint32_t *a, uint32_t *b, uint32_t *c)
{
    *a -= *c; *a ^= rot(*c, 4);  *c += *b;
    *b -= *a; *b ^= rot(*a, 6);  *a += *c;
    *c -= *b; *c ^= rot(*b, 8);  *b += *a;
    *a -= *c; *a ^= rot(*c, 16); *c += *b;
    *b -= *a; *b ^= rot(*a, 19); *a += *c;
    *c -= *b; *c ^= rot(*b, 4);  *b += *a;
}

static void final(uint32_t *a, uint32_t *b, uint32_t *c)
{
    *c ^= *b; *c -= rot(*b, 14);
    *a ^= *c; *a -= rot(*c, 11);
    *b ^= *a; *b -= rot(*a, 25);
    *c ^= *b; *c -= rot(*b, 16);
    *a ^= *c; *a -= rot(*c, 4);
    *b ^= *a; *b -= rot(*a, 14);
    *c ^= *b; *c -= rot(*b, 24);
}

uint32_t lb_h5_checksum(const void *buf, size_t n)
{
    const uint8_t *k = buf;
    uint32_t v[3];
    v[0] = v[1] = v[2] = 0xdeadbeefu + (uint32_t)n;
    for (; n > 12; n -= 12, k += 12) {
        for (int i = 0; i < 3; i++)
            v[i] += (uint32_t)get(k + 4 * i, 4);
        mix(&v[0], &v[1], &v[2]);
    }
    if (n == 0)
        return v[2];                    /* nothing left: no final mix */
    for (size_t i = 0; i < n; i++)
        v[i / 4] += (uint32_t)k[i] << 8 * (i % 4);
    final(&v[0], &v[1], &v[2]);
    return v[2];
}

/* ---- the plan ---- */

void lb_h5_guess_chunk(uint64_t rows, uint64_t cols, uint64_t *crows, uint64_t *ccols)
{
    double c[2] = {(double)rows, (double)cols};
    double target = GUESS_BASE * pow(2, log10(c[0] * c[1] / (1024.0 * 1024)));
    target = target > GUESS_MAX ? GUESS_MAX : target < GUESS_MIN ? GUESS_MIN : target;
    for (unsigned i = 0;; i++) {         /* as h5py's guess_chunk, in doubles */
        double bytes = c[0] * c[1];
        if ((bytes < target || fabs(bytes - target) / target < 0.5) && bytes < GUESS_MAX)
            break;
        if (bytes == 1)
            break;
        c[i % 2] = ceil(c[i % 2] / 2);
    }
    *crows = (uint64_t)c[0];
    *ccols = (uint64_t)c[1];
}

int lb_h5_chunks(uint64_t spf, uint64_t len, uint64_t chunk, int guess, uint64_t *rows,
                 uint64_t *cols)
{
    *rows = *cols = 0;
    if (chunk == 0 && !guess)
        return 0;
    len = len ? len : 1;
    if (chunk == 0)
        lb_h5_guess_chunk(spf ? spf : 1, len, rows, cols);
    else if (chunk >= len) {
        *rows = chunk / len < spf ? chunk / len : spf;
        *cols = len;
    } else {
        *rows = 1;
        *cols = chunk;
    }
    uint64_t n = (spf + *rows - 1) / *rows * ((len + *cols - 1) / *cols);
    return *rows * *cols > LB_H5_MAX_CHUNK || n > LB_H5_MAX_CHUNKS ? -EFBIG : 0;
}

/* A Fixed Array entry: the chunk's address, and filtered its stored size
 * and filter mask. */
static uint64_t fa_entry(const struct lb_h5_plan *p)
{
    return p->gzip ? 8 + p->slen + 4 : 8;
}

static uint64_t fadb_len(const struct lb_h5_plan *p)
{
    uint64_t n = p->nchunks, e = fa_entry(p), page = 1ull << PAGE_BITS;
    uint64_t pages = (n + page - 1) / page;
    if (n <= page)
        return FADB_PREFIX + e * n + 4;
    return FADB_PREFIX + (pages + 7) / 8 + 4 + e * n + 4 * pages;
}

/* Object header sizes: prefix (10) and checksum (4) around the messages. */
#define OH_LEN(msgs) (10u + (msgs) + 4u)
#define ROOT_MSGS (4u + 18 + 4 + 2 + 4 + 17)   /* and a link per dataset */
#define LAB_MSGS (4u + 20 + 4 + 12 + 4 + 2 + 4 + 18)

static unsigned enc_len(uint64_t v)
{
    unsigned n = 1;
    while (n < 8 && v >> 8 * n)
        n++;
    return n;
}

#define FILTER_MSG 12u                 /* a pipeline of deflate and its level */

static uint64_t dset_msgs(const struct lb_h5_plan *p)
{
    uint64_t m = 4 + 36 + 4 + 12 + 4 + 2 + 4 + (p->gzip ? 4 + FILTER_MSG : 0);
    if (p->crows == 0)
        return m + 18;
    unsigned e = enc_len(p->crows > p->ccols ? p->crows : p->ccols);
    int single = p->nchunks == 1;
    return m + 5 + 3 * e + 1 + !single + 8 + (single && p->gzip ? 8 + 4 : 0);
}

/* The bytes a chunk's stored size takes in a filtered index: libhdf5's
 * one more than the bytes of the chunk's unfiltered size (its bit length
 * plus one, rounded up), at most 8. */
static unsigned size_len(uint64_t cbytes)
{
    unsigned lg = 0;
    while (cbytes >> (lg + 1))
        lg++;
    unsigned n = 1 + (lg + 8) / 8;
    return n < 8 ? n : 8;
}

/* The Link message of records_k. */
static unsigned link_len(uint64_t k)
{
    char name[32];
    return 4u + 3 + (unsigned)snprintf(name, sizeof name, "records_%llu", (unsigned long long)k) + 8;
}

int lb_h5_plan(const struct lb_fmt_shape *s, struct lb_h5_plan *p)
{
    memset(p, 0, sizeof *p);
    p->ndset = s->dsets ? s->dsets : 1;
    if (p->ndset > LB_H5_MAX_DSETS || s->len % p->ndset)
        return -EINVAL;
    p->rows = s->spf;
    p->cols = s->len / p->ndset;
    p->gzip = s->gzip;
    p->level = s->level;
    int rc = lb_h5_chunks(s->spf, p->cols, s->chunk, s->gzip, &p->crows, &p->ccols);
    if (rc < 0)
        return rc;
    p->data_len = p->rows * p->cols;
    if (p->crows) {
        p->nchunks = (p->rows + p->crows - 1) / p->crows * ((p->cols + p->ccols - 1) / p->ccols);
        p->cbytes = p->crows * p->ccols;
        p->data_len = p->nchunks * p->cbytes;
        if (p->ndset * p->nchunks > LB_H5_MAX_CHUNKS)
            return -EFBIG;              /* the count is the file's, over its datasets */
        p->slen = p->gzip ? size_len(p->cbytes) : 0;
    }
    uint64_t links = 0;
    for (uint64_t k = 0; k < p->ndset; k++)
        links += link_len(k);
    p->root = SB_LEN;
    p->dset = p->root + OH_LEN(ROOT_MSGS + links);
    p->dset_step = OH_LEN(dset_msgs(p));
    p->lab = p->dset + p->ndset * p->dset_step;
    uint64_t end = p->lab + OH_LEN(LAB_MSGS);
    if (p->crows && p->nchunks > 1) {
        p->fahd = end;
        p->fadb = end + FAHD_LEN;
        p->fa_step = FAHD_LEN + fadb_len(p);
        end += p->ndset * p->fa_step;
    }
    p->meta = (end + DATA_ALIGN - 1) / DATA_ALIGN * DATA_ALIGN;
    p->data = p->meta;
    if (!p->gzip) {
        p->labels = p->data + p->ndset * p->data_len;
        p->eof = p->labels + 8 * p->rows;
    }
    return 0;
}

void lb_h5_place(struct lb_h5_plan *p, const uint64_t *stored)
{
    uint64_t sum = 0;
    for (uint64_t i = 0; i < p->ndset * p->nchunks; i++)
        sum += stored[i];
    p->stored = stored;
    p->labels = p->data + sum;
    p->eof = p->labels + 8 * p->rows;
}

/* Where records_k's first chunk (or contiguous data) is. */
static uint64_t data_at(const struct lb_h5_plan *p, uint64_t k)
{
    if (!p->gzip)
        return p->data + k * p->data_len;
    uint64_t at = p->data;
    for (uint64_t i = 0; i < k * p->nchunks; i++)
        at += p->stored[i];
    return at;
}

/* ---- the metadata ---- */

struct oh {                      /* an object header being built */
    uint8_t *p, *m;              /* its start, the next message */
};

static uint8_t *msg(struct oh *o, int type, unsigned size, int flags)
{
    uint8_t *m = o->m;
    m[0] = (uint8_t)type;
    put(m + 1, size, 2);
    m[3] = (uint8_t)flags;
    o->m = m + 4 + size;
    return m + 4;
}

static void oh_begin(struct oh *o, uint8_t *p)
{
    o->p = p;
    o->m = p + 10;
}

static void oh_end(struct oh *o)
{
    memcpy(o->p, "OHDR", 4);
    o->p[4] = 2;
    o->p[5] = 0x02;                     /* chunk 0's size in 4 bytes */
    put(o->p + 6, (uint64_t)(o->m - o->p - 10), 4);
    put(o->m, lb_h5_checksum(o->p, (size_t)(o->m - o->p)), 4);
}

static void link_msg(struct oh *o, const char *name, uint64_t addr)
{
    size_t n = strlen(name);
    uint8_t *d = msg(o, 6, (unsigned)(3 + n + 8), 0);
    d[0] = 1;                           /* version; flags 0: a hard link */
    d[2] = (uint8_t)n;
    memcpy(d + 3, name, n);
    put(d + 3 + n, addr, 8);
}

static void space_msg(struct oh *o, int rank, uint64_t d0, uint64_t d1)
{
    uint8_t *d = msg(o, 1, 4 + 16u * (unsigned)rank, 0);
    d[0] = 2;
    d[1] = (uint8_t)rank;
    d[2] = 1;                           /* maximum dimensions stored */
    d[3] = 1;                           /* simple */
    put(d + 4, d0, 8);
    if (rank == 2)
        put(d + 12, d1, 8);
    memcpy(d + 4 + 8 * rank, d + 4, 8u * (unsigned)rank);
}

static void type_msg(struct oh *o, unsigned size, int sign)
{
    uint8_t *d = msg(o, 3, 12, 1);
    d[0] = 0x10;                        /* version 1, fixed-point */
    d[1] = sign ? 0x08 : 0;             /* little-endian */
    put(d + 4, size, 4);
    put(d + 10, 8 * size, 2);
}

static void fill_msg(struct oh *o, int chunked)
{
    uint8_t *d = msg(o, 5, 2, 1);
    d[0] = 3;
    d[1] = chunked ? 0x03 : 0x0a;       /* as h5py: incremental / late */
}

/* records_k's header, its data at data. */
static void dset_header(const struct lb_h5_plan *p, uint64_t k, uint8_t *b)
{
    struct oh o;
    uint64_t data = data_at(p, k), fahd = p->fahd + k * p->fa_step;
    oh_begin(&o, b + p->dset + k * p->dset_step);
    space_msg(&o, 2, p->rows, p->cols);
    type_msg(&o, 1, 0);
    fill_msg(&o, p->crows != 0);
    if (p->gzip) {                      /* version 2: no name below id 256 */
        uint8_t *d = msg(&o, 0x0b, FILTER_MSG, 1);
        d[0] = 2;
        d[1] = 1;                       /* one filter */
        put(d + 2, FILTER_DEFLATE, 2);
        put(d + 4, 1, 2);               /* optional, as H5Pset_deflate adds it */
        put(d + 6, 1, 2);               /* one client value: the level */
        put(d + 8, (uint64_t)p->level, 4);
    }
    if (p->crows == 0) {
        uint8_t *d = msg(&o, 8, 18, 0);
        d[0] = 4;
        d[1] = 1;                       /* contiguous */
        put(d + 2, data, 8);
        put(d + 10, p->data_len, 8);
    } else {
        unsigned e = enc_len(p->crows > p->ccols ? p->crows : p->ccols), fa = p->nchunks > 1;
        unsigned sf = !fa && p->gzip ? 8 + 4 : 0;   /* single filtered: size, mask */
        uint8_t *d = msg(&o, 8, 5 + 3 * e + 1 + fa + sf + 8, 0);
        d[0] = 4;
        d[1] = 2;                       /* chunked */
        d[2] = sf ? 0x02 : 0;           /* a single chunk, filtered */
        d[3] = 3;                       /* rows, columns, the element */
        d[4] = (uint8_t)e;
        put(d + 5, p->crows, (int)e);
        put(d + 5 + e, p->ccols, (int)e);
        put(d + 5 + 2 * e, 1, (int)e);
        uint8_t *x = d + 5 + 3 * e;
        x[0] = fa ? 3 : 1;              /* Fixed Array, or the single chunk */
        if (fa)
            x[1] = PAGE_BITS;
        if (sf)
            put(x + 1, p->stored[k], 8);    /* its mask (4 bytes) 0: deflated */
        put(x + 1 + fa + sf, fa ? fahd : data, 8);
    }
    oh_end(&o);
}

static void fixed_array(const struct lb_h5_plan *p, uint64_t k, uint8_t *b)
{
    uint64_t fahd = p->fahd + k * p->fa_step, fadb = p->fadb + k * p->fa_step;
    uint64_t at = data_at(p, k), es = fa_entry(p);
    uint8_t *h = b + fahd, *d = b + fadb;
    uint64_t n = p->nchunks, page = 1ull << PAGE_BITS, pages = (n + page - 1) / page;
    const uint64_t *size = p->gzip ? p->stored + k * n : NULL;
    memcpy(h, "FAHD", 4);
    h[5] = p->gzip ? 1 : 0;             /* version 0; client 0 plain, 1 filtered */
    h[6] = (uint8_t)es;
    h[7] = PAGE_BITS;
    put(h + 8, n, 8);
    put(h + 16, fadb, 8);
    put(h + 24, lb_h5_checksum(h, 24), 4);
    memcpy(d, "FADB", 4);
    d[5] = h[5];                        /* the client again */
    put(d + 6, fahd, 8);
    uint8_t *e = d + FADB_PREFIX;
    if (n > page) {                     /* paged: a bitmap, each page summed */
        for (uint64_t i = 0; i < pages; i++)
            e[i / 8] |= (uint8_t)(0x80 >> i % 8);
        e += (pages + 7) / 8;
        put(e, lb_h5_checksum(d, (size_t)(e - d)), 4);
        e += 4;
    }
    for (uint64_t i = 0, k = 0; i < n; i = k) {
        uint8_t *start = e;
        k = n > page && i + page < n ? i + page : n;
        for (uint64_t c = i; c < k; c++, e += es) {
            put(e, at, 8);
            if (size)                   /* its mask (4 bytes) 0: deflated */
                put(e + 8, size[c], (int)p->slen);
            at += size ? size[c] : p->cbytes;
        }
        const uint8_t *from = n > page ? start : d;
        put(e, lb_h5_checksum(from, (size_t)(e - from)), 4);
        e += 4;
    }
}

int lb_h5_meta(const struct lb_h5_plan *p, uint8_t **out)
{
    uint8_t *b = calloc(1, p->meta);
    struct oh o;
    if ((*out = b) == NULL)
        return -ENOMEM;
    memcpy(b, sig, 8);
    b[8] = 3;                           /* superblock version 3 */
    b[9] = b[10] = 8;                   /* offsets and lengths of 8 bytes */
    put(b + 20, UNDEF, 8);              /* no superblock extension */
    put(b + 28, p->eof, 8);
    put(b + 36, p->root, 8);
    put(b + 44, lb_h5_checksum(b, 44), 4);
    oh_begin(&o, b + p->root);
    uint8_t *d = msg(&o, 2, 18, 0);     /* Link Info: compact, no heap */
    put(d + 2, UNDEF, 8);
    put(d + 10, UNDEF, 8);
    msg(&o, 10, 2, 0);                  /* Group Info: the defaults */
    for (uint64_t k = 0; k < p->ndset; k++) {
        char name[32];
        snprintf(name, sizeof name, "records_%llu", (unsigned long long)k);
        link_msg(&o, name, p->dset + k * p->dset_step);
    }
    link_msg(&o, "labels", p->lab);
    oh_end(&o);
    for (uint64_t k = 0; k < p->ndset; k++)
        dset_header(p, k, b);
    oh_begin(&o, b + p->lab);
    space_msg(&o, 1, p->rows, 0);
    type_msg(&o, 8, 1);
    fill_msg(&o, 0);
    d = msg(&o, 8, 18, 0);
    d[0] = 4;
    d[1] = 1;
    put(d + 2, p->labels, 8);
    put(d + 10, 8 * p->rows, 8);
    oh_end(&o);
    for (uint64_t k = 0; p->nchunks > 1 && k < p->ndset; k++)
        fixed_array(p, k, b);
    return 0;
}

/* ---- reading ---- */

#define MAX_RANK 32

struct h5r {                     /* one sample's read */
    int fd;
    struct lb_fmt_io *io;
    uint64_t eoa;                /* the superblock's end of file */
    uint64_t end;                /* that or the file's size, the less */
    char name[32];               /* the dataset being read: records_k */
};

struct h5set {                   /* records_k, as its header says */
    int rank, layout, index;     /* layout 1 contiguous, 2 chunked */
    uint64_t dims[MAX_RANK], cdims[MAX_RANK];
    uint64_t esize;              /* bytes per element */
    uint64_t addr, size;         /* data, or chunk index (chunked) */
    int page_bits;
    int filtered;                /* through deflate, the one filter read */
    int fsingle;                 /* a single chunk, filtered, as the layout says */
    uint64_t fsize;              /* a filtered single chunk: bytes stored */
    uint32_t fmask;              /* and its filter mask */
};

struct h5chunk {                 /* a chunk, as its index says */
    uint64_t addr, size;         /* size: as stored (filtered) */
    uint32_t mask;               /* bit 0: deflate skipped */
};

static int bad(struct lb_fmt_io *io, int rc, const char *what)
{
    snprintf(io->msg, sizeof io->msg, "%s", what);
    return rc;
}

/* what: the rest of a message after the dataset's name. */
static int dbad(struct h5r *r, int rc, const char *what)
{
    snprintf(r->io->msg, sizeof r->io->msg, "%s%s", r->name, what);
    return rc;
}

static int rd(struct h5r *r, void *buf, uint64_t len, uint64_t off)
{
    char *p = buf;
    while (len) {
        ssize_t n = pread(r->fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0) {
            snprintf(r->io->msg, sizeof r->io->msg, "HDF5 file cut short: it ends before "
                     "byte %llu", (unsigned long long)(off + len));
            return -EILSEQ;
        }
        p += n;
        len -= (uint64_t)n;
        off += (uint64_t)n;
        r->io->bytes += (uint64_t)n;
    }
    return 0;
}

/* len bytes at off in reads of at most the scratch's length; io->member
 * keeps the longest, the scratch the reader wants next time. */
static int rd_span(struct h5r *r, uint64_t off, uint64_t len)
{
    int rc = 0;
    r->io->member = len > r->io->member ? len : r->io->member;
    while (rc == 0 && len) {
        uint64_t n = len < r->io->buflen ? len : r->io->buflen;
        rc = rd(r, r->io->buf, n, off);
        off += n;
        len -= n;
    }
    return rc;
}

static int summed(const uint8_t *p, size_t n)
{
    return lb_h5_checksum(p, n - 4) == (uint32_t)get(p + n - 4, 4);
}

/* The superblock as libhdf5 probes it: the signature, 16 bytes, the rest. */
static int superblock(struct h5r *r, uint64_t *root)
{
    uint8_t *b = (uint8_t *)r->io->buf;
    int rc = rd(r, b, 8, 0);
    if (rc == 0 && memcmp(b, sig, 8))
        return bad(r->io, -EILSEQ, "not an HDF5 file (no signature at byte 0)");
    if (rc == 0)
        rc = rd(r, b, 16, 0);
    if (rc < 0)
        return rc;
    if (b[8] < 2 || b[8] > 3)
        return bad(r->io, -ENOTSUP, "HDF5 superblock before version 2 (h5py's default "
                   "libver; DLIO writes libver='latest'): not supported");
    if (b[9] != 8 || b[10] != 8)
        return bad(r->io, -ENOTSUP, "HDF5 file with offsets or lengths not of 8 bytes");
    if ((rc = rd(r, b + 16, SB_LEN - 16, 16)) < 0)
        return rc;
    if (!summed(b, SB_LEN)) {
        if (!memcmp(b + 16, "lbh5", 4))
            return bad(r->io, -EILSEQ, "an HDF5-like file of an earlier luabench, not HDF5 "
                       "(relayout=1 lays it out again as HDF5)");
        return bad(r->io, -EILSEQ, "bad checksum in the HDF5 superblock");
    }
    if (get(b + 12, 8) != 0)
        return bad(r->io, -ENOTSUP, "HDF5 file with a base address: not supported");
    r->eoa = get(b + 28, 8);
    *root = get(b + 36, 8);
    return 0;
}

/* An object header (version 2) into the scratch, as libhdf5 reads one: 512
 * bytes (no further than the end of file) and then what it lacks. */
static int header(struct h5r *r, uint64_t addr, const char *what, const uint8_t **m,
                  uint64_t *mlen, int *crt)
{
    uint8_t *b = (uint8_t *)r->io->buf;
    char msg[96];
    snprintf(msg, sizeof msg, "%s: an object header past the end of file", what);
    if (addr >= r->eoa)
        return bad(r->io, -EILSEQ, msg);
    uint64_t n = r->eoa - addr < OH_SPEC ? r->eoa - addr : OH_SPEC;
    int rc = rd(r, b, n, addr);
    if (rc < 0)
        return rc;
    snprintf(msg, sizeof msg, "%s: not a version 2 object header (OHDR)", what);
    if (n < 16 || memcmp(b, "OHDR", 4) || b[4] != 2)
        return bad(r->io, -ENOTSUP, msg);
    uint64_t pos = 6 + (b[5] & 0x20 ? 16 : 0) + (b[5] & 0x10 ? 4 : 0), w = 1u << (b[5] & 3);
    uint64_t len = get(b + pos, (int)w), total = pos + w + len + 4;
    snprintf(msg, sizeof msg, "%s: an object header larger than the buffer", what);
    if (total > r->io->buflen || addr + total > r->eoa)
        return bad(r->io, -EILSEQ, msg);
    if (total > n && (rc = rd(r, b + n, total - n, addr + n)) < 0)
        return rc;
    snprintf(msg, sizeof msg, "bad checksum in the object header of %s", what);
    if (!summed(b, total))
        return bad(r->io, -EILSEQ, msg);
    *m = b + pos + w;
    *mlen = len;
    *crt = b[5] & 0x04 ? 2 : 0;         /* messages carry a creation order */
    return 0;
}

/* The next message: 1 with its type, flags, data and size; 0 at the end. */
static int next(const uint8_t **m, const uint8_t *end, int crt, int *type, int *flags,
                const uint8_t **d, uint64_t *size)
{
    if (end - *m < 4 + crt)
        return 0;
    *type = (*m)[0];
    *size = get(*m + 1, 2);
    *flags = (*m)[3];
    *d = *m + 4 + crt;
    if (*size > (uint64_t)(end - *d))
        return -1;
    *m = *d + *size;
    return 1;
}

/* The links of one chunk of the root group's header, at m (len bytes):
 * records_k's address into addr[k] for k below n; continuations found are
 * queued in cont (address, length pairs; *nc of them, at most max). */
static int root_links(struct h5r *r, const uint8_t *m, uint64_t len, int crt, uint64_t *addr,
                      unsigned n, uint64_t (*cont)[2], unsigned *nc, unsigned max)
{
    const uint8_t *end = m + len, *d;
    uint64_t size;
    int type, flags, k;
    while ((k = next(&m, end, crt, &type, &flags, &d, &size))) {
        if (k < 0)
            return bad(r->io, -EILSEQ, "a malformed message in the root group's header");
        if (type == 0x11)
            return bad(r->io, -ENOTSUP, "an old-style root group (symbol table): not supported");
        if (type == 2 && size >= 10 && get(d + 2, 8) != UNDEF)
            return bad(r->io, -ENOTSUP, "a root group of many links (dense storage): not "
                       "supported");
        if (type == 0x10 && size >= 16) {
            if (*nc == max)
                return bad(r->io, -ENOTSUP, "a root group's header in too many chunks");
            cont[*nc][0] = get(d, 8);
            cont[(*nc)++][1] = get(d + 8, 8);
        }
        if (type != 6 || size < 4 || d[0] != 1)
            continue;
        uint64_t q = 2, ltype = 0, w = 1u << (d[1] & 3);
        if (d[1] & 0x08)
            ltype = d[q++];
        q += (d[1] & 0x04 ? 8 : 0) + (d[1] & 0x10 ? 1 : 0);
        uint64_t nl = q + w <= size ? get(d + q, (int)w) : size;
        q += w;
        char name[32];
        for (unsigned i = 0; ltype == 0 && q + nl + 8 <= size && i < n; i++) {
            int nn = snprintf(name, sizeof name, "records_%u", i);
            if (nl == (uint64_t)nn && !memcmp(d + q, name, nl))
                addr[i] = get(d + q + nl, 8);
        }
    }
    return 0;
}

/* The root group's hard links records_0 .. records_{n-1}: its header,
 * then each continuation chunk in the order named, as libhdf5 loads it. */
static int find_records(struct h5r *r, uint64_t root, uint64_t *addr, unsigned n)
{
    const uint8_t *m = NULL;
    uint64_t len = 0, cont[16][2];
    unsigned nc = 0;
    int crt, rc = header(r, root, "the root group", &m, &len, &crt);
    for (unsigned i = 0; i < n; i++)
        addr[i] = UNDEF;
    if (rc == 0)
        rc = root_links(r, m, len, crt, addr, n, cont, &nc, 16);
    uint8_t *b = (uint8_t *)r->io->buf;
    for (unsigned i = 0; rc == 0 && i < nc; i++) {
        uint64_t at = cont[i][0], clen = cont[i][1];
        if (clen < 8 || clen > r->io->buflen || at > r->eoa || clen > r->eoa - at)
            return bad(r->io, -EILSEQ, "the root group: a continuation past the end of file");
        if ((rc = rd(r, b, clen, at)) < 0)
            return rc;
        if (memcmp(b, "OCHK", 4) || !summed(b, clen))
            return bad(r->io, -EILSEQ, "the root group: a bad continuation chunk (OCHK)");
        rc = root_links(r, b + 4, clen - 8, crt, addr, n, cont, &nc, 16);
    }
    for (unsigned i = 0; rc == 0 && i < n; i++)
        if (addr[i] == UNDEF) {
            snprintf(r->io->msg, sizeof r->io->msg, "no dataset records_%u in the root group%s",
                     i, i ? " (a file of fewer num_dset_per_record)" : "");
            return -EILSEQ;
        }
    return rc;
}

static int space(struct h5r *r, const uint8_t *d, uint64_t size, struct h5set *s)
{
    uint64_t at = d[0] == 1 ? 8 : 4;
    if ((d[0] != 1 && d[0] != 2) || size < at)
        return dbad(r, -ENOTSUP, ": a dataspace of an unknown version");
    s->rank = d[1];
    if (s->rank == 0 || s->rank > MAX_RANK || (d[0] == 2 && d[3] != 1) || at + 8 * s->rank > size)
        return dbad(r, -ENOTSUP, " is not an array (scalar or empty)");
    for (int k = 0; k < s->rank; k++)
        s->dims[k] = get(d + at + 8 * k, 8);
    return 0;
}

static int layout(struct h5r *r, const uint8_t *d, uint64_t size, struct h5set *s)
{
    if (size < 5 || (d[0] != 3 && d[0] != 4) || d[1] == 0 || d[1] > 2)
        return dbad(r, -ENOTSUP, " is neither contiguous nor chunked (compact, "
                   "virtual or an old layout version): not supported");
    s->layout = d[1];
    if (d[1] == 1) {
        if (size < 18)
            return dbad(r, -EILSEQ, ": a malformed contiguous layout");
        s->addr = get(d + 2, 8);
        s->size = get(d + 10, 8);
        return 0;
    }
    if (d[0] == 3)
        return dbad(r, -ENOTSUP, "'s chunks are indexed by a version 1 B-tree "
                   "(layout version 3): not supported");
    uint64_t nd = d[3], e = d[4], q = 5 + nd * e;
    if (nd < 2 || nd != (uint64_t)s->rank + 1 || e == 0 || e > 8 || q >= size)
        return dbad(r, -EILSEQ, ": a malformed chunked layout");
    for (uint64_t k = 0; k < nd; k++)
        s->cdims[k] = get(d + 5 + k * e, (int)e);
    s->index = d[q];
    if (s->index != 1 && s->index != 2 && s->index != 3)
        return dbad(r, -ENOTSUP, "'s chunk index is none of single chunk, implicit "
                   "and Fixed Array (a resizable dataset): not supported");
    if (d[2] & 0x01)
        return dbad(r, -ENOTSUP, "'s edge chunks are left unfiltered (H5Pset_chunk_opts): "
                   "not supported");
    uint64_t sf = s->index == 1 && d[2] & 0x02 ? 8 + 4 : 0;    /* filtered: size, mask */
    if (q + 1 + (s->index == 3) + sf + 8 > size)
        return dbad(r, -EILSEQ, ": a malformed chunked layout");
    if (sf) {
        s->fsize = get(d + q + 1, 8);
        s->fmask = (uint32_t)get(d + q + 9, 4);
    }
    s->page_bits = s->index == 3 ? d[q + 1] : 0;
    s->addr = get(d + q + 1 + (s->index == 3) + sf, 8);
    s->fsingle = sf != 0;
    return 0;
}

/* The filter pipeline (version 2, as libver='latest' writes it): deflate
 * alone is read; any other filter is refused by its id. */
static int pipeline(struct h5r *r, const uint8_t *d, uint64_t size, struct h5set *s)
{
    if (size < 2 || d[0] != 2)
        return dbad(r, -ENOTSUP, "'s filter pipeline is not of version 2: not supported");
    uint64_t q = 2;
    for (unsigned i = 0; i < d[1]; i++) {
        if (q + 6 > size)
            return dbad(r, -EILSEQ, ": a malformed filter pipeline");
        uint64_t id = get(d + q, 2), name = id >= 256 && q + 8 <= size ? get(d + q + 2, 2) : 0;
        q += 2 + (id >= 256 ? 2 : 0) + 2;
        uint64_t nv = q + 2 <= size ? get(d + q, 2) : 0;
        q += 2 + name + 4 * nv;
        if (q > size)
            return dbad(r, -EILSEQ, ": a malformed filter pipeline");
        if (id != FILTER_DEFLATE || d[1] > 1) {
            snprintf(r->io->msg, sizeof r->io->msg, "%s is filtered with filter %llu, not "
                     "deflate (gzip) alone: not supported", r->name, (unsigned long long)id);
            return -ENOTSUP;
        }
    }
    s->filtered = d[1] == 1;
    return 0;
}

/* Whether the layout suits the filters: filtered, only chunks indexed by
 * a single chunk or a Fixed Array, as libhdf5 makes them. */
static int filters_fit(struct h5r *r, const struct h5set *s)
{
    if (s->filtered && (s->layout != 2 || s->index == 2 || (s->index == 1 && !s->fsingle)))
        return dbad(r, -EILSEQ, ": filtered, and not chunked with a filtered single chunk "
                   "or a Fixed Array index");
    if (s->fsingle && !s->filtered)
        return dbad(r, -EILSEQ, ": a filtered chunk and no filter");
    return 0;
}

/* records_k's shape, type and layout from its object header. */
static int dataset(struct h5r *r, uint64_t addr, struct h5set *s)
{
    const uint8_t *m = NULL, *d;
    uint64_t len = 0, size;
    int crt, type, flags, k, rc = header(r, addr, r->name, &m, &len, &crt), seen = 0;
    if (rc < 0)
        return rc;
    const uint8_t *end = m + len;
    while (rc == 0 && (k = next(&m, end, crt, &type, &flags, &d, &size))) {
        if (k < 0)
            return bad(r->io, -EILSEQ, "'s header: a malformed message");
        if ((type == 1 || type == 3 || type == 8) && flags & 0x02)
            return dbad(r, -ENOTSUP, " shares a message (a committed datatype): "
                       "not supported");
        if (type == 1)
            rc = space(r, d, size, s), seen |= 1;
        else if (type == 3 && size >= 8) {
            s->esize = get(d + 4, 4), seen |= 2;
            if ((d[0] & 0x0f) == 9 || s->esize == 0)
                return dbad(r, -ENOTSUP, " is of variable length: not supported");
        } else if (type == 8)
            rc = layout(r, d, size, s), seen |= 4;
        else if (type == 0x0b)
            rc = pipeline(r, d, size, s);
        else if (type == 0x10)
            return dbad(r, -ENOTSUP, "'s header continues elsewhere: not supported");
    }
    if (rc == 0 && seen != 7)
        return dbad(r, -EILSEQ, "'s header lacks its dataspace, datatype or layout");
    if (rc == 0 && s->layout == 2 && s->cdims[s->rank] != s->esize)
        return dbad(r, -EILSEQ, ": chunks of another element size");
    return rc < 0 ? rc : filters_fit(r, s);
}

/* Contiguous: through the sieve buffer (64 KiB from the sample, no further
 * than the data's end) when the sample fits in it, else the sample. */
static int contiguous(struct h5r *r, const struct h5set *s, uint64_t j, uint64_t len)
{
    if (s->addr == UNDEF)
        return 0;                       /* never written: the fill value */
    if (s->size < s->dims[0] * len || s->addr + s->size > r->eoa)
        return dbad(r, -EILSEQ, "'s data runs past the end of the file");
    uint64_t off = s->addr + j * len, end = s->addr + s->size;
    if (len > SIEVE)
        return rd_span(r, off, len);
    return rd_span(r, off, end - off < SIEVE ? end - off : SIEVE);
}

/* Room in io->zbuf for n chunks' index entries and, after them, extra
 * bytes (a filtered chunk as stored); NULL if there is no memory. */
static struct h5chunk *chunk_room(struct lb_fmt_io *io, uint64_t n, uint64_t extra)
{
    if (n > SIZE_MAX / 2 / sizeof(struct h5chunk) || extra > SIZE_MAX / 2)
        return NULL;
    size_t want = n * sizeof(struct h5chunk) + extra;
    want = want > LB_FMT_NPY_BUFFER ? want : LB_FMT_NPY_BUFFER;
    if (io->zbuf == NULL || io->zlen < want) {
        char *p = realloc(io->zbuf, want);
        if (p == NULL)
            return NULL;
        io->zbuf = p;
        io->zlen = want;
    }
    return (struct h5chunk *)(void *)io->zbuf;
}

/* Fixed Array entry e at p: plain (es 8) its address, the chunk's cb
 * bytes; filtered also its stored size and filter mask. */
static void fa_get(const uint8_t *p, uint64_t es, uint64_t cb, struct h5chunk *c)
{
    c->addr = get(p, 8);
    c->size = es == 8 ? cb : get(p + 8, (int)(es - 12));
    c->mask = es == 8 ? 0 : (uint32_t)get(p + es - 4, 4);
}

/* The Fixed Array's header: its entries' size es (plain 8; filtered, as
 * libhdf5 writes them, address, 1 to 8 bytes of size and a 4-byte mask). */
static int fahd_check(struct h5r *r, const struct h5set *s, const uint8_t *b, uint64_t *es)
{
    if (memcmp(b, "FAHD", 4) || b[4] != 0 || !summed(b, FAHD_LEN))
        return dbad(r, -EILSEQ, ": a bad Fixed Array header (FAHD)");
    *es = b[6];
    if (b[5] != s->filtered || (s->filtered ? *es < 8 + 1 + 4 || *es > 8 + 8 + 4 : *es != 8))
        return dbad(r, -EILSEQ, ": Fixed Array entries that do not suit the filters");
    return 0;
}

/* The Fixed Array's entries lo..lo+n-1 into a: its header, then the data
 * block whole or, paged, its prefix and each page the entries are in. */
static int fixed_array_get(struct h5r *r, const struct h5set *s, uint64_t total, uint64_t lo,
                           uint64_t n, uint64_t cb, struct h5chunk *a)
{
    uint8_t *b = (uint8_t *)r->io->buf;
    uint64_t es;
    int rc = rd(r, b, FAHD_LEN, s->addr);
    if (rc < 0 || (rc = fahd_check(r, s, b, &es)) < 0)
        return rc;
    uint64_t pb = b[7], max = get(b + 8, 8), db = get(b + 16, 8);
    if (max < total || lo + n > max || pb > 30)
        return dbad(r, -EILSEQ, ": a Fixed Array of fewer entries than chunks");
    uint64_t page = 1ull << pb;
    for (uint64_t i = 0; i < n; i++)
        a[i] = (struct h5chunk){.addr = UNDEF};
    if (db == UNDEF)
        return 0;
    uint64_t pages = (max + page - 1) / page, bm = max > page ? (pages + 7) / 8 : 0;
    uint64_t pre = FADB_PREFIX + bm + (bm ? 4 : es * max + 4);
    if (pre > r->io->buflen)
        return dbad(r, -EFBIG, ": a Fixed Array larger than the buffer");
    if ((rc = rd(r, b, pre, db)) < 0)
        return rc;
    if (memcmp(b, "FADB", 4) || !summed(b, pre))
        return dbad(r, -EILSEQ, ": a bad Fixed Array data block (FADB)");
    if (b[5] != s->filtered)
        return dbad(r, -EILSEQ, ": Fixed Array entries that do not suit the filters");
    if (!bm) {
        for (uint64_t i = 0; i < n; i++)
            fa_get(b + FADB_PREFIX + es * (lo + i), es, cb, &a[i]);
        return 0;
    }
    uint8_t map[4096];                  /* the bitmap: up to 2^15 pages */
    if (bm > sizeof map)
        return dbad(r, -EFBIG, ": a Fixed Array of too many pages");
    memcpy(map, b + FADB_PREFIX, bm);
    for (uint64_t i = 0, p; rc == 0 && i < n; i = (p + 1) * page - lo) {
        p = (lo + i) / page;
        uint64_t cnt = p + 1 < pages ? page : max - p * page, len = es * cnt + 4;
        if (!(map[p / 8] & 0x80 >> p % 8))
            continue;                   /* a page never written */
        if (len > r->io->buflen)
            return dbad(r, -EFBIG, ": a Fixed Array page larger than the buffer");
        if ((rc = rd(r, b, len, db + pre + p * (es * page + 4))) < 0)
            return rc;
        if (!summed(b, len))
            return dbad(r, -EILSEQ, ": bad checksum in a Fixed Array page");
        for (uint64_t e = lo + i; e < (p + 1) * page && e < lo + n; e++)
            fa_get(b + es * (e - p * page), es, cb, &a[e - lo]);
    }
    return rc;
}

#ifdef LB_HAVE_ZLIB
/* n bytes of a zlib stream at p inflated through the scratch (the work
 * libhdf5's deflate filter does): it must end, and give cb bytes. */
static int inflate_chunk(struct h5r *r, const uint8_t *p, uint64_t n, uint64_t cb)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK)
        return -ENOMEM;
    uint64_t out = 0, most = r->io->buflen < (1u << 30) ? r->io->buflen : (1u << 30);
    int zr;
    z.next_in = (Bytef *)p;
    for (;;) {                          /* each turn moves on, or stops */
        if (z.avail_in == 0 && n) {
            z.avail_in = (uInt)(n < (1u << 30) ? n : (1u << 30));
            n -= z.avail_in;
        }
        z.next_out = (Bytef *)r->io->buf;
        z.avail_out = (uInt)most;
        zr = inflate(&z, Z_NO_FLUSH);
        out += most - z.avail_out;
        if (zr != Z_OK || out > cb)
            break;
    }
    inflateEnd(&z);
    if (zr != Z_STREAM_END || out != cb)
        return dbad(r, -EILSEQ, ": a deflated chunk that does not inflate to its bytes");
    return 0;
}
#else
static int inflate_chunk(struct h5r *r, const uint8_t *p, uint64_t n, uint64_t cb)
{
    (void)p, (void)n, (void)cb;
    return dbad(r, -ENOTSUP, " is deflated (gzip) and this build has no zlib");
}
#endif

/* Entry i of per (in io->zbuf), a filtered chunk of cb bytes, as libhdf5
 * reads one: whole at its stored size in one read, be it larger than the
 * chunk cache or not, after the entries, then inflated unless its mask
 * says deflate was skipped (then it is the chunk's bytes as they are). */
static int filtered_chunk(struct h5r *r, uint64_t per, uint64_t i, uint64_t cb)
{
    struct h5chunk c = ((struct h5chunk *)(void *)r->io->zbuf)[i];
    if (c.size == 0 || c.addr > r->end || c.size > r->end - c.addr)
        return dbad(r, -EILSEQ, ": a chunk past the end of the file");
    if (c.mask & 1 && c.size != cb)
        return dbad(r, -EILSEQ, ": an unfiltered chunk of other than its size");
    if (chunk_room(r->io, per, c.size) == NULL)
        return -ENOMEM;
    uint8_t *p = (uint8_t *)r->io->zbuf + per * sizeof c;
    int rc = rd(r, p, c.size, c.addr);
    if (rc < 0 || c.mask & 1)
        return rc;
    return inflate_chunk(r, p, c.size, cb);
}

/* A plain chunk whole (it goes to the chunk cache) or, one larger than
 * the cache, the sample's part of it (first to last byte): entry i of the
 * chunks of row j, chunk lo + i of the grid. */
static int plain_chunk(struct h5r *r, const struct h5set *s, const uint64_t *grid, uint64_t j,
                       uint64_t lo, uint64_t i, uint64_t addr, uint64_t cb)
{
    if (addr + cb > r->eoa)
        return dbad(r, -EILSEQ, ": a chunk past the end of the file");
    if (cb <= CHUNK_CACHE)
        return rd_span(r, addr, cb);
    uint64_t rest = lo + i, nk[MAX_RANK], first = j % s->cdims[0], last = first;
    for (int k = s->rank - 1; k >= 1; k--) {
        uint64_t c0 = rest % grid[k] * s->cdims[k];
        nk[k] = s->dims[k] - c0 < s->cdims[k] ? s->dims[k] - c0 : s->cdims[k];
        rest /= grid[k];
    }
    for (int k = 1; k < s->rank; k++) {
        first *= s->cdims[k];
        last = last * s->cdims[k] + nk[k] - 1;
    }
    return rd_span(r, addr + first * s->esize, (last - first + 1) * s->esize);
}

/* Chunked: the index entries of the chunks of row j, then each chunk. */
static int chunked(struct h5r *r, const struct h5set *s, uint64_t j)
{
    uint64_t grid[MAX_RANK] = {0}, per = 1, total, cb = s->esize;
    for (int k = 0; k < s->rank; k++) {
        if (s->cdims[k] == 0)
            return dbad(r, -EILSEQ, ": a chunk dimension of 0");
        grid[k] = s->dims[k] / s->cdims[k] + (s->dims[k] % s->cdims[k] != 0);
        if (k && grid[k] && per > LB_H5_MAX_CHUNKS / grid[k])
            return dbad(r, -EFBIG, ": more chunks to a row than are read (2^24)");
        per *= k ? grid[k] : 1;
        if (s->cdims[k] > LB_H5_MAX_CHUNK / cb)
            return dbad(r, -EILSEQ, ": chunks of 4 GiB or more (past HDF5's limit)");
        cb *= s->cdims[k];
    }
    if (per > r->end || (per && grid[0] > UINT64_MAX / per))   /* each indexed in the file */
        return dbad(r, -EFBIG, ": more chunks than the file can index");
    total = grid[0] * per;
    uint64_t lo = j / s->cdims[0] * per;
    struct h5chunk *a = chunk_room(r->io, per, 0);
    if (a == NULL)
        return -ENOMEM;
    int rc = 0;
    if (s->index == 3)
        rc = fixed_array_get(r, s, total, lo, per, cb, a);
    else if (s->index == 1 && total != 1)
        return dbad(r, -EILSEQ, ": a single-chunk index over many chunks");
    for (uint64_t i = 0; s->index != 3 && i < per; i++) {   /* single, implicit */
        a[i].addr = s->addr == UNDEF ? UNDEF : s->addr + (lo + i) * cb;
        a[i].size = s->fsingle ? s->fsize : cb;
        a[i].mask = s->fsingle ? s->fmask : 0;
    }
    for (uint64_t i = 0; rc == 0 && i < per; i++) {
        uint64_t addr = ((struct h5chunk *)(void *)r->io->zbuf)[i].addr;
        if (addr == UNDEF)
            continue;                   /* never written: the fill value */
        rc = s->filtered ? filtered_chunk(r, per, i, cb)
                         : plain_chunk(r, s, grid, j, lo, i, addr, cb);
    }
    return rc;
}

/* Sample j of the dataset at addr (r->name): its header, then its data. */
static int read_dataset(struct h5r *r, uint64_t addr, uint64_t j, uint64_t *len)
{
    struct h5set s = {0};
    int rc = dataset(r, addr, &s);
    if (rc < 0)
        return rc;
    uint64_t n = s.esize;
    for (int k = 1; k < s.rank; k++)
        n *= s.dims[k];
    *len += n;
    if (j >= s.dims[0]) {
        snprintf(r->io->msg, sizeof r->io->msg, "%s holds %llu samples, sample %llu asked for",
                 r->name, (unsigned long long)s.dims[0], (unsigned long long)j);
        return -EILSEQ;
    }
    return s.layout == 1 ? contiguous(r, &s, j, n) : chunked(r, &s, j);
}

int lb_fmt_hdf5_read(int fd, const char *path, uint64_t j, unsigned ndset, struct lb_fmt_io *io,
                     uint64_t *len)
{
    struct h5r r = {.fd = fd, .io = io};
    struct stat st;
    uint64_t root, addr[LB_H5_MAX_DSETS];
    ndset = ndset ? ndset : 1;
    if (ndset > LB_H5_MAX_DSETS)
        return bad(io, -EINVAL, "num_dset_per_record above what is read");
    if (fstat(fd, &st) < 0)
        return -errno;
    (void)flock(fd, LOCK_SH | LOCK_NB);  /* libhdf5's lock; closing drops it */
    int rc = superblock(&r, &root);
    r.end = (uint64_t)st.st_size < r.eoa ? (uint64_t)st.st_size : r.eoa;
    if (rc == 0 && path[0] != '/') {
        char cwd[PATH_MAX];             /* a relative name made absolute */
        (void)!getcwd(cwd, sizeof cwd);
    }
    if (rc == 0)
        (void)fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW);   /* its name resolved */
    if (rc == 0)
        rc = find_records(&r, root, addr, ndset);
    *len = 0;
    for (unsigned k = 0; rc == 0 && k < ndset; k++) {
        snprintf(r.name, sizeof r.name, "records_%u", k);
        rc = read_dataset(&r, addr[k], j, len);
    }
    return rc;
}
