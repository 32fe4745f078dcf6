/* Unit tests: the common library's strict number parsing (lib/number.h),
 * and wrapped text (lib/wrap.h) in the racer's way and the driver's. */
#include "config.h"

#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/number.h"
#include "lib/wrap.h"
#include "tap.h"

static int whole(const char *s, long long min, long long max, long long want)
{
	long long v = -12345;
	return parse_whole(s, min, max, &v) == PARSE_OK && v == want;
}

static int whole_fails(const char *s, long long min, long long max, int why)
{
	long long v = -12345;
	return parse_whole(s, min, max, &v) == why && v == -12345;
}

static int decimal(const char *s, double min, double max, double want)
{
	double v = -1;
	return parse_decimal(s, min, max, &v) == PARSE_OK && v == want;
}

static int decimal_fails(const char *s, double min, double max, int why)
{
	double v = -1;
	return parse_decimal(s, min, max, &v) == why && v == -1;
}

static int seed(const char *s, uint64_t want)
{
	uint64_t v = 7;
	return parse_seed(s, &v) == PARSE_OK && v == want;
}

static int seed_fails(const char *s, int why)
{
	uint64_t v = 7;
	return parse_seed(s, &v) == why && v == 7;
}

/* What print_wrapped writes, as a string (static: one at a time). */
static const char *wrapped(const char *text, struct wrap w)
{
	static char *buf;
	size_t n;
	free(buf);
	FILE *f = open_memstream(&buf, &n);
	print_wrapped(f, text, w);
	fclose(f);
	return buf;
}

