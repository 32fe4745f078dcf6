/* Strict number parsing (number.h). The syntax is checked here, character
 * by character; strtod only converts what passed, so that its leniency
 * (blanks, '+', hexadecimal, inf, nan) never reaches a caller. */
#include "config.h"

#include "number.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The digits of s[0..len) as a value; false when there are none, when
 * anything else is there, or when they pass UINT64_MAX (*over set). */
static bool read_digits(const char *s, size_t len, uint64_t *out, bool *over)
{
	uint64_t v = 0;
	*over = false;
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!is_digit(s[i]))
			return false;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			*over = true;
		else
			v = v * 10 + d;
	}
	*out = v;
	return true;
}

int parse_seed_n(const char *s, size_t len, uint64_t *out)
{
	uint64_t v;
	bool over;
	if (!read_digits(s, len, &v, &over))
		return PARSE_SYNTAX;
	if (over)
		return PARSE_RANGE;
	*out = v;
	return PARSE_OK;
}

int parse_seed(const char *s, uint64_t *out)
{
	return parse_seed_n(s, strlen(s), out);
}

int parse_whole_n(const char *s, size_t len, long long min, long long max, long long *out)
{
	bool minus = len > 0 && s[0] == '-';
	uint64_t mag;
	bool over;
	if (!read_digits(s + minus, len - minus, &mag, &over))
		return PARSE_SYNTAX;
	long long v;
	if (over || mag > (uint64_t)LLONG_MAX + minus)
		return PARSE_RANGE;
	if (minus)
		v = mag == (uint64_t)LLONG_MAX + 1 ? LLONG_MIN : -(long long)mag;
	else
		v = (long long)mag;
	if (v < min || v > max)
		return PARSE_RANGE;
	*out = v;
	return PARSE_OK;
}

int parse_whole(const char *s, long long min, long long max, long long *out)
{
	return parse_whole_n(s, strlen(s), min, max, out);
}

/* Whether s[0..len) is a decimal as number.h says. */
static bool decimal_syntax(const char *s, size_t len)
{
	size_t i = 0, before = 0, after = 0;
	if (i < len && s[i] == '-')
		i++;
	for (; i < len && is_digit(s[i]); i++)
		before++;
	if (i < len && s[i] == '.')
		for (i++; i < len && is_digit(s[i]); i++)
			after++;
	if (before + after == 0)
		return false;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		size_t exp = 0;
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		for (; i < len && is_digit(s[i]); i++)
			exp++;
		if (exp == 0)
			return false;
	}
	return i == len;
}

/* The longest decimal read: more digits than a double holds, many times
 * over. */
#define DECIMAL_MAX 255

int parse_decimal_n(const char *s, size_t len, double min, double max, double *out)
{
	if (len > DECIMAL_MAX || !decimal_syntax(s, len))
		return PARSE_SYNTAX;
	char buf[DECIMAL_MAX + 1];
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	double v = strtod(buf, NULL);
	if (errno == ERANGE && isinf(v))
		return PARSE_RANGE;
	if (!(v >= min && v <= max))
		return PARSE_RANGE;
	*out = v;
	return PARSE_OK;
}

int parse_decimal(const char *s, double min, double max, double *out)
{
	return parse_decimal_n(s, strlen(s), min, max, out);
}
