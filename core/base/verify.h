/*
 * Verification of written data (fio's verify=, in luabench's own format).
 *
 * With verify=crc32c or md5 every block written starts with a header
 * (struct lb_vhdr: magic, offset, length, generation, seed, checksum of the
 * payload) followed by a payload that is a pure function of (seed, offset).
 * A check needs nothing but the block and where it was read from, so a
 * later verify_only run checks what an earlier run wrote.  verify=pattern
 * writes the repeated pattern bytes and has no header.
 *
 * The checksums are implemented here: crc32c (Castagnoli) with the SSE4.2
 * instruction when the CPU has it, else slice-by-8 tables; md5 after
 * RFC 1321.  Nothing here allocates, prints or does I/O.
 */
#ifndef LB_VERIFY_H
#define LB_VERIFY_H

#include <stddef.h>
#include <stdint.h>

/* LB_VERIFY_META: the header alone (where and when the block was written),
 * as fio's verify=meta; its payload is not summed. */
enum lb_verify { LB_VERIFY_NONE, LB_VERIFY_CRC32C, LB_VERIFY_MD5, LB_VERIFY_PATTERN,
                 LB_VERIFY_META };

#define LB_VHDR_MAGIC 0x3176626cu      /* "lbv1" in memory order */
#define LB_VHDR_SIZE 64u               /* the payload starts here */

struct lb_vhdr {
    uint32_t magic;
    uint32_t len;                /* block length, header included */
    uint64_t offset;             /* absolute offset in the file */
    uint64_t generation;         /* pass number of the writer */
    uint64_t seed;               /* payload seed */
    uint32_t kind;               /* enum lb_verify */
    uint32_t pad;
    uint8_t sum[16];             /* crc32c (4 bytes, LE) or md5 of the payload */
};

struct lb_verify_cfg {
    int kind;                    /* enum lb_verify */
    uint8_t pattern[8];          /* verify=pattern: bytes repeated */
    unsigned plen;
};

/* Where a block was read from, for the check and its message. */
struct lb_vwhere {
    const char *path;
    uint64_t offset;
    uint64_t block;              /* block number shown in messages */
    uint32_t len;
    uint64_t generation;         /* expected; UINT64_MAX accepts any */
};

/* crc32c of buf continuing from crc (0 to start), as zlib's crc32(). */
uint32_t lb_crc32c(uint32_t crc, const void *buf, size_t len);
/* The RFC 1321 digest of buf. */
void lb_md5(const void *buf, size_t len, uint8_t out[16]);

/* pattern: its significant bytes, most significant first (0x1234 -> 12 34);
 * 0 is one zero byte. */
void lb_verify_cfg_init(struct lb_verify_cfg *v, int kind, uint64_t pattern);
/* Fills a block about to be written at offset. */
void lb_verify_fill(const struct lb_verify_cfg *v, void *buf, uint32_t len,
                    uint64_t offset, uint64_t generation, uint64_t seed);
/* 0 when the block read at at->offset is what was written there, else
 * -EILSEQ with a one-line message ("verify: crc32c mismatch in /f at offset
 * 40960 (block 10): expected 0x1a2b3c4d, found 0x00000000"). */
int lb_verify_check(const struct lb_verify_cfg *v, const void *buf,
                    const struct lb_vwhere *at, char *msg, size_t msglen);

#endif
