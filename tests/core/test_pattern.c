/* Description: buffer_pattern text parses to fio's bytes (hex most
 * significant first, decimals least significant first in as few bytes as
 * they need, strings as their bytes, elements joined with no separator),
 * bad text is -EINVAL with a reason, and a fill repeats the pattern. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/pattern.h"

#include "check.h"

struct pcase {
    const char *in;
    const char *want;        /* bytes */
    int len;
};

static const struct pcase good[] = {
    { "0xdeadbeef", "\xde\xad\xbe\xef", 4 },
    { "0xabc", "\x0a\xbc", 2 },
    { "0xff0x14", "\xff\x14", 2 },
    { "\"abcd\"", "abcd", 4 },
    { "-12", "\xf4\xff\xff\xff", 4 },
    { "0", "\x00", 1 },
    { "258", "\x02\x01", 2 },
    { "120xff", "\x0c\xff", 2 },
    { "0xdeadface\"ab\"-12", "\xde\xad\xfa\xce" "ab" "\xf4\xff\xff\xff", 10 },
};

static const char *const bad[] = {
    "", "0xzz", "\"abc", "\"\"", "%o", "abc", "99999999999", "'/nonexistent/pattern'",
};

static void test_parse(void)
{
    uint8_t out[LB_PATTERN_MAX];
    char err[200];

    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int n = lb_pattern_parse(good[i].in, out, err, sizeof err);
        CHECK(n == good[i].len && memcmp(out, good[i].want, (size_t)n) == 0,
              "'%s' gave %d bytes (%s)", good[i].in, n, err);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        CHECK(lb_pattern_parse(bad[i], out, err, sizeof err) == -EINVAL && err[0] &&
              !strchr(err, '\n'), "'%s' not refused with a reason", bad[i]);
    }
}

static void test_fill(void)
{
    uint8_t buf[1000];
    const uint8_t pat[3] = { 1, 2, 3 };

    lb_pattern_fill(buf, sizeof buf, pat, 3);
    for (size_t i = 0; i < sizeof buf; i++)
        CHECK(buf[i] == pat[i % 3], "byte %zu is %u", i, buf[i]);
}

int main(void)
{
    test_parse();
    test_fill();
    if (failures)
        printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
