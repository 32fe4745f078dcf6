/* A tiny TAP producer for the C unit tests (read by automake's tap-driver). */
#ifndef SUDOKU_TAP_H
#define SUDOKU_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...)                                                        \
	do {                                                                 \
		int ok_ = !!(cond);                                          \
		printf("%s %d - ", ok_ ? "ok" : "not ok", ++tap_n);          \
		printf(__VA_ARGS__);                                         \
		printf("\n");                                                \
		if (!ok_) {                                                  \
			tap_failed++;                                        \
			printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
		}                                                            \
	} while (0)

#define is_str(got, want, ...)                                               \
	do {                                                                 \
		const char *g_ = (got), *w_ = (want);                        \
		ok(g_ && strcmp(g_, w_) == 0, __VA_ARGS__);                  \
		if (!g_ || strcmp(g_, w_) != 0)                              \
			printf("#   got:  '%s'\n#   want: '%s'\n", g_ ? g_ : "(null)", w_); \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
