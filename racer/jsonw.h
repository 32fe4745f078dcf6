/* JSON objects for the racer's reports (--stats, --list-workers, cache
 * stats with --json): keys and values appended to an answer_buf, commas
 * kept by depth; strings through the answer codec's writer (one escaping,
 * valid UTF-8 always). */
#ifndef RACER_JSONW_H
#define RACER_JSONW_H

#include <stdbool.h>

#include "lib/answer.h"

#define JSONW_DEPTH 8

struct jsonw {
	struct answer_buf buf;
	int depth;
	bool first[JSONW_DEPTH];
	bool after_key; /* the next value is a key's */
	bool failed;    /* memory ran out */
};

void jsonw_begin(struct jsonw *w, char open);   /* '{' or '[' */
void jsonw_end(struct jsonw *w, char close);    /* '}' or ']' */
void jsonw_key(struct jsonw *w, const char *key); /* the next value's key */
void jsonw_str(struct jsonw *w, const char *s);   /* NULL: null */
void jsonw_long(struct jsonw *w, long v);
void jsonw_double(struct jsonw *w, double v, int decimals);
void jsonw_bool(struct jsonw *w, bool v);
/* Writes it, LF ended, to f; the buffer is emptied. */
void jsonw_flush(struct jsonw *w, FILE *f);
void jsonw_free(struct jsonw *w);

#endif