int main(void)
{
	/* whole numbers */
	ok(whole("0", 0, 10, 0) && whole("10", 0, 10, 10) && whole("007", 0, 10, 7),
	   "whole numbers in range, leading zeros too");
	ok(whole("-3", -5, 5, -3) && whole("-0", -5, 5, 0), "negative ones");
	ok(whole("9223372036854775807", LLONG_MIN, LLONG_MAX, LLONG_MAX) &&
		   whole("-9223372036854775808", LLONG_MIN, LLONG_MAX, LLONG_MIN),
	   "the ends of long long");
	ok(whole_fails("11", 0, 10, PARSE_RANGE) && whole_fails("-1", 0, 10, PARSE_RANGE),
	   "outside min..max: out of range");
	ok(whole_fails("9223372036854775808", LLONG_MIN, LLONG_MAX, PARSE_RANGE) &&
		   whole_fails("-9223372036854775809", LLONG_MIN, LLONG_MAX, PARSE_RANGE) &&
		   whole_fails("99999999999999999999999", 0, LLONG_MAX, PARSE_RANGE),
	   "beyond long long: out of range, not wrapped");
	const char *not_whole[] = {"", "-", "+1", " 1", "1 ", "1.0", "1e3", "0x10", "1a", "--1", "inf", "nan", "٣"};
	int all = 1;
	for (size_t i = 0; i < sizeof not_whole / sizeof *not_whole; i++)
		if (!whole_fails(not_whole[i], LLONG_MIN, LLONG_MAX, PARSE_SYNTAX)) {
			all = 0;
			printf("#   '%s' read as a whole number\n", not_whole[i]);
		}
	ok(all, "no blanks, signs but '-', fractions, exponents, hexadecimal or words");
	long long v = 0;
	ok(parse_whole_n("42abc", 2, 0, 100, &v) == PARSE_OK && v == 42, "_n reads a token of a line");
	ok(parse_whole_n("42", 0, 0, 100, &v) == PARSE_SYNTAX, "_n: an empty token is no number");

	/* decimals */
	ok(decimal("1.5", 0, 10, 1.5) && decimal("0", 0, 10, 0) && decimal("10", 0, 10, 10),
	   "decimals in range, the ends included");
	ok(decimal(".5", 0, 1, 0.5) && decimal("5.", 0, 10, 5.0) && decimal("-2.25", -3, 0, -2.25),
	   "digits on one side of the point are enough");
	ok(decimal("1e3", 0, 1e4, 1000) && decimal("2.5E-3", 0, 1, 0.0025) && decimal("1e+2", 0, 1e3, 100),
	   "exponents");
	ok(decimal("1e-400", 0, 1, 0), "one too small for a double reads as 0");
	ok(decimal_fails("1e400", -DBL_MAX, DBL_MAX, PARSE_RANGE), "one too large is out of range");
	ok(decimal_fails("10.5", 0, 10, PARSE_RANGE) && decimal_fails("-0.1", 0, 10, PARSE_RANGE),
	   "outside min..max: out of range");
	const char *not_decimal[] = {"", ".", "-", "-.", "e3", "1e", "1e+", "+1", " 1", "1 ", "1.2.3",
				     "0x1p3", "inf", "-inf", "nan", "1,5", "1s"};
	all = 1;
	for (size_t i = 0; i < sizeof not_decimal / sizeof *not_decimal; i++)
		if (!decimal_fails(not_decimal[i], -DBL_MAX, DBL_MAX, PARSE_SYNTAX)) {
			all = 0;
			printf("#   '%s' read as a decimal\n", not_decimal[i]);
		}
	ok(all, "no blanks, '+', hexadecimal, inf, nan, or a unit after it");
	double d = 0;
	ok(parse_decimal_n("200ms", 3, 0, 1e9, &d) == PARSE_OK && d == 200, "_n reads the number before a unit");

	/* seeds */
	ok(seed("0", 0) && seed("42", 42) && seed("18446744073709551615", UINT64_MAX), "seeds: 0 to 2^64-1");
	ok(seed_fails("18446744073709551616", PARSE_RANGE) && seed_fails("99999999999999999999999", PARSE_RANGE),
	   "2^64 and beyond: out of range, not wrapped");
	ok(seed_fails("-1", PARSE_SYNTAX) && seed_fails(" -1", PARSE_SYNTAX) && seed_fails("+1", PARSE_SYNTAX) &&
		   seed_fails("", PARSE_SYNTAX) && seed_fails("1.0", PARSE_SYNTAX) && seed_fails("0x10", PARSE_SYNTAX),
	   "a seed is digits only: no sign, blank, fraction or hexadecimal");

	/* wrapped text: the driver's --help */
	is_str(wrapped("short", (struct wrap){0}), "short\n", "a line that fits is ended");
	is_str(wrapped("", (struct wrap){0}), "\n", "an empty text is an empty line");
	is_str(wrapped("aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp "
		       "qqqq rrrr",
		       (struct wrap){.indent = 2}),
	       "aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp\n"
	       "  qqqq rrrr\n",
	       "broken at the last space that fits 80 columns, going on at indent");
	is_str(wrapped("  --opt=X               what it does, with a list:\n  one, two, three, four, five, six, "
		       "seven, eight, nine, ten, eleven, twelve",
		       (struct wrap){.indent = 25, .hang = 2}),
	       "  --opt=X               what it does, with a list:\n"
	       "                           one, two, three, four, five, six, seven, eight, nine,\n"
	       "                             ten, eleven, twelve\n",
	       "a '\\n' starts a line at indent plus its spaces; its rest hangs deeper");
	is_str(wrapped("aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj, kkkk llll mmmm nnnn oooo pppp "
		       "qqqq rrrr",
		       (struct wrap){0}),
	       "aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj, kkkk llll mmmm nnnn oooo pppp\n"
	       "qqqq rrrr\n",
	       "without clauses, a comma is a space like another");
	is_str(wrapped("é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é",
		       (struct wrap){0}),
	       "é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é\né\n",
	       "columns count characters, not bytes");

	/* the racer's --stats and --list-workers */
	is_str(wrapped("aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj, kkkk llll mmmm nnnn oooo pppp "
		       "qqqq rrrr",
		       (struct wrap){.clauses = true}),
	       "aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj,\n"
	       "kkkk llll mmmm nnnn oooo pppp qqqq rrrr\n",
	       "with clauses, a break after a comma in the line's second half");
	is_str(wrapped("aaaa bbbb cccc, dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp "
		       "qqqq rrrr",
		       (struct wrap){.clauses = true}),
	       "aaaa bbbb cccc, dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp\n"
	       "qqqq rrrr\n",
	       "but not in its first half");
	is_str(wrapped("unavailable: aaaa, bbbb; cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm",
		       (struct wrap){.at = 30, .indent = 30, .clauses = true}),
	       "unavailable: aaaa, bbbb; cccc dddd eeee ffff gggg\n"
	       "                              hhhh iiii jjjj kkkk llll mmmm\n",
	       "from column at, going on at indent");
	is_str(wrapped("/a/very/long/path/that/does/not/fit/on/one/line/of/eighty/columns/sudoku-cp",
		       (struct wrap){.at = 40, .indent = 40, .clauses = true}),
	       "/a/very/long/path/that/does/not/fit/on/o\n"
	       "                                        ne/line/of/eighty/columns/sudoku-cp\n",
	       "a word longer than a line is cut where the line ends");
	return tap_done();
}
