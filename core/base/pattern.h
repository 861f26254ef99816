/*
 * fio's byte patterns (buffer_pattern): a run of elements, each a hex
 * number 0x... written most significant byte first, a decimal integer in
 * INT_MIN..INT_MAX stored least significant byte first in as few bytes as
 * it needs (0 is one zero byte), a "string" taken as its bytes, or a
 * 'file' whose first bytes are read.  Elements follow each other with no
 * separator: 0xdeadface"abcd"-12.  fio's %o formats belong to
 * verify_pattern and are refused here, as fio refuses them in buffer_pattern.
 */
#ifndef LB_PATTERN_H
#define LB_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#define LB_PATTERN_MAX 512           /* fio's MAX_PATTERN_SIZE */

/* Parses s into out (LB_PATTERN_MAX bytes).  @return the pattern's length
 * (at least 1), or -EINVAL with the reason in err. */
int lb_pattern_parse(const char *s, uint8_t *out, char *err, size_t errlen);

/* Fills len bytes with the pattern repeated from its first byte. */
void lb_pattern_fill(void *buf, size_t len, const uint8_t *pat, size_t plen);

#endif
