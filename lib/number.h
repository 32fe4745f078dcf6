/* Strict number parsing, for command lines and the wire: the whole string
 * is the number, written plainly in decimal. No blanks around it, no '+',
 * no hexadecimal, no "inf" or "nan"; a whole number has no fraction or
 * exponent. Each returns PARSE_OK with the value, or why not, so that the
 * caller words the message (a usage error, a protocol error). The _n forms
 * read len bytes, a token in a line. */
#ifndef SUDOKU_NUMBER_H
#define SUDOKU_NUMBER_H

#include <stddef.h>
#include <stdint.h>

enum parse_status {
	PARSE_OK = 0,
	PARSE_SYNTAX = -1, /* not a number of that kind */
	PARSE_RANGE = -2,  /* a number, outside min..max (or beyond the type) */
};

/* A whole number, "-"? digits, from min to max. */
int parse_whole(const char *s, long long min, long long max, long long *out);
int parse_whole_n(const char *s, size_t len, long long min, long long max, long long *out);

/* A decimal, "-"? digits ("." digits)? (e ("+"|"-")? digits)?, where
 * either the digits before the point or those after it may be left out
 * (".5", "5."), from min to max. One too small for a double reads as its
 * nearest (0); one too large is out of range. */
int parse_decimal(const char *s, double min, double max, double *out);
int parse_decimal_n(const char *s, size_t len, double min, double max, double *out);

/* A seed: digits, 0 to 2^64-1 (beyond: out of range). */
int parse_seed(const char *s, uint64_t *out);
int parse_seed_n(const char *s, size_t len, uint64_t *out);

/* v in decimal, written backwards from the end of buf: its first digit
 * (the string ends at buf's last byte). By hand: snprintf's "%llu" took
 * 700 instructions a cancel line. */
#define U64_DECIMAL_SIZE 21
static inline const char *u64_decimal(uint64_t v, char buf[U64_DECIMAL_SIZE])
{
	char *d = &buf[U64_DECIMAL_SIZE - 1];
	*d = '\0';
	do
		*--d = (char)('0' + v % 10);
	while ((v /= 10));
	return d;
}

#endif
