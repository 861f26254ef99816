/*
 * fio's units.  Sizes: a number with an optional suffix k, m, g, t, p (and
 * kb, mb, ...; base from kb_base: 1024 by default, 1000 with kb_base=1000)
 * or ki/kib, mi/mib... (always 1024), case-insensitive, optional "b";
 * "0x" hex is accepted.  Times: a number with us/usec, ms/msec, s/sec,
 * m/min, h, d suffixes; a bare number is in the given default unit.
 * Percentages "N%" are returned separately where an option allows them.
 * Every parser returns 0 or -EINVAL (bad syntax, negative, overflow).
 *
 * Details: leading and trailing blanks are ignored; a decimal fraction is
 * allowed ("1.5g", "0.5s") and the result is rounded down; hex takes no
 * fraction.  kb_base is 1000 or 1024 (0 means 1024); other values are
 * -EINVAL.  Where this departs from fio: fio's kb_base=1024 "compatibility
 * mode" reads "kib" as 1000, and fio matches suffixes by prefix ("4kxyz"
 * is 4096 there); here IEC suffixes always mean 1024 and any trailing
 * garbage is an error.
 */
#ifndef LB_UNITS_H
#define LB_UNITS_H

#include <stdint.h>

int lb_parse_size(const char *s, unsigned kb_base, uint64_t *out);
/* A size or a percentage ("50%", "12.5%"): *is_pct set, *out the
 * percent * 1000 (50000, 12500), rounded down; no upper bound is applied.
 * Otherwise *is_pct is 0 and *out the size. */
int lb_parse_size_pct(const char *s, unsigned kb_base, uint64_t *out, int *is_pct);
/* default_unit_us: 1000000 when a bare number means seconds, 1 for usec,
 * 0 when a bare number is an error (a unit is required).
 * "1m" is a minute here; "hour"/"day" are accepted too. */
int lb_parse_time_us(const char *s, uint64_t default_unit_us, uint64_t *out_us);
int lb_parse_u64(const char *s, uint64_t *out);      /* plain integer, or 0x hex */
int lb_parse_double(const char *s, double *out);     /* finite values only */
/* 1/0 from 1, 0, true, false, yes, no, on, off (any case). */
int lb_parse_bool(const char *s, int *out);

/* Human formatting into buf (always NUL-terminated when len > 0); returns
 * buf.  The largest binary unit not above v (B, KiB, MiB, GiB, TiB, PiB,
 * EiB) with at most two decimals, truncated, trailing zeros dropped:
 * 0 -> "0B", 512 -> "512B", 4096 -> "4KiB", 1536 -> "1.5KiB",
 * 1048576 -> "1MiB", 1000000000 -> "953.67MiB".  Exact whenever v is a
 * multiple of a hundredth of its unit. 24 bytes always suffice. */
char *lb_fmt_bytes(uint64_t v, char *buf, unsigned len);

#endif
