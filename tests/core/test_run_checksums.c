/* Description: the checksums behind verify= give the published test
 * vectors (crc32c "123456789" = 0xe3069283; md5 of "", "abc" and the RFC
 * 1321 long message), chained crc32c equals the one-shot value, and a
 * block filled for verification checks clean and fails once a byte flips. */
#include <stdio.h>
#include <string.h>
#include "job.h"
#include "verify.h"

#include "check.h"

static void md5_is(const char *msg, const char *want)
{
    unsigned char d[16];
    char hex[33];

    lb_md5(msg, strlen(msg), d);
    for (int i = 0; i < 16; i++)
        sprintf(hex + 2 * i, "%02x", d[i]);
    CHECK(strcmp(hex, want) == 0, "md5(\"%s\") = %s, want %s", msg, hex, want);
}

int main(void)
{
    static unsigned char block[8192];
    struct lb_verify_cfg v;
    struct lb_vwhere at = { "/f", 8192, 1, sizeof(block), 3 };
    char msg[256];
    uint32_t one;

    CHECK(lb_crc32c(0, "123456789", 9) == 0xe3069283u, "crc32c = %08x",
          lb_crc32c(0, "123456789", 9));
    for (size_t i = 0; i < sizeof(block); i++)
        block[i] = (unsigned char)(i * 7 + 3);
    one = lb_crc32c(0, block, 1001);
    CHECK(lb_crc32c(lb_crc32c(0, block, 13), block + 13, 988) == one, "chained crc32c");
    md5_is("", "d41d8cd98f00b204e9800998ecf8427e");
    md5_is("abc", "900150983cd24fb0d6963f7d28e17f72");
    md5_is("12345678901234567890123456789012345678901234567890123456789012345678901234567890",
           "57edf4a22be3c955ac49da2e2107b67a");
    for (int kind = LB_VERIFY_CRC32C; kind <= LB_VERIFY_PATTERN; kind++) {
        lb_verify_cfg_init(&v, kind, 0xa5);
        lb_verify_fill(&v, block, sizeof(block), 8192, 3, 42);
        CHECK(lb_verify_check(&v, block, &at, msg, sizeof(msg)) == 0,
              "kind %d: a good block fails: %s", kind, msg);
        block[5000] ^= 1;
        CHECK(lb_verify_check(&v, block, &at, msg, sizeof(msg)) != 0 &&
              strstr(msg, "in /f at offset 8192 (block 1)"),
              "kind %d: a flipped byte passes or says '%s'", kind, msg);
    }
    return failures ? 1 : 0;
}
